"""The command line: exit codes and the messages a user sees (CliRunner), plus one real subprocess build."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest
from click.testing import CliRunner

from conftest import ACTIVITY, CONTENT, REPO, file_of
from kitgen.cli import main
from kitgen.core.errors import ContentError

LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")
WROTE = re.compile(r"^wrote (?P<path>.+?)  \((?P<pages>\d+) pages?\)$")


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def stderr_of(result) -> str:
    """What went to stderr (click ≥ 8.2 keeps it apart; older versions mix it into output)."""
    try:
        return result.stderr
    except ValueError:
        return result.output


def assert_clean_exit(result, code: int) -> None:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit) or (code == 0 and result.exception is None), result.exception
    assert "Traceback" not in result.output


def written_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


# --------------------------------------------------------------------------- unknown activity


def test_unknown_activity_exits_2_and_names_the_available_ones(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(main, ["build", "nope", "--content", str(CONTENT), "--out", str(out)])
    assert_clean_exit(result, 2)
    message = stderr_of(result)
    assert "'nope'" in message
    assert ACTIVITY in message
    assert written_files(out) == []


# --------------------------------------------------------------------------- broken YAML


def broken_copy(folder: Path) -> tuple[Path, str]:
    """growing-discard with its first `count: 6` spelled out as 'six' and a misspelt top-level key."""
    text = (CONTENT / f"{ACTIVITY}.yaml").read_text(encoding="utf-8")
    assert "count: 6" in text and "\ntitle: " in text
    text = text.replace("count: 6", "count: six", 1)
    title_line = next(line for line in text.splitlines() if line.startswith("title: "))
    text = text.replace(title_line + "\n", f"{title_line}\ntitel: {title_line[len('title: '):]}\n", 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ACTIVITY}.yaml"
    path.write_text(text, encoding="utf-8")
    return path, text


def position_of(text: str, line_prefix: str, token: str) -> tuple[int, int]:
    """1-based (line, column) of `token` on the first line that starts with `line_prefix` (after indentation)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(line_prefix):
            return number, line.index(token) + 1
    raise AssertionError(f"no line starts with {line_prefix!r}")


def located(message: str, suffix: str) -> list[tuple[Path, int, int]]:
    """Every `<file>:<line>:<col>: <suffix>` line of the message, as (file, line, column)."""
    pattern = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): " + re.escape(suffix) + r"$")
    found = []
    for line in message.splitlines():
        match = pattern.match(line.strip())
        if match:
            found.append((Path(match["file"]), int(match["line"]), int(match["col"])))
    return found


def test_broken_yaml_exits_2_with_located_plain_messages(runner, tmp_path):
    content = tmp_path / "content"
    path, text = broken_copy(content)
    count_at = position_of(text, "count: six", "six")
    key_at = position_of(text, "titel:", "titel")
    out = tmp_path / "out"

    result = runner.invoke(main, ["build", ACTIVITY, "--content", str(content), "--out", str(out)])

    assert_clean_exit(result, 2)
    message = stderr_of(result)
    count_lines = located(message, "decks[0].cards[0].count: expected a positive integer, got 'six'")
    assert len(count_lines) == 1, message
    shown, line, column = count_lines[0]
    assert (line, column) == count_at, f"expected line:col {count_at}, got {(line, column)}\n{message}"
    assert shown.resolve() == path.resolve()  # the file as the user can open it (relative to cwd or absolute)

    typo_lines = [ln for ln in message.splitlines() if "titel" in ln]
    assert len(typo_lines) == 1, message
    typo = LOCATED.match(typo_lines[0].strip())
    assert typo, typo_lines[0]
    assert Path(typo["file"]).resolve() == path.resolve()
    assert (int(typo["line"]), int(typo["col"])) == key_at, typo_lines[0]
    assert "did you mean 'title'" in typo["message"]

    # both problems reported in one go, in file order, and nothing written
    assert message.index("titel") < message.index("count")
    assert written_files(out) == []


def test_broken_yaml_with_debug_shows_the_exception(runner, tmp_path):
    content = tmp_path / "content"
    broken_copy(content)
    result = runner.invoke(main, ["build", ACTIVITY, "--content", str(content), "--out", str(tmp_path / "o"),
                                  "--debug"])
    assert result.exit_code != 0
    assert isinstance(result.exception, ContentError), repr(result.exception)
    assert located(str(result.exception), "decks[0].cards[0].count: expected a positive integer, got 'six'")


# --------------------------------------------------------------------------- bad card sizes


def test_card_too_big_for_the_paper_exits_2(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(main, ["build", ACTIVITY, "--content", str(CONTENT), "--out", str(out),
                                  "--card-size", "300x400mm"])
    assert_clean_exit(result, 2)
    assert "does not fit" in stderr_of(result)
    assert written_files(out) == []


def test_malformed_card_size_exits_2(runner, tmp_path):
    result = runner.invoke(main, ["build", ACTIVITY, "--content", str(CONTENT), "--out", str(tmp_path),
                                  "--card-size", "63x88"])
    assert_clean_exit(result, 2)
    assert "'63x88'" in stderr_of(result)


# --------------------------------------------------------------------------- a real process


def test_python_m_kitgen_build_in_a_real_process(tmp_path, a4_kit):
    env = {k: v for k, v in os.environ.items() if k != "KITGEN_CONTENT"}
    out = tmp_path / "out"
    completed = subprocess.run([sys.executable, "-m", "kitgen", "build", ACTIVITY, "--out", str(out)],
                               cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr + completed.stdout
    wrote = [WROTE.match(line) for line in completed.stdout.splitlines() if line.startswith("wrote ")]
    assert wrote and all(wrote), completed.stdout
    reported = {Path(m["path"]).name: int(m["pages"]) for m in wrote}
    expected_names = {f.path.name for f in a4_kit.files}
    assert set(reported) == expected_names
    for match in wrote:
        path = Path(match["path"])
        path = path if path.is_absolute() else REPO / path
        assert path.is_file()
        assert len(pypdf.PdfReader(path).pages) == int(match["pages"]), path.name
        # the same bytes as the library build in this process: the CLI adds nothing and nothing depends
        # on the process (dates, ids, dictionary order)
        assert path.read_bytes() == file_of(a4_kit, next(f.role for f in a4_kit.files
                                                           if f.path.name == path.name)).read_bytes(), path.name


# --------------------------------------------------------------------------- variants never overwrite each other


def test_builds_with_other_options_land_in_their_own_variant_folder_and_the_kits_page_lists_what_exists(
        runner, tmp_path):
    """A mix of single and --all builds on two papers: the default kit stays where it was, each variant has its
    own folder named by its options, and kits.html lists exactly the PDFs that exist, each with its variant."""
    import shutil

    content = tmp_path / "content"
    content.mkdir()
    for name in ("growing-discard.yaml", "trash"):
        (shutil.copytree if (CONTENT / name).is_dir() else shutil.copy)(CONTENT / name, content / name)
    out = tmp_path / "out"
    common = ["--content", str(content), "--out", str(out)]
    assert_clean_exit(runner.invoke(main, ["build", ACTIVITY, *common]), 0)
    default_cards = out / ACTIVITY / f"{ACTIVITY}-cards.pdf"
    default_bytes = default_cards.read_bytes()
    assert_clean_exit(runner.invoke(main, ["build", ACTIVITY, "--paper", "letter", "--class-size", "12", *common]), 0)
    assert_clean_exit(runner.invoke(main, ["build", "--all", "--paper", "letter", "-q", *common]), 0)
    assert_clean_exit(runner.invoke(main, ["build", "trash", "--lang", "ro", *common]), 0)

    assert default_cards.read_bytes() == default_bytes  # the letter builds did not touch the default kit
    class_cards = out / "variants" / "letter-class12" / ACTIVITY / f"{ACTIVITY}-cards.pdf"
    letter_cards = out / "variants" / "letter" / ACTIVITY / f"{ACTIVITY}-cards.pdf"
    a4_width = float(pypdf.PdfReader(default_cards).pages[0].mediabox.width)
    for path, width in [(default_cards, a4_width), (letter_cards, 612.0), (class_cards, 612.0)]:
        assert float(pypdf.PdfReader(path).pages[0].mediabox.width) == pytest.approx(width, abs=0.5)
    assert len(pypdf.PdfReader(class_cards).pages) > 5 * len(pypdf.PdfReader(letter_cards).pages)  # 6 kits

    page = (out / "kits.html").read_text(encoding="utf-8")
    listed = {out / link for link in re.findall(r'href="([^"]+\.pdf)"', page)}
    assert listed == set(out.rglob("*.pdf")) - set(out.glob("**/index.pdf"))
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>.*?</td><td>(.*?)</td>", page)
    assert ("Growing discard deck (en)", "letter-class12", "letter", "class of 12") in rows
    assert ("Growing discard deck (en)", "default", "a4", "1 kit(s)") in rows
    assert sum(1 for row in rows if row[1] == "letter") == 3  # growing-discard, trash-en, trash-ro


def test_preview_takes_builds_options_and_previews_that_build_without_overwriting_another(runner, tmp_path):
    out = tmp_path / "out"
    common = ["--content", str(CONTENT), "--out", str(out)]
    assert_clean_exit(runner.invoke(main, ["build", ACTIVITY, "--class-size", "12", *common]), 0)
    class_folder = out / "variants" / "class12" / ACTIVITY
    class_cards = class_folder / f"{ACTIVITY}-cards.pdf"
    built, built_pages = class_cards.read_bytes(), len(pypdf.PdfReader(class_cards).pages)

    plain = runner.invoke(main, ["preview", ACTIVITY, "--dpi", "20", *common])
    assert_clean_exit(plain, 0)
    assert f"previewing {out / ACTIVITY} (built now)" in plain.output
    assert class_cards.read_bytes() == built
    assert built_pages > 5 * len(pypdf.PdfReader(out / ACTIVITY / f"{ACTIVITY}-cards.pdf").pages)

    classed = runner.invoke(main, ["preview", ACTIVITY, "--class-size", "12", "--dpi", "20", *common])
    assert_clean_exit(classed, 0)
    assert f"previewing {class_folder} (as built)" in classed.output
    pictures = sorted((class_folder / "preview").glob("*.png"))
    pages = sum(len(pypdf.PdfReader(pdf).pages) for pdf in class_folder.glob("*.pdf"))
    assert len(pictures) == pages > built_pages
    assert class_cards.read_bytes() == built


# --------------------------------------------------------------------------- the CLI never surprises


def small_library(tmp_path: Path, broken: bool = True) -> Path:
    """growing-discard, and (with `broken`) a copy whose first card count is the word 'six'."""
    content = tmp_path / "content"
    content.mkdir()
    text = (CONTENT / f"{ACTIVITY}.yaml").read_text(encoding="utf-8")
    (content / f"{ACTIVITY}.yaml").write_text(text, encoding="utf-8")
    if broken:
        (content / "broken-deck.yaml").write_text(
            text.replace(f"id: {ACTIVITY}", "id: broken-deck", 1).replace("count: 6", "count: six", 1)
            .replace("title: Growing discard deck", "title: " + "A very long title that goes on " * 4, 1),
            encoding="utf-8")
    return content


def test_build_all_exits_2_when_some_content_is_invalid(runner, tmp_path):
    content = small_library(tmp_path)
    result = runner.invoke(main, ["build", "--all", "-q", "--content", str(content), "--out", str(tmp_path / "out")])
    assert_clean_exit(result, 2)
    assert "broken-deck.yaml:" in stderr_of(result)
    assert (tmp_path / "out" / ACTIVITY / f"{ACTIVITY}-cards.pdf").is_file()  # the valid one was built


def test_an_unknown_id_gets_a_did_you_mean_in_every_command(runner, tmp_path):
    for command in (["build"], ["check"], ["list"], ["serve"]):
        result = runner.invoke(main, [*command, "growing-dscard", "--content", str(CONTENT)])
        assert_clean_exit(result, 2)
        assert "did you mean 'growing-discard'?" in stderr_of(result), command


def test_check_and_list_take_several_ids_and_all_and_list_keeps_its_table(runner, tmp_path):
    content = small_library(tmp_path)
    both = runner.invoke(main, ["check", ACTIVITY, "broken-deck", "--content", str(content)])
    assert_clean_exit(both, 2)
    assert f"{ACTIVITY}: ok" in both.output and "broken-deck.yaml:" in stderr_of(both)
    quiet = runner.invoke(main, ["check", ACTIVITY, "-q", "--content", str(content)])
    assert_clean_exit(quiet, 0)
    assert quiet.output == ""
    assert_clean_exit(runner.invoke(main, ["check", "--all", "--content", str(content)]), 2)

    table = runner.invoke(main, ["list", "--all", "--content", str(content)])
    assert_clean_exit(table, 0)
    lines = table.output.splitlines()
    assert len(lines) == 3
    starts = [lines[0].index(column) for column in ("title", "players", "minutes", "editions")]
    for line in lines[1:]:  # every row's cells start under their headings: nothing pushed the columns apart
        assert all(line[start - 2:start] == "  " or not line[start:].strip() for start in starts), line
    assert any(line.startswith("broken-deck") and "kitgen check shows why" in line for line in lines)
    one = runner.invoke(main, ["list", ACTIVITY, "--content", str(content)])
    assert [line.split()[0] for line in one.output.splitlines()] == ["id", ACTIVITY]


def test_schema_dash_writes_to_stdout_and_no_file(runner, tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["schema", "-o", "-"])
    assert_clean_exit(result, 0)
    assert json.loads(result.output)["title"] == "kitgen activity"
    assert list(tmp_path.iterdir()) == []


def test_new_folder_starts_a_folder_activity_with_the_schema_where_its_modeline_points(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["new", "my-game", "--folder"])
    assert_clean_exit(result, 0)
    activity = tmp_path / "content" / "my-game" / "activity.yaml"
    modeline = activity.read_text(encoding="utf-8").splitlines()[0]
    schema = (activity.parent / modeline.split("$schema=")[1]).resolve()
    assert schema == (tmp_path / "schema" / "activity.schema.json").resolve() and schema.is_file()
    assert not (tmp_path / "content" / "my-game.yaml").exists()
    built = runner.invoke(main, ["build", "my-game", "--out", str(tmp_path / "out")])
    assert_clean_exit(built, 0)
    again = runner.invoke(main, ["new", "my-game"])
    assert_clean_exit(again, 2)
    assert "content/my-game already exists" in stderr_of(again)


def test_docs_prints_the_path_of_the_authoring_guide(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("KITGEN_CACHE", str(tmp_path / "cache"))
    result = runner.invoke(main, ["docs"])
    assert_clean_exit(result, 0)
    page, guide = (Path(line) for line in result.output.splitlines())
    assert guide.name == "authoring.md" and "card_size" in guide.read_text(encoding="utf-8")
    assert page.suffix == ".html" and page.is_relative_to(tmp_path / "cache") and "card_size" in page.read_text()


def test_completion_offers_activity_ids_editions_and_printer_names(tmp_path):
    import json

    (tmp_path / "printers.json").write_text(json.dumps({"room12": {"back_offset_mm": [1, 0]}}))
    env = {**os.environ, "KITGEN_CONFIG": str(tmp_path / "printers.json"), "_KITGEN_COMPLETE": "bash_complete"}

    def complete(words: str) -> list[str]:
        parts = words.split(" ")
        result = subprocess.run([sys.executable, "-c", "from kitgen.cli import main; main(prog_name='kitgen')"],
                                capture_output=True, text=True,
                                env={**env, "COMP_WORDS": f"kitgen {words}", "COMP_CWORD": str(len(parts))},
                                cwd=REPO)
        return [line.split(",", 1)[1] for line in result.stdout.splitlines() if "," in line]

    assert complete("build grow") == ["growing-discard"]
    assert complete("check tr") == ["trash"]
    assert complete("build trash --lang ") == ["en", "ro"]
    assert complete("build growing-discard --printer ro") == ["room12"]


# --------------------------------------------------------------------------- several ids, --all, -q and -v everywhere


def two_kit_library(tmp_path: Path) -> Path:
    """growing-discard and a copy of it named second-deck: two valid kits."""
    content = small_library(tmp_path, broken=False)
    text = (content / f"{ACTIVITY}.yaml").read_text(encoding="utf-8")
    (content / "second-deck.yaml").write_text(text.replace(f"id: {ACTIVITY}", "id: second-deck", 1), encoding="utf-8")
    return content


def test_preview_takes_several_ids_and_all_with_quiet_and_verbose(runner, tmp_path):
    content = two_kit_library(tmp_path)
    out = tmp_path / "out"
    common = ["--dpi", "20", "--content", str(content), "--out", str(out)]
    assert_clean_exit(runner.invoke(main, ["preview", *common]), 2)  # neither ids nor --all
    assert_clean_exit(runner.invoke(main, ["preview", ACTIVITY, "--all", *common]), 2)
    both = runner.invoke(main, ["preview", ACTIVITY, "second-deck", *common])
    assert_clean_exit(both, 0)
    for activity_id in (ACTIVITY, "second-deck"):
        pictures = sorted((out / activity_id / "preview").glob("*.png"))
        assert pictures, activity_id
        assert f"previewing {out / activity_id} (built now)" in both.output
        assert f"wrote {len(pictures)} pictures in {out / activity_id / 'preview'}" in both.output
    assert not any(line.endswith(".png") for line in both.output.splitlines()), "one line per kit, not per page"
    verbose = runner.invoke(main, ["preview", "--all", "-v", *common])
    assert_clean_exit(verbose, 0)
    listed = {Path(line.removeprefix("wrote ")) for line in verbose.output.splitlines() if line.endswith(".png")}
    assert listed == set(out.rglob("*.png"))
    quiet = runner.invoke(main, ["preview", "--all", "-q", *common])
    assert_clean_exit(quiet, 0)
    assert quiet.output == ""


def test_verbose_build_all_lists_every_file_written_and_check_and_list_say_more(runner, tmp_path):
    content = two_kit_library(tmp_path)
    out = tmp_path / "out"
    common = ["--content", str(content), "--out", str(out)]
    verbose = runner.invoke(main, ["build", "--all", "-v", *common])
    assert_clean_exit(verbose, 0)
    wrote = {Path(m["path"]) for m in map(WROTE.match, verbose.output.splitlines()) if m}
    assert wrote == set(out.glob("*/*.pdf")) and len(wrote) == 8
    plain = runner.invoke(main, ["build", "--all", "--force", *common])
    assert not any(map(WROTE.match, plain.output.splitlines()))
    assert_clean_exit(runner.invoke(main, ["build", ACTIVITY, "-q", "-v", *common]), 2)  # one or the other

    check = runner.invoke(main, ["check", "--all", "-v", *common[:2]])
    assert_clean_exit(check, 0)
    assert f"{ACTIVITY}: ok ({content / (ACTIVITY + '.yaml')}; edition en; 40 cards in 3 decks)" in check.output

    table = runner.invoke(main, ["list", "-v", *common[:2]]).output.splitlines()
    assert table[0].split() == ["id", "title", "players", "minutes", "editions", "file"]
    assert table[1].endswith(str(content / f"{ACTIVITY}.yaml"))
    assert runner.invoke(main, ["list", "-q", *common[:2]]).output.split() == [ACTIVITY, "second-deck"]


def test_verbose_shows_every_quality_note_where_the_default_shows_a_count(tmp_path):
    from types import SimpleNamespace

    from kitgen.app.report import report, shown_notes
    from kitgen.core.notes import Note, NoteKind

    notes = [Note(NoteKind.SHRUNK, "caption shrunk to 7 pt", f"card {n}") for n in range(30)]
    kit = SimpleNamespace(folder=tmp_path / "kit", quality=notes)
    (tmp_path / "kit").mkdir()
    runner = CliRunner()

    def shown(verbosity: int) -> list[str]:
        import click

        @click.command()
        def command() -> None:
            for line in report([kit], show=shown_notes(verbosity)):
                click.echo(line)

        return runner.invoke(command).output.splitlines()

    assert len(shown(0)) == 1 and "30 notes" in shown(0)[0]
    assert [line for line in shown(1) if line.startswith("  - ")] == [f"  - kit: {note}" for note in notes]
    assert len(shown(-1)) == 1


# --------------------------------------------------------------------------- the progress bar of build --all


class RecordingBar:
    """Stands in for click's progress bar: what it was told."""

    def __init__(self, length, **kwargs):
        self.length, self.steps, self.items = length, 0, []
        self.show = kwargs.get("item_show_func")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def update(self, steps, current_item=None):
        self.steps += steps
        if current_item is not None and self.show:
            self.items.append(self.show(current_item))


def test_the_progress_bar_names_the_kit_being_built_and_weighs_kits_by_their_size(runner, tmp_path, monkeypatch):
    import click

    import kitgen.cli.building
    from kitgen.app.batch import kit_sizes
    from kitgen.load.library import Library
    from kitgen.plan.options import BuildOptions

    content = two_kit_library(tmp_path)
    text = (content / f"{ACTIVITY}.yaml").read_text(encoding="utf-8")
    (content / "tiny-deck.yaml").write_text(text.replace(f"id: {ACTIVITY}", "id: tiny-deck", 1)
                                            .replace("count: 12", "count: 1").replace("count: 6", "count: 1"),
                                            encoding="utf-8")
    out = tmp_path / "out"
    library, options = Library.open(content), BuildOptions(out_dir=out)
    before = kit_sizes(library, options)  # never built: from the cards in the content
    assert before[ACTIVITY] == before["second-deck"] > before["tiny-deck"] >= 1

    bars: list[RecordingBar] = []
    monkeypatch.setattr(kitgen.cli.building, "progress_shown", lambda quiet: True)
    monkeypatch.setattr(click, "progressbar", lambda *items, length, **kwargs: bars.append(RecordingBar(length, **kwargs))
                        or bars[-1])
    common = ["--content", str(content), "--out", str(out), "--jobs", "1"]
    assert_clean_exit(runner.invoke(main, ["build", "--all", *common]), 0)
    assert bars[0].length == sum(before.values()) and bars[0].steps == bars[0].length
    assert [item for item in bars[0].items if item] == [f"building {ACTIVITY}", "building second-deck",
                                                        "building tiny-deck"]
    after = kit_sizes(library, options)  # built: the pages of the last build
    assert after[ACTIVITY] == sum(len(pypdf.PdfReader(pdf).pages) for pdf in (out / ACTIVITY).glob("*.pdf"))

    (content / "tiny-deck.yaml").write_text((content / "tiny-deck.yaml").read_text(encoding="utf-8")
                                            .replace("title: Growing discard deck", "title: Tiny deck", 1))
    assert_clean_exit(runner.invoke(main, ["build", "--all", *common]), 0)
    assert bars[1].length == after["tiny-deck"], "kits that are up to date leave the estimate"
