"""The docs stay true: every repository path README.md and docs/*.md name (in backticks or as a link) exists;
every `kitgen` command of the authoring guide's code blocks runs in a library as the guide shows it (exit
status and output); every YAML example passes the schema; the guide's cards per sheet, largest cards,
spreadsheet headings and exit codes are the tool's."""
from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
GENERATED = ("output/", "kitgen/_library/")  # made by a build or by packaging, not kept in the repository
EXAMPLES = {  # files the authoring guide has the reader make (kitgen new, an edition, a pictures folder)
    "content/my-game.yaml", "content/my-game/", "content/animal-sort/", "content/images/",
    "content/growing-discard.ro.yaml",
}
PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*/?")
SPANS = re.compile(r"`([^`\n]+)`|\]\(([^)\s#]+)(?:#[^)]*)?\)")


def named_paths(doc: Path) -> list[str]:
    """The backticked spans and link targets of `doc` that are paths: a folder and a name, nothing to fill in."""
    found = []
    for code, link in SPANS.findall(doc.read_text(encoding="utf-8")):
        text = (code or link).strip()
        if "://" in text or text.startswith(GENERATED) or not PATH.fullmatch(text) or "/" not in text.rstrip("/"):
            continue
        found.append(text)
    return found


def exists(doc: Path, path: str) -> bool:
    """Named from the repository's top, the document's folder, or inside the package (`render/markup.py`)."""
    return any((base / path).exists() for base in (REPO, doc.parent, REPO / "kitgen"))


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(REPO)) for d in DOCS])
def test_every_path_the_docs_name_exists(doc: Path):
    paths = named_paths(doc)
    missing = [path for path in paths if path not in EXAMPLES and not exists(doc, path)]
    assert not missing, f"{doc.relative_to(REPO)} names paths that do not exist: {missing}"


def test_the_path_finder_sees_links_and_backticks(tmp_path: Path):
    doc = tmp_path / "x.md"
    doc.write_text("see [the guide](docs/authoring.md#top) and `kitgen/render/card_form.py`, not `pip install -e .`"
                   " nor `output/growing-discard/` nor `kitgen build`\n")
    assert named_paths(doc) == ["docs/authoring.md", "kitgen/render/card_form.py"]
    assert not exists(doc, "kitgen/render/card_form.py") and exists(doc, "docs/authoring.md")


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) < 150


# --------------------------------------------------------------------------- the guide's commands and examples

GUIDE = REPO / "docs" / "authoring.md"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.M | re.S)
# commands of the guide's code blocks that this test does not run, and why
SKIPPED = {
    "kitgen build my-game --watch": "rebuilds after every save until Ctrl-C (tests/test_watch.py drives it)",
}
NOT_KITGEN = "pybabel"  # section 6.3: works on kitgen's own source, not on a library
# what the guide says it did to the file before a command, as (old, new) edits of the library copy
SETUPS = {
    "kitgen check growing-discard": (
        "after changing growing-discard's `count: 12` to `count: 0` and misspelling `examples`",
        [("count: 12", "count: 0"), ("  examples:", "  exmaples:")]),
}


def code_blocks(text: str) -> list[tuple[int, str, str]]:
    """(line, language, dedented body) of every fenced code block of the guide."""
    import textwrap

    return [(text.count("\n", 0, m.start()) + 1, m[2], textwrap.dedent(m[3])) for m in FENCE.finditer(text)]


@dataclass
class Shown:
    line: int
    command: str
    output: list[str] = field(default_factory=list)
    status: int | None = None  # given by a `$ echo $?` after it


def shown_commands(text: str) -> list[Shown]:
    """Every `$ ...` line of the guide's console blocks, with the output and exit status shown after it."""
    import shlex

    shown: list[Shown] = []
    for line, language, body in code_blocks(text):
        if language != "console":
            continue
        block: list[Shown] = []
        lines = body.splitlines()
        for index, row in enumerate(lines):
            if row.startswith("$ echo $?"):
                block[-1].status = int(lines[index + 1])
            elif row.startswith("$ "):
                block.append(Shown(line + 1 + index, " ".join(shlex.split(row[2:], comments=True))))
            elif block and not (index and lines[index - 1].startswith("$ echo $?")):
                block[-1].output.append(row)
        shown.extend(block)
    return shown


def words(line: str) -> str:
    return " ".join(line.split())


@pytest.fixture
def guide_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A library of the guide's activities (growing-discard, trash), and the spreadsheet `kitgen new --from` reads."""
    import shutil

    (tmp_path / "content").mkdir()
    shutil.copyfile(REPO / "content" / "growing-discard.yaml", tmp_path / "content" / "growing-discard.yaml")
    shutil.copytree(REPO / "content" / "trash", tmp_path / "content" / "trash")
    (tmp_path / "animals.csv").write_text("name,picture,habitat\nFox,fox,land\nSeal,seal,water and ice\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KITGEN_CONTENT", raising=False)
    monkeypatch.setenv("KITGEN_CONFIG", str(tmp_path / "printers.json"))
    return tmp_path


def test_every_kitgen_command_of_the_guide_runs_as_shown(guide_library: Path):
    """In the order the guide gives them, in one library: the exit status the guide shows (0 unless a
    `$ echo $?` says otherwise), and every output line it shows in full (a line with … or ... is cut short)."""
    from click.testing import CliRunner

    from kitgen.cli import main

    text = GUIDE.read_text(encoding="utf-8")
    shown = shown_commands(text)
    assert len(shown) >= 12
    ran = []
    for step in shown:
        if step.command.startswith(NOT_KITGEN) or step.command in SKIPPED:
            continue
        assert step.command.startswith("kitgen "), f"docs/authoring.md:{step.line}: {step.command}"
        setup = SETUPS.get(step.command)
        activity = guide_library / "content" / "growing-discard.yaml"
        before = activity.read_text(encoding="utf-8")
        if setup:
            sentence, edits = setup
            assert sentence in text, f"the guide no longer says {sentence!r}: update SETUPS"
            changed = before
            for old, new in edits:
                changed = changed.replace(old, new, 1)
            activity.write_text(changed, encoding="utf-8")
        try:
            result = CliRunner().invoke(main, step.command.split()[1:])
        finally:
            activity.write_text(before, encoding="utf-8")
        where = f"docs/authoring.md:{step.line}: {step.command}"
        assert result.exit_code == (step.status or 0), f"{where}: exit {result.exit_code}\n{result.output}"
        got = {words(line) for line in result.output.splitlines()}
        for line in step.output:
            if line.strip() and "…" not in line and "..." not in line:
                assert words(line) in got, f"{where}: the guide shows {line!r}, the command printed:\n{result.output}"
        ran.append(step.command)
    assert "kitgen check growing-discard" in ran and "kitgen schema" in ran and "kitgen build my-game" in ran


def test_the_commands_are_read_from_the_console_blocks():
    text = ("```console\n$ kitgen check x   # a comment\nx: ok\n$ echo $?\n2\n```\n\n"
            "   ```console\n   $ kitgen list\n   id  title\n   ```\n")
    assert shown_commands(text) == [Shown(2, "kitgen check x", ["x: ok"], 2), Shown(9, "kitgen list", ["id  title"])]


# a minimal activity a fragment of the guide is put into, at the place its keys belong
BASE = {"id": "example", "title": "Example", "purpose": "To check an example.", "category": "Test", "players": 2,
        "minutes": 10, "rules": {"prepare": "Shuffle the cards.", "play": "Take turns."}}
DECK = {"id": "deck", "name": "Deck", "back": {"title": "Deck"}}
# yaml blocks of the guide that are not checked against the schema, by a line of their own, and why
UNCHECKED = {
    "title: Trash": "an edition overlay leaves out required keys on purpose (section 6.1)",
    "  - name: Ordinary 52-card deck": "the deck of an edition overlay (section 6.1), for the same reason",
}


def fragment_activity(data: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """The fragment inside BASE where its keys belong: the top level, a deck, a card, a record sheet, the host key
    (a list: cards, walkthroughs or paragraphs of play)."""
    def fields(model: str) -> set[str]:
        return set((schema if model == "Activity" else schema["$defs"][model])["properties"])

    if isinstance(data, list):
        if all(isinstance(item, str) for item in data):
            return {**BASE, "rules": {**BASE["rules"], "play": data}}
        if all("steps" in item for item in data):
            return {**BASE, "host_key": {"walkthroughs": data}}
        return {**BASE, "decks": [{**DECK, "cards": data}]}
    keys = set(data)
    if keys <= fields("Activity"):
        return {**BASE, **data}
    if keys <= fields("Deck"):
        cards = {} if "generate" in data else {"cards": [{"id": "a", "count": 1}]}
        return {**BASE, "decks": [{**DECK, **cards, **data}]}
    if keys <= fields("CardKind"):
        return {**BASE, "decks": [{**DECK, "cards": [{"count": 1, **data}]}]}
    if keys <= fields("RecordSheet"):
        return {**BASE, "record_sheets": [{"id": "sheet", "title": "Sheet", "rows": 4, **data}]}
    if keys <= fields("HostKey"):
        return {**BASE, "host_key": data}
    raise AssertionError(f"no place for a fragment with the keys {sorted(keys)}")


def test_every_yaml_example_of_the_guide_is_valid():
    """Each yaml block, put into a minimal activity where its keys belong, passes the JSON Schema (the
    content checks need the whole activity: the commands above run `kitgen check` on the activities made)."""
    import jsonschema
    import yaml

    from kitgen.app.schema import activity_schema

    schema = activity_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    checked, unchecked = 0, []
    for line, language, body in code_blocks(GUIDE.read_text(encoding="utf-8")):
        if language != "yaml":
            continue
        data = yaml.safe_load(body)
        if data is None:  # the schema line alone (section 7)
            continue
        skipped = [mark for mark in UNCHECKED if mark in body.splitlines()]
        if skipped:
            unchecked.extend(skipped)
            continue
        errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(fragment_activity(data, schema))]
        assert not errors, f"docs/authoring.md:{line}: {errors}"
        checked += 1
    assert checked >= 25 and sorted(unchecked) == sorted(UNCHECKED)


def test_a_broken_yaml_example_is_found():
    import jsonschema

    from kitgen.app.schema import activity_schema

    schema = activity_schema()
    broken = fragment_activity({"back": {"title": "Supply", "pattern": "spots"}}, schema)
    assert not jsonschema.validators.validator_for(schema)(schema).is_valid(broken)


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return text[start:end if end > 0 else None]


def test_the_cards_per_sheet_the_guide_gives_are_those_a_build_lays_out():
    from kitgen.core.units import parse_card_size, parse_paper
    from kitgen.plan.imposition import impose

    table = section(GUIDE.read_text(encoding="utf-8"), "### Paper")
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \((\d+) × (\d+)\) \| (\d+) \((\d+) × (\d+)\) \|$", table, re.M)
    assert {row[0] for row in rows} == {"poker", "bridge", "mini", "tarot"}
    for card, *numbers in rows:
        for paper, (total, columns, rows_) in (("a4", numbers[:3]), ("letter", numbers[3:])):
            grid = impose(parse_paper(paper), parse_card_size(card))
            assert (grid.per_sheet, grid.columns, grid.rows) == (int(total), int(columns), int(rows_)), (card, paper)


def test_the_largest_cards_the_guide_gives_fit_and_no_larger_one_does():
    from kitgen.core.errors import PlanError
    from kitgen.core.units import parse_card_size, parse_paper
    from kitgen.plan.imposition import impose

    sentence = words(section(GUIDE.read_text(encoding="utf-8"), "### Paper").split("The largest card that fits is")[1])
    sizes = re.findall(r"([\d.]+) × ([\d.]+) mm on (A4|Letter)", sentence.split(";")[0])
    assert len(sizes) == 4

    def fits(paper: str, width: float, height: float) -> bool:
        try:
            impose(parse_paper(paper.lower()), parse_card_size(f"{width:g}x{height:g}mm"))
        except PlanError:
            return False
        return True

    for width, height, paper in sizes:
        w, h = float(width), float(height)
        assert fits(paper, w, h) and not fits(paper, w + 0.1, h) and not fits(paper, w, h + 0.1), (paper, w, h)


def test_the_spreadsheet_headings_the_guide_lists_are_every_card_field():
    from kitgen.load.spreadsheets import card_fields

    text = words(GUIDE.read_text(encoding="utf-8"))
    listed = re.search(r"a heading that is a card field \(([^)]*)\) fills that field", text)
    assert listed and re.findall(r"`(\w+)`", listed[1]) == card_fields()


def test_the_exit_codes_the_guide_gives(guide_library: Path):
    """Section 9: a leak of host-key text is exit 2 (check finds it too); `build --all` with an invalid activity
    builds the others and ends with 2; a template problem is exit 1."""
    from click.testing import CliRunner

    from kitgen.cli import main

    table = section(GUIDE.read_text(encoding="utf-8"), "## 9. Exit codes")
    status = dict(re.findall(r"^\| (\d+) \| (.*)$", table, re.M))
    assert "host-key text in a player file" in status["2"] and "ends with 2 when any activity" in status["2"]
    assert "a template problem" in status["1"] and "Ctrl-C" in status["130"]

    runner = CliRunner()
    activity = guide_library / "content" / "growing-discard.yaml"
    good = activity.read_text(encoding="utf-8")
    secret = "    - A bought card must go onto the discard pile, never straight into the hand.\n"
    assert secret.strip() in good
    activity.write_text(good.replace("  play:\n", "  play:\n" + secret, 1), encoding="utf-8")
    for command in ("build", "check"):
        leaked = runner.invoke(main, [command, "growing-discard"])
        assert leaked.exit_code == 2 and "host-key text would be printed" in leaked.output, leaked.output

    activity.write_text(good.replace("count: 6", "count: six", 1), encoding="utf-8")
    shutil.rmtree(guide_library / "content" / "trash")
    (guide_library / "content" / "small.yaml").write_text(
        "id: small\ntitle: Small\npurpose: To build.\ncategory: Test\nplayers: 2\nminutes: 10\n"
        "rules: {prepare: Shuffle the cards., play: Take turns.}\n"
        "decks: [{id: main, name: Main, back: {title: Main}, cards: [{id: a, count: 1}]}]\n")
    every = runner.invoke(main, ["build", "--all", "-q", "--jobs", "1"])
    assert every.exit_code == 2 and "expected a positive integer, got 'six'" in every.output, every.output
    assert (guide_library / "output" / "small" / "small-cards.pdf").is_file()

    activity.write_text(good, encoding="utf-8")
    (guide_library / "templates").mkdir()
    face = REPO / "templates" / "card-face.xml.j2"
    (guide_library / "templates" / "card-face.xml.j2").write_text(face.read_text(encoding="utf-8") + "{% if %}\n")
    broken = runner.invoke(main, ["build", "growing-discard"])
    assert broken.exit_code == 1 and "template error" in broken.output, broken.output
