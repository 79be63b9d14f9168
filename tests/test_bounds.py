"""Bounded work: whatever a content file or an activity's own template says, kitgen's work and memory stay
bounded, and a limit that is reached is a located error (exit 2), found before the work is done.

Attacks run in a fresh process with a wall-clock timeout and an address-space limit, so that the code
before these bounds fails the test instead of hanging it or taking the machine's memory.
"""
from __future__ import annotations

import os
import re
import pickle
import resource
import subprocess
from pathlib import Path

import pytest
import yaml
import forked
from conftest import allocated, folder_activity, growing_data, lines_run, write_activity

REPO = Path(__file__).resolve().parents[1]
BROKEN = Path(__file__).resolve().parent / "broken"
ACTIVITY = "growing-discard"
SHOWN = os.path.join("content", ACTIVITY + ".yaml")
MEMORY = 1_500_000_000  # address space of an attacked process (the attacks asked for 1–2 GB and more)
TIMEOUT = float(os.environ.get("KITGEN_TEST_TIMEOUT", "120"))  # a hang guard, many times a run's time: not a bound


# --------------------------------------------------------------------------- helpers


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def kitgen(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`kitgen ARGS` in a fresh process in `cwd`, with the run's cache and capped memory. A hang fails the test."""
    environ = {**os.environ, **(env or {})}  # the run's shared cache: templates compiled once, an attack's text is never in it
    environ.pop("KITGEN_CONTENT", None)
    try:
        return forked.run(list(args), cwd=cwd, env=environ, timeout=TIMEOUT, memory=MEMORY)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kitgen {' '.join(args)} still running after {TIMEOUT} s")


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the first line of `path` that contains `needle`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def value_line(path: Path, *loc: str | int) -> int:
    """The 1-based line where the value at `loc` starts, read with PyYAML's own positions."""
    node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    for part in loc:
        node = node.value[part] if isinstance(part, int) else next(v for k, v in node.value if k.value == part)
    return node.start_mark.line + 1


def assert_located(result: subprocess.CompletedProcess, prefix: str, *words: str, code: int = 2) -> None:
    """Exit `code`, no traceback, the first error line starts with `prefix` and names `words`.

    The error names the budget or limit that stopped the work: without it the run would hang (the hang guard
    fails it) or run out of its capped memory (a traceback)."""
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == code, f"exit {result.returncode}\n{result.stdout[-1000:]}\n{result.stderr[-1000:]}"
    first = result.stderr.splitlines()[0]
    assert first.startswith(prefix), first
    for word in words:
        assert word in first, first


# --------------------------------------------------------------------------- 1. placeholders under a budget

PLACEHOLDER_ATTACKS = {
    "nested-loops": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "string-times": "{{ 'x' * 300000000 }}",
    "list-times": "{{ ([1] * 300000000)|length }}",
    "lipsum": "{{ lipsum(100000) }}",
    "doubling": "{% set ns = namespace(s='xy') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
                "{{ ns.s|length }}",
    "doubling-plus": "{% set ns = namespace(s='xy') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}"
                     "{% endfor %}{{ ns.s|length }}",
    "extend-self": "{% set l = [1, 2] %}{% for i in range(40) %}{% set _ = l.extend(l) %}{% endfor %}{{ l|length }}",
    "center": "{{ 'x'|center(300000000) }}",
    "ljust": "{{ 'x'.ljust(300000000) }}",
    "replace": "{% set s = 'x' * 10000 %}{{ s.replace('', s)|length }}",
    "join": "{% set s = 'x' * 10000 %}{{ s.join(s)|length }}",
    "format-width": "{{ '%0300000000d' % 1 }}",
    "str-format-width": "{{ '{:>300000000}'.format(1) }}",
    "power": "{{ 7 ** 999999999 }}",
    "nested-lists": "{% set a = [0] * 1000 %}{% set b = [a] * 1000 %}{% set c = [b] * 1000 %}{{ c|string|length }}",
    "literal-lists": "{% set a = ['x' * 1000] * 1000 %}{% set ns = namespace(v=a) %}{% for i in range(30) %}"
                     "{% set ns.v = [ns.v, ns.v] %}{% endfor %}{{ ns.v|string|length }}",
    "recursive-loop": "{% for x in 'ab' recursive %}{{ loop('ab') }}{% endfor %}",
    "macro-tree": "{% macro m(n) %}{% if n %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}{% endmacro %}{{ m(60) }}",
    "batch-fill": "{{ ([1]|batch(300000000, 0)|list)|length }}",
}


@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("attack", list(PLACEHOLDER_ATTACKS), ids=list(PLACEHOLDER_ATTACKS))
def test_placeholder_runs_under_a_budget(attack: str, command: str, tmp_path: Path):
    """A card text whose placeholder would run for hours or take gigabytes: a located error naming the budget."""
    data = growing_data()
    data["decks"][0]["cards"][1]["caption"] = PLACEHOLDER_ATTACKS[attack]
    path = write_activity(tmp_path / "content", data)
    args = [command, ACTIVITY, "--content", "content"] + (["--out", "out"] if command == "build" else [])
    result = kitgen(tmp_path, *args)
    line = value_line(path, "decks", 0, "cards", 1, "caption")
    assert_located(result, f"{SHOWN}:{line}:", "decks[0].cards[1].caption:")
    assert not (tmp_path / "out").exists()


def test_the_placeholder_budget_is_shared_by_the_whole_activity(tmp_path: Path):
    """Many cards each just under one text's budget (100 × 30,000 steps) pass the activity's total (500,000):
    a bounded total, not hours."""
    data = growing_data()
    deck = data["decks"][0]
    deck["cards"] = [{"id": f"K{i}", "count": 1, "caption": "{% for i in range(30000) %}{% endfor %}ok" + str(i)}
                     for i in range(100)]
    data["decks"] = [deck]
    data["host_key"] = {}
    data["rules"] = {"prepare": "x", "play": "y"}  # (the rules print the data of cards this deck no longer has)
    data.pop("totals", None)
    write_activity(tmp_path / "content", data)
    result = kitgen(tmp_path, "check", ACTIVITY, "--content", "content")
    assert_located(result, f"{SHOWN}:", "decks[0].cards[", "budget")


def test_ordinary_placeholders_still_work():
    from kitgen.load.placeholders import expand

    assert expand("{{ coins }} coins", {"coins": 2}) == "2 coins"
    assert expand("{% for i in range(n) %}◆{% endfor %}", {"n": 3}) == "◆◆◆"
    assert expand("{{ name|upper ~ '!' }} {{ (a * 2) ** 2 }} {{ '%03d' % a }}", {"name": "x", "a": 3}) == "X! 36 003"
    assert expand("{{ '-' * 5 }}{{ [1, 2] * 2 }}", {}) == "-----[1, 2, 1, 2]"


# --------------------------------------------------------------------------- 1. an activity's own templates



TEMPLATE_ATTACKS = {
    "nested-loops": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "string-times": "{{ 'x' * 300000000 }}",
    "lipsum": "{{ lipsum(100000) }}",
    "captured-literal": "{% set x %}{% for i in range(99999) %}{% for j in range(99) %}" + "y" * 2000
                        + "{% endfor %}{% endfor %}{% endset %}{{ x|length }}",
}


@pytest.mark.parametrize("attack", list(TEMPLATE_ATTACKS), ids=list(TEMPLATE_ATTACKS))
def test_own_template_runs_under_a_budget(attack: str, tmp_path: Path):
    folder = folder_activity(tmp_path)
    template = folder / "templates" / "card-face.xml.j2"
    template.write_text(f"<card>\n<title>\n{TEMPLATE_ATTACKS[attack]}</title></card>\n")
    result = kitgen(tmp_path, "build", folder.name, "--content", "content", "--out", "out")
    where = os.path.join("content", folder.name, "templates", "card-face.xml.j2")
    if attack == "lipsum":  # not offered: an undefined name, a template error like any other (exit 1)
        assert_located(result, f"error: {where}:3: template error: 'lipsum' is undefined", code=1)
    else:
        assert_located(result, f"{where}:3: the template ran over its budget: ")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def test_a_template_that_extends_itself_is_located(tmp_path: Path):
    folder = folder_activity(tmp_path)
    (folder / "templates" / "card-face.xml.j2").write_text("<card/>\n{% extends 'card-face.xml.j2' %}\n")
    result = kitgen(tmp_path, "build", folder.name, "--content", "content", "--out", "out")
    assert_located(result, f"error: {os.path.join('content', folder.name, 'templates', 'card-face.xml.j2')}"
                                    ":2: template error: the template extends itself", code=1)


def test_a_card_template_that_writes_malformed_markup_is_an_error_and_writes_nothing(tmp_path: Path):
    """The card face's markup is parsed when the face is drawn (a face taken from the cache is not parsed
    again): a template whose output is not well-formed still stops the build with the template's name."""
    folder = folder_activity(tmp_path)
    (folder / "templates" / "card-face.xml.j2").write_text("<card><title>{{ card.id }}</card>\n")
    result = kitgen(tmp_path, "build", folder.name, "--content", "content", "--out", "out")
    assert_located(result, "error: template card-face.xml.j2 produced malformed XML (mismatched tag",
                   code=1)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def test_the_template_budget_does_not_trouble_the_library(tmp_path: Path):
    """Every kit of the library still builds, with the same bytes as before (no budget is near)."""
    from kitgen.app.batch import build_library
    from kitgen.load.library import Library
    from kitgen.plan.options import BuildOptions

    reports = build_library(Library(REPO / "content"), BuildOptions(out_dir=tmp_path / "out"), jobs=1)
    assert reports and all(not report.error for report in reports), [report.error for report in reports]


# --------------------------------------------------------------------------- 2. limits checked before the work


def _generated(data: dict) -> None:
    data["decks"][0]["cards"] = []
    data["decks"][0]["generate"] = {"product": {"a": list(range(1000)), "b": list(range(1000)),
                                                "c": list(range(1000))},
                                    "card": {"id": "{{ a }}-{{ b }}-{{ c }}"}}


def _mat(data: dict) -> None:
    data["boards"] = [{"id": "mat", "title": "Mat", "positions": {"columns": 10000, "rows": 10000,
                                                                  "width": "63mm", "height": "88mm"}}]


def _players(data: dict) -> None:
    data["players"] = 10000


def _hand(data: dict) -> None:
    data["host_key"]["examples"][0]["hand"] = ["C1"] * 50000


LIMITS = {  # what to change, the key whose value is reported (a block mapping or list starts on the next line)
    "generate": (_generated, "generate:", 1, "decks[0].generate: the product makes 1000 × 1000 × 1000 cards"),
    "mat": (_mat, "positions:", 1, "boards[0].positions: 10000 × 10000 places"),
    "players": (_players, "players:", 0, "players: expected at most 40 players per kit, got 10,000"),
    "hand": (_hand, "title: First purchase", 2, "host_key.examples[0].hand: expected at most 100 items"),
}


@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("limit", list(LIMITS), ids=list(LIMITS))
def test_a_size_from_the_content_is_bounded_before_the_work(limit: str, command: str, tmp_path: Path):
    change, key, below, message = LIMITS[limit]
    data = growing_data()
    change(data)
    path = write_activity(tmp_path / "content", data)
    args = [command, ACTIVITY, "--content", "content"] + (["--out", "out"] if command == "build" else [])
    result = kitgen(tmp_path, *args)
    assert_located(result, f"{SHOWN}:{line_of(path, key) + below}:", message, "at most")


def test_card_lookup_is_linear_in_the_hand():
    """Looking up every card of a large deck by id costs about one step per id, not one per card kind."""
    from kitgen.load.model import Activity

    data = growing_data()
    data["decks"] = [{"id": "big", "name": "Big", "back": {"title": "Big"},
                      "cards": [{"id": f"K{i}", "count": 1} for i in range(10000)]}]
    data["host_key"] = {}
    data.pop("totals", None)
    activity = Activity.model_validate(data)

    def look_up_all() -> None:
        for i in range(10000):
            assert activity.card(f"K{i}").id == f"K{i}"
        assert activity.card("nope") is None

    assert lines_run(look_up_all) <= 3 * 10001  # lines of kitgen's code run: a scan of the deck would be ~10⁸


def test_a_huge_content_file_is_not_read(tmp_path: Path):
    """A 1 GB file (sparse: no disk used) is refused by its size, without being read into memory."""
    from kitgen.core.errors import ContentError
    from kitgen.load import load_activity

    content = tmp_path / "content"
    content.mkdir()
    write_activity(content, growing_data())
    with open(content / "huge.yaml", "wb") as handle:
        handle.truncate(1 << 30)
    shown = os.path.join("content", "huge.yaml")
    result = kitgen(tmp_path, "check", "huge", "--content", "content")
    assert_located(result, f"{shown}:1:1: ", "1,073,741,824 bytes")
    with pytest.raises(ContentError, match="1,073,741,824 bytes"):
        with allocated() as peak:
            load_activity(content / "huge.yaml")
    assert peak.bytes < 5_000_000, f"{peak.bytes:,} bytes allocated to refuse the file"
    result = kitgen(tmp_path, "list", "--content", "content")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^huge +\(invalid", result.stdout, re.MULTILINE), result.stdout  # listed, its table whole


def test_the_size_check_holds_when_the_file_grows_while_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Reading stops at the limit even if the size the system reported was small (a file still being written)."""
    from kitgen.core.errors import ContentError
    from kitgen.load import yaml_source

    path = tmp_path / "grows.yaml"
    path.write_bytes(b"title: x\n" * 1000)
    monkeypatch.setattr(yaml_source, "MAX_FILE_BYTES", 100)
    with pytest.raises(ContentError, match="expected at most 100"):
        yaml_source._read_text(path)


# --------------------------------------------------------------------------- 3. --watch and symlinks


def _snapshot_counted(content: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
    """The files one scan of `content` finds and the number of folders it listed (stopped past 100)."""
    from kitgen.app import watch

    listed = []
    scandir = os.scandir

    def counted(path):
        listed.append(path)
        if len(listed) > 100:
            raise AssertionError(f"the scan listed more than 100 folders: {listed[-5:]}")
        return scandir(path)

    monkeypatch.setattr(watch.os, "scandir", counted)
    files = sorted(watch.snapshot([content]))
    monkeypatch.undo()
    return files, len(listed)


def test_watch_does_not_loop_through_symlinks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    content = tmp_path / "content"
    write_activity(content / "folder", growing_data(), "activity")
    (content / "loop1").symlink_to(".")
    (content / "loop2").symlink_to(".")
    (content / "folder" / "up").symlink_to("..")
    files, listed = _snapshot_counted(content, monkeypatch)
    assert listed == 2  # content/ and content/folder/, each once
    assert files == [str(content / "folder" / "activity.yaml")]


def test_watch_does_not_follow_symlinks_out_of_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    content = tmp_path / "content"
    write_activity(content, growing_data())
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "x.yaml").write_text("x: 1\n")
    (content / "usr").symlink_to("/usr")
    (content / "out").symlink_to(outside)
    inside = content / "shared"
    inside.mkdir()
    (inside / "t.xml.j2").write_text("<card/>")
    (content / "alias").symlink_to("shared")  # a link that stays inside is followed (its folder scanned once)
    files, listed = _snapshot_counted(content, monkeypatch)
    assert listed == 2  # content/ and shared/ once (through the link or not), never /usr or outside/
    activity = str(content / f"{ACTIVITY}.yaml")
    assert files in (sorted([activity, str(content / "alias" / "t.xml.j2")]), sorted([activity, str(inside / "t.xml.j2")]))


# --------------------------------------------------------------------------- 4. damaged cache entries


def _build_with_cache(tmp_path: Path, cache: Path) -> subprocess.CompletedProcess:
    content = tmp_path / "content"
    if not content.exists():
        write_activity(content, growing_data())
    result = kitgen(tmp_path, "build", ACTIVITY, "--content", "content", "--out", "out", "--force",
                       env={"KITGEN_CACHE": str(cache)})
    return result


@pytest.mark.parametrize("suffix", [".bytecode", ".pickle"])
def test_a_cache_entry_with_a_valid_header_and_a_truncated_body_is_ignored(suffix: str, tmp_path: Path):
    from jinja2.bccache import bc_magic

    cache = tmp_path / "cache"
    assert _build_with_cache(tmp_path, cache).returncode == 0
    entries = [p for p in cache.rglob(f"*{suffix}")]
    assert entries
    for entry in entries:
        data = entry.read_bytes()
        # a pickle cut in half; a template entry cut inside the pickled checksum that follows Jinja's header
        entry.write_bytes(data[: len(data) // 2] if suffix == ".pickle" else data[: len(bc_magic) + 3])
    result = _build_with_cache(tmp_path, cache)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "internal error" not in result.stderr


def test_truncated_bytecode_is_ignored_in_process():
    """The entry Jinja writes: its magic, a pickled checksum, then marshalled code; cut inside the checksum."""
    import jinja2.bccache

    from kitgen.render.markup import _SharedBytecode

    store = _SharedBytecode()
    bucket = jinja2.bccache.Bucket(jinja2.Environment(), "key", "checksum")
    store.store["key"] = jinja2.bccache.bc_magic + pickle.dumps("checksum", 2)[:5]
    store.load_bytecode(bucket)
    assert bucket.code is None


# --------------------------------------------------------------------------- 5. internal errors that become located


def test_a_5000_digit_integer_is_located(tmp_path: Path):
    data = growing_data()
    data["decks"][0]["cards"][0]["data"]["coins"] = 1
    path = write_activity(tmp_path / "content", data)
    text = path.read_text(encoding="utf-8").replace("coins: 1", "coins: " + "9" * 5000, 1)
    path.write_text(text, encoding="utf-8")
    result = kitgen(tmp_path, "check", ACTIVITY, "--content", "content")
    assert_located(result, f"{SHOWN}:{line_of(path, '9' * 50)}:", "digits")


def test_a_5000_digit_integer_as_a_key_is_located(tmp_path: Path):
    """(A key that long must be written as an explicit `? key` in YAML.)"""
    path = write_activity(tmp_path / "content", growing_data())
    path.write_text(path.read_text(encoding="utf-8") + "extra:\n  ? " + "9" * 5000 + "\n  : 1\n", encoding="utf-8")
    result = kitgen(tmp_path, "check", ACTIVITY, "--content", "content")
    assert_located(result, f"{SHOWN}:{line_of(path, '9' * 50)}:5: extra: a number of 5,000 digits, "
                                    "expected at most 4,300")


def test_no_home_and_no_passwd_entry_means_no_cache(monkeypatch: pytest.MonkeyPatch):
    import pwd

    from kitgen.core import cache

    def no_entry(uid: int):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    for name in ("KITGEN_CACHE", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert cache.cache_dir() is None
    assert cache.cache_file("templates", "x.bytecode") is None


def test_broken_corpus_holds_the_bounds_cases():
    names = {p.stem for p in BROKEN.glob("*.yaml")}
    assert {"huge-integer", "placeholder-loop", "generate-product"} <= names
