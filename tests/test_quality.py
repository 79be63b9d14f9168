"""The quality report: on the terminal a summary line with the count and where the full list is; the list
itself in `quality.txt` in the kit's folder (a deck where most texts shrink must not flood the terminal)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner

from benchmarks.bench import ACTIVITY
from kitgen.cli import main
from kitgen.app.report import report, REPORT_FILE
from kitgen.core.notes import Note, NoteKind


RULES = " ".join(["Take turns clockwise and play one card from your hand each turn."] * 40)


def deck(content: Path, name: str, cards: int, words: int = 120) -> Path:
    """An activity of `cards` cards whose bodies of `words` words shrink on a poker card (and still fit). Nothing
    else is noted: the rules fill their page and a small deck prints each card three times (a sheet's worth)."""
    body = " ".join(f"word{i % 7}" for i in range(words))
    count = 1 if cards >= 9 else 3
    lines = [f'      - {{id: c{i:03d}, count: {count}, name: Card {i}, text: "{body}"}}' for i in range(cards)]
    path = content / f"{name}.yaml"
    text = ACTIVITY.format(id=name, cards="\n".join(lines)).replace("prepare: Shuffle the deck.", f"prepare: {RULES}")
    path.write_text(text, encoding="utf-8")
    return path


def _build(content: Path, out: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["build", *args, "--content", str(content), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_deck_of_shrunk_texts_prints_one_summary_line_and_writes_the_list_to_the_kit_folder(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    content.mkdir()
    deck(content, "deck", 198)  # 22 full sheets
    printed = _build(content, out, "deck", "-q")
    listed = (out / "deck" / REPORT_FILE).read_text(encoding="utf-8").splitlines()
    assert len(listed) == 198, "every text shrinks"
    assert all(" shrunk to " in line for line in listed) and len(set(listed)) == len(listed)
    assert printed.splitlines() == [f"quality report: {len(listed):,} notes ({len(listed):,} texts shrunk below their "
                                    f"body size), full list in {out / 'deck' / REPORT_FILE}"]
    assert "c001" not in printed

    # without -q: still the summary, not hundreds of notes
    printed = _build(content, out, "deck", "--force")
    assert sum(line.startswith("  - ") for line in printed.splitlines()) == 0
    assert f"quality report: {len(listed):,} notes" in printed


def test_a_few_notes_are_also_listed_and_a_kit_without_notes_leaves_no_stale_list(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    content.mkdir()
    source = deck(content, "deck", 1)
    text = source.read_text(encoding="utf-8")
    printed = _build(content, out, "deck")
    notes = (out / "deck" / REPORT_FILE).read_text(encoding="utf-8").splitlines()
    assert len(notes) == 1 and f"  - deck: {notes[0]}" in printed.splitlines()
    assert f"quality report: 1 note (1 text shrunk below its body size), full list in {out / 'deck' / REPORT_FILE}" \
        in printed
    assert _build(content, out, "deck", "-q", "--force").splitlines() == \
        [f"quality report: 1 note (1 text shrunk below its body size), full list in {out / 'deck' / REPORT_FILE}"]
    source.write_text(text.replace(text.split('text: "')[1].split('"')[0], " ".join(["Short words."] * 14)),
                      encoding="utf-8")  # fits at its body size and fills the face
    printed = _build(content, out, "deck")
    assert "quality report: no text shrunk below its body size" in printed
    assert not (out / "deck" / REPORT_FILE).exists(), "the list of an earlier build is gone"


def test_build_all_ends_with_one_summary_line_for_the_library(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    content.mkdir()
    for name in ("one", "two"):
        deck(content, name, 1)
    printed = _build(content, out, "--all", "-q").splitlines()
    summary = [line for line in printed if line.startswith("quality report")]
    assert summary == [f"quality report: 2 notes in 2 kits (2 texts shrunk below their body size), each kit's full "
                       f"list in its folder's {REPORT_FILE}"]
    assert not [line for line in printed if line.startswith("  - ") or "shrunk to" in line]
    assert all(len((out / name / REPORT_FILE).read_text().splitlines()) == 1 for name in ("one", "two"))
    printed = _build(content, out, "--all").splitlines()  # up to date: the lists stay, the summary is the same
    assert f"  one: 1 note in {out / 'one' / REPORT_FILE}" in printed
    assert sum(line.startswith("  - ") for line in printed) == 2


def test_several_kits_get_one_summary_and_a_line_per_kit_and_quiet_keeps_only_the_summary(tmp_path: Path):
    results = [SimpleNamespace(folder=tmp_path / name, quality=[Note(NoteKind.SHRUNK, "text shrunk to 8 pt (body size "
                                                                     "10 pt)", f"card {i}") for i in range(count)])
               for name, count in [("a", 3), ("b", 0), ("c", 12)]]
    for result in results:
        result.folder.mkdir()
    (tmp_path / "b" / REPORT_FILE).write_text("left by an earlier build\n")
    lines = report(results, show=10)
    assert lines[0] == f"quality report: 15 notes in 2 kits (15 texts shrunk below their body size), each kit's full " \
                       f"list in its folder's {REPORT_FILE}"
    assert lines[1:] == [f"  a: 3 notes in {tmp_path / 'a' / REPORT_FILE}", f"  c: 12 notes in {tmp_path / 'c' / REPORT_FILE}"]
    assert (tmp_path / "c" / REPORT_FILE).read_text().splitlines() == [str(n) for n in results[2].quality]
    assert not (tmp_path / "b" / REPORT_FILE).exists()
    assert report(results, show=0) == lines[:1]
    grey = [SimpleNamespace(folder=tmp_path / "a", quality=[Note(NoteKind.GREYSCALE, "text in colour #ffcc00 is hard to "
                                                                                      "read in grayscale", "card 1")])]
    assert report(grey, show=0)[0].startswith("quality report: 1 note (1 colour weak in grayscale), full list in ")
