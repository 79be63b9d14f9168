"""Hardening, round three (issue 27): catalogs checked as they are read, a bad language code in one activity,
non-finite numbers kept out of the PDF, size limits for templates and kitgen.toml.

Each test writes a small library into a temporary folder, runs kitgen on it (in a process of its own where
memory or a crash is at stake) and reads what it printed and wrote.
"""
from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import pypdf
import pytest
from click.testing import CliRunner

import forked
from conftest import kitgen_env
from test_languages import BASE  # the same small sorting activity

from kitgen.cli import main
from kitgen.core.errors import ContentError
from kitgen.locale import MAX_CATALOG_BYTES, translations
from kitgen.locale.checks import MAX_PLURALS, string_problems, text_format

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
HEADER = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n\n'
SHEET_LABEL = "%(title)s · %(what)s · sheet %(n)d of %(total)d"


def sorting_library(tmp_path: Path, catalog: str | None = None, language: str = "ro") -> Path:
    """tmp_path/content/sorting/activity.yaml with a `language` edition, and `catalog` as locale/<language>.po."""
    folder = tmp_path / "content" / "sorting"
    folder.mkdir(parents=True)
    (folder / "activity.yaml").write_text(BASE, encoding="utf-8")
    (folder / f"activity.{language}.yaml").write_text(f"title: Sorting ({language})\n", encoding="utf-8")
    if catalog is not None:
        (tmp_path / "locale").mkdir()
        (tmp_path / "locale" / f"{language}.po").write_text(HEADER + catalog, encoding="utf-8")
    return tmp_path


def kitgen(folder: Path, *args: str, memory: int = 1_500_000_000) -> subprocess.CompletedProcess[str]:
    """`kitgen ARGS` in a process of its own (forked from one that has imported kitgen), in `folder`, its
    memory capped (a bug here once took 21 GB); the timeout is a hang guard, not a duration asserted."""
    return forked.run(list(args), cwd=folder, env=kitgen_env(folder), timeout=120, memory=memory)


def refused(result: subprocess.CompletedProcess[str], *expected: str) -> list[str]:
    """The error lines of a run that exited 2 without a traceback, each text of `expected` in one of them."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    for text in expected:
        assert any(text in line for line in lines), (text, result.stderr)
    return lines


def entry(msgid: str, msgstr: str, context: str | None = None) -> str:
    """One catalog entry (the header is 3 lines: an entry written first has its msgid on line 4)."""
    quoted = lambda text: text.replace("\\", "\\\\").replace('"', '\\"')  # noqa: E731
    return (f'msgctxt "{context}"\n' if context else "") + f'msgid "{quoted(msgid)}"\nmsgstr "{quoted(msgstr)}"\n\n'


# --------------------------------------------------------------------------- 1. catalogs checked on read


def test_a_placeholder_renamed_in_a_translation_is_located_not_an_internal_error(tmp_path: Path) -> None:
    folder = sorting_library(tmp_path, entry(SHEET_LABEL, "%(titlu)s · %(what)s · fila %(n)d din %(total)d"))
    for command in (["build", "sorting", "--lang", "ro", "--content", "content"],
                    ["check", "sorting", "--lang", "ro", "--content", "content"]):
        refused(kitgen(folder, *command),
                "locale/ro.po:5:1: the translation's placeholders are %(n)d, %(titlu)s, %(total)d, %(what)s, "
                "expected exactly those of the English text: %(n)d, %(title)s, %(total)d, %(what)s")
    assert not (folder / "output" / "sorting-ro").exists()


def test_a_placeholder_padded_to_a_gigabyte_is_refused_before_any_work(tmp_path: Path) -> None:
    # before the check this asked Python for a 500-million-digit number on every sheet label (21 GB seen)
    folder = sorting_library(tmp_path, entry(SHEET_LABEL, "%(title)s · %(what)s · fila %(n)0500000000d din "
                                                          "%(total)d"))
    refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content", memory=600_000_000),
            "locale/ro.po:5:1: placeholder %(n)0500000000d has a width, precision or flag, expected it plain")


@pytest.mark.parametrize("msgid, msgstr, expected", [
    ("Kit %(n)d", "Trusa %(n)s", "placeholders are %(n)s, expected exactly those of the English text: %(n)d"),
    ("Kit %(n)d", "Trusa", "placeholders are none, expected exactly those of the English text: %(n)d"),
    ("Kit %(n)d", "Trusa %(n)d %s", "placeholders are %(n)d, %s"),
    ("Kit %(n)d", "Trusa %(n).3d", "placeholder %(n).3d has a width, precision or flag"),
    ("Kit %(n)d", "Trusa %(n)-9d", "placeholder %(n)-9d has a width, precision or flag"),
    ("Kit %(n)d", "Trusa %(n)*d", "placeholder %(n)*d has a width, precision or flag"),
    ("Actual size (100%%), one-sided", "Mărime reală (100 %), o față", "a '%' that starts no placeholder"),
    ("faces", "fețe 100%%", "holds '%' where the English text has none"),
    ("Kit %(n)d", "Trusa\x01 %(n)d", "a control character"),
    ("cards", "cărți", "file-name word 'cărți' is not a plain word"),
    ("cards", "../x", "file-name word '../x' is not a plain word"),
    ("cards", "a" * 41, "at most 40"),
])
def test_each_kind_of_broken_translation_is_located(tmp_path: Path, msgid: str, msgstr: str, expected: str) -> None:
    context = "file name" if msgid == "cards" else None
    folder = sorting_library(tmp_path, entry(msgid, msgstr, context))
    line = 6 if context else 5
    refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content"),
            f"locale/ro.po:{line}:1: ", expected)


@pytest.mark.parametrize("msgid, msgstr", [
    ("Kit %(n)d", "Trusa %(n)d"),
    ("Kit %(n)d", "Trusa nr. %(n)d (a %(n)d-a)"),  # a placeholder twice is fine
    ("Actual size (100%%), one-sided", "Mărime reală (100 %%), pe o față"),
    ("Check with a ruler: this bar is 100 mm long at 100% / Actual size.", "Riglă: 100 % / Mărime reală."),
    ("faces", "fețe"),
])
def test_good_translations_pass(msgid: str, msgstr: str) -> None:
    assert list(string_problems((msgid,), msgstr, None)) == []


def test_a_plural_keeps_its_placeholders_in_every_form() -> None:
    english = ("%(num)d card", "%(num)d cards")
    assert list(string_problems(english, "%(num)d carte", None)) == []
    [problem] = string_problems(english, "o carte", None)
    assert "expected exactly those of the English text: %(num)d" in problem
    # an English singular without the number: the translation's forms may hold it (the plural's are wanted)
    assert list(string_problems(("one card", "%(num)d cards"), "%(num)d cărți", None)) == []


def test_text_format_reads_placeholders_as_python_does() -> None:
    found = text_format("%(a)s %%(b)s %c %(d)05.2f 100%")
    assert found.placeholders == {"%(a)s", "%c", "%(d)f"} and found.padded == ("%(d)05.2f",) and found.lone
    for text in ("%(a)s %(b)d", "%%", "%(a)s and %%"):
        assert not text_format(text).lone


def test_two_file_name_words_translated_alike_are_refused(tmp_path: Path) -> None:
    # kitgen's own Romanian catalog calls the cards "carti": a library's "carti" for the sheets made the sheets
    # PDF overwrite the cards PDF, exit 0
    folder = sorting_library(tmp_path, entry("sheets", "carti", "file name"))
    refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content"),
            "locale/ro.po:6:1: the file-name words for 'cards' and 'sheets' are both 'carti', expected a "
            "different word for each")
    # letters that differ in case only are one name on a case-insensitive disk
    (folder / "locale" / "ro.po").write_text(HEADER + entry("sheets", "CARTI", "file name"), encoding="utf-8")
    refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content"), "both 'CARTI'")


def test_markup_in_a_translation_prints_as_it_is_written(tmp_path: Path) -> None:
    marked = "Pregătire <i>&amp; <font size=\"60\">mare</font>"
    folder = sorting_library(tmp_path, entry("Prepare", marked) + entry("Player sheets", "Fișe <b>x</b>"))
    done = kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content")
    assert done.returncode == 0, done.stderr
    [sheets] = (folder / "output" / "sorting-ro").glob("*-fise.pdf")
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(sheets).pages)
    assert marked in text and "Fișe <b>x</b>" in text


def test_plural_forms_are_checked_before_the_catalog_is_parsed(tmp_path: Path) -> None:
    plural = 'msgid "%(num)d card"\nmsgid_plural "%(num)d cards"\nmsgstr[0] "%(num)d carte"\n'
    folder = sorting_library(tmp_path)
    (folder / "locale").mkdir()
    po = folder / "locale" / "ro.po"
    for rule, expected in [("nplurals=1000000000; plural=(n != 1);", "nplurals='1000000000', expected a number "
                                                                       f"from 1 to {MAX_PLURALS}"),
                           ("nplurals=2; plural=(n/0);", "plural='(n/0)' cannot be computed"),
                           ("nplurals=2; plural=(n+1);", "plural='(n+1)' gives form 1000001, expected forms 0 to 1"),
                           ("nplurals=2; plural=(n " + "+ n " * 400 + ");", "cannot be computed")]:
        po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n'
                      f'"Plural-Forms: {rule}\\n"\n\n{plural}', encoding="utf-8")
        refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content", memory=1_000_000_000),
                "locale/ro.po:3:1: Plural-Forms ", expected)


def test_a_catalog_too_big_is_refused_unread(tmp_path: Path) -> None:
    folder = sorting_library(tmp_path, entry("Prepare", "Pregătire") + "# " + "x" * (3 * MAX_CATALOG_BYTES) + "\n")
    size = (folder / "locale" / "ro.po").stat().st_size
    refused(kitgen(folder, "build", "sorting", "--lang", "ro", "--content", "content"),
            f"locale/ro.po:1:1: the catalog is {size:,} bytes, expected at most {MAX_CATALOG_BYTES:,}")


def test_every_problem_of_a_catalog_is_listed_at_once(tmp_path: Path) -> None:
    folder = sorting_library(tmp_path, entry("Kit %(n)d", "Trusa %(m)d") + entry("Player %(n)d", "Jucător %(n)5d")
                             + entry("mat", "x/y", "file name"))
    lines = refused(kitgen(folder, "check", "sorting", "--lang", "ro", "--content", "content"))
    located = [line for line in lines if line.startswith("locale/ro.po:")]
    assert [line.split(":")[1] for line in located] == ["5", "8", "12"], lines


def test_kitgens_own_catalogs_pass_their_check() -> None:
    for language in ("de", "es", "fr", "it", "ro"):
        translations(language)


def test_a_fuzzy_or_empty_entry_is_not_checked(tmp_path: Path) -> None:
    folder = sorting_library(tmp_path, '#, fuzzy\nmsgid "Kit %(n)d"\nmsgstr "Trusa %(m)d"\n\n'
                             + entry("Player %(n)d", ""))
    assert kitgen(folder, "check", "sorting", "--lang", "ro", "--content", "content").returncode == 0


def test_a_broken_catalog_fails_its_edition_in_build_all_and_the_others_build(tmp_path: Path) -> None:
    folder = sorting_library(tmp_path, entry("Kit %(n)d", "Trusa %(m)d"))
    result = kitgen(folder, "build", "--all", "--content", "content")
    refused(result, "locale/ro.po:5:1: the translation's placeholders are %(m)d")
    assert (folder / "output" / "sorting-en" / "manifest.json").is_file()
    assert not (folder / "output" / "sorting-ro").exists()
    assert "placeholders are %(m)d" in (folder / "output" / "index.html").read_text(encoding="utf-8")


def test_a_text_that_is_no_language_code_finds_no_catalog(tmp_path: Path) -> None:
    (tmp_path / "locale").mkdir()
    (tmp_path / "x.po").write_text(HEADER, encoding="utf-8")
    from kitgen.locale import catalog_files

    assert catalog_files("../x", (tmp_path / "locale",)) == []
    assert catalog_files("ro", (tmp_path / "locale",))[-1].name == "kitgen.po"


# --------------------------------------------------------------------------- 2. a bad language in build --all


def _two_activities(tmp_path: Path, language: str) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    for name in ("growing-discard", "animal-habitats"):
        (content / f"{name}.yaml").write_text((CONTENT / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = content / "growing-discard.yaml"
    text = path.read_text(encoding="utf-8")
    assert "\nlanguage: en\n" in text
    path.write_text(text.replace("\nlanguage: en\n", f"\nlanguage: {language}\n"), encoding="utf-8")
    (content / "growing-discard.ro.yaml").write_text("title: Pachetul care crește\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("language", ["../x", "e/n", "'ro.yaml'"])
def test_one_activity_with_a_bad_language_leaves_the_others_built(tmp_path: Path, language: str) -> None:
    # before: `internal error: ValueError: Invalid suffix`, nothing built, no index
    folder = _two_activities(tmp_path, language)
    result = kitgen(folder, "build", "--all", "--content", "content")
    shown = language.strip("'")
    refused(result, f"content/growing-discard.yaml:9:11: language: expected a two-letter language code such as "
                    f"'en' or 'ro', got '{shown}'")
    out = folder / "output"
    assert (out / "animal-habitats" / "manifest.json").is_file()
    assert (out / "growing-discard-ro" / "manifest.json").is_file()  # the edition whose code is right
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "Animal habitats sort" in page and "two-letter language code" in page
    assert not any(".." in p.name for p in out.rglob("*"))


def test_check_and_list_say_which_activity_has_the_bad_language(tmp_path: Path) -> None:
    folder = _two_activities(tmp_path, "../x")
    refused(kitgen(folder, "check", "--all", "--content", "content"), "content/growing-discard.yaml:9:11: language")
    listed = CliRunner().invoke(main, ["list", "--content", str(folder / "content")])
    assert listed.exit_code == 0 and "animal-habitats" in listed.output


# --------------------------------------------------------------------------- 3. no NaN or infinity in a PDF

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" {size}><g {group}><rect x="1" y="1" width="{width}" height="5" '
       'fill="#336699"/></g></svg>')
BROKEN_SVGS = {
    "size": SVG.format(size='width="NaN" height="10"', group="", width="5"),
    "scale": SVG.format(size='width="10" height="10"', group='transform="scale(NaN)"', width="5"),
    "translate": SVG.format(size='width="10" height="10"', group='transform="translate(1e400 0)"', width="5"),
    "width": SVG.format(size='width="10" height="10"', group="", width="inf"),
    "far": SVG.format(size='width="10" height="10"', group='transform="translate(1e25 0)"', width="5"),
    "matrix": SVG.format(size='width="10" height="10"', group='transform="matrix(1 0 0 1 NaN 0)"', width="5"),
    "stroke": ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect x="1" y="1" width="5" '
               'height="5" fill="none" stroke="#000" stroke-width="1e400"/></svg>'),
    "empty": ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5" '
              'fill="none"/><text x="1" y="5" fill="none">hi</text></svg>'),  # (text is drawn, unless unfilled)
}


def picture_library(tmp_path: Path, svgs: dict[str, str]) -> Path:
    folder = tmp_path / "content" / "sorting"
    folder.mkdir(parents=True)
    cards = "".join(f"      - {{id: {name}, count: 1, caption: {name}, image: {name}.svg}}\n" for name in svgs)
    (folder / "activity.yaml").write_text(BASE.replace("      - {id: a, count: 2, caption: One}\n", cards),
                                          encoding="utf-8")
    for name, text in svgs.items():
        (folder / f"{name}.svg").write_text(text, encoding="utf-8")
    return tmp_path


def test_svgs_with_non_finite_numbers_are_refused_located_and_no_pdf_is_written(tmp_path: Path) -> None:
    # before: a NaN size, scale or matrix wrote `nan` into the content stream (a corrupt PDF, exit 0), an
    # infinite width or a far translate was `internal error: ValueError: _fp_one failed`, a text-only SVG
    # printed an empty picture
    folder = picture_library(tmp_path, BROKEN_SVGS)
    lines = refused(kitgen(folder, "build", "sorting", "--content", "content"))
    located = {line.split("decks[0].cards[")[1].split("]")[0]: line for line in lines if "decks[0].cards[" in line}
    assert sorted(located) == [str(n) for n in range(len(BROKEN_SVGS))], lines
    for number, name in enumerate(BROKEN_SVGS):
        line = located[str(number)]
        assert line.startswith("content/sorting/activity.yaml:") and f"'{name}.svg' cannot be printed" in line
    assert "its size is nan" in located["0"] and "not a finite number" in located["1"]
    assert "not a finite number" in located["2"] and "not a finite number" in located["3"]
    assert "expected at most 1000 times its size" in located["4"] and "not a finite number" in located["5"]
    assert "not a finite number" in located["6"] and "nothing in it can be printed" in located["7"]
    assert not (folder / "output").exists()


def test_a_good_svg_still_prints(tmp_path: Path) -> None:
    good = SVG.format(size='width="10" height="10"', group='transform="translate(2 1) scale(0.5)"', width="5")
    folder = picture_library(tmp_path, {"good": good})
    assert kitgen(folder, "build", "sorting", "--content", "content").returncode == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e30])
def test_the_pdf_exporter_refuses_a_number_no_pdf_can_hold(bad: float) -> None:
    from kitgen.core.display import Document, Image, Page, Path as PathItem, Stroke, Text
    from kitgen.core.errors import BuildError
    from kitgen.export.pdf import fp_str, write_pdf
    from kitgen.fonts.registry import REGULAR

    assert fp_str(1.5, -2, 0.25) == "1.5 -2 .25"
    for items in ([PathItem((("m", 0.0, 0.0), ("l", bad, 1.0)), Stroke())],
                  [PathItem((("m", 0.0, 0.0), ("l", 1.0, 1.0)), Stroke(width=bad))],
                  [Text(bad, 10.0, "x", REGULAR, 10.0)]):
        with pytest.raises(BuildError, match="no PDF can hold"):
            write_pdf(Document("t", [Page(200.0, 200.0, items)]), keep=False)
    with pytest.raises(BuildError, match="no PDF can hold"):
        write_pdf(Document("t", [Page(bad, 200.0, [])]), keep=False)
    with pytest.raises(BuildError, match="no PDF can hold"):
        write_pdf(Document("t", [Page(200.0, 200.0, [Image(bad, 0.0, 10.0, 10.0, b"", "p")])]), keep=False)


@pytest.mark.parametrize("profile, expected", [
    ('{"room": {"back_offset_mm": [NaN, 0]}}', "NaN is not a number of mm"),
    ('{"room": {"back_offset_mm": [Infinity, 0]}}', "Infinity is not a number of mm"),
    ('{"room": {"back_offset_mm": [1e400, 0]}}', "two numbers of mm between -20 and 20, got [inf, 0]"),
    ('{"room": {"back_offset_mm": [1]}}', "printer 'room': back_offset_mm: expected [X, Y]"),
    ('{"room": {"back_offset_mm": [25, 0]}}', "between -20 and 20, got [25, 0]"),
    ('{"room": {"back_offset_mm": [true, 0]}}', "expected [X, Y]"),
    ('{"room": 5}', "printer 'room': expected {\"back_offset_mm\": [X, Y]}, got 5"),
    ('[1]', "expected printer profiles as"),
    ("[" * 100_000, "values nest too deep"),
])
def test_a_printer_profile_kitgen_cannot_use_names_the_file(tmp_path: Path, profile: str, expected: str) -> None:
    folder = sorting_library(tmp_path)
    (folder / "printers.json").write_text(profile, encoding="utf-8")  # kitgen_env points KITGEN_CONFIG here
    for command in (["build", "sorting", "--lang", "en", "--printer", "room", "--content", "content"],
                    ["printer", "list"]):
        refused(kitgen(folder, *command), f"{folder / 'printers.json'}: ", expected)
    assert not (folder / "output").exists()


# --------------------------------------------------------------------------- 4. templates and kitgen.toml


def test_a_template_too_big_is_refused_before_jinja_reads_it(tmp_path: Path) -> None:
    from kitgen.jinja.lookup import MAX_TEMPLATE_BYTES

    folder = sorting_library(tmp_path)
    templates = folder / "content" / "sorting" / "templates"
    templates.mkdir()
    face = (REPO / "templates" / "card-face.xml.j2").read_text(encoding="utf-8")
    (templates / "card-face.xml.j2").write_text(face + "{# " + "x" * MAX_TEMPLATE_BYTES + " #}", encoding="utf-8")
    size = (templates / "card-face.xml.j2").stat().st_size
    refused(kitgen(folder, "build", "sorting", "--lang", "en", "--content", "content", memory=800_000_000),
            f"content/sorting/templates/card-face.xml.j2: the template is {size:,} bytes, expected at most "
            f"{MAX_TEMPLATE_BYTES:,}")
    # in the library's templates a batch's warm-up skips it and each edition that uses it fails, located; the
    # index is written
    (templates / "card-face.xml.j2").unlink()
    (folder / "templates").mkdir()
    (folder / "templates" / "card-back.xml.j2").write_text("{# " + "x" * MAX_TEMPLATE_BYTES + " #}", encoding="utf-8")
    result = kitgen(folder, "build", "--all", "--content", "content")
    refused(result, "sorting (en edition): templates/card-back.xml.j2: the template is",
            "sorting (ro edition): templates/card-back.xml.j2: the template is")
    assert (folder / "output" / "index.html").is_file()


@pytest.mark.parametrize("settings, expected", [
    ("a = " + "[" * 40_000 + "]" * 40_000 + "\n", "kitgen.toml:1:1: values nest more than 4 deep"),
    ("a = {" + "b = {" * 10_000 + "}" * 10_001 + "\n", "kitgen.toml:1:1: values nest more than 4 deep"),
    ('paper = "a4"\n' + "x." * 40_000 + "y = 1\n", "kitgen.toml:2:1: dotted key 'x.x.x."),
    ("# " + "x" * 100_001 + "\n", "kitgen.toml:1:1: the settings file is 100,004 bytes, expected at most 100,000"),
])
def test_a_settings_file_too_deep_or_too_big_is_refused_cleanly(tmp_path: Path, settings: str, expected: str) -> None:
    # before: internal error: RecursionError, or minutes spent on 50,000 dotted keys (a hang guard here)
    folder = sorting_library(tmp_path)
    (folder / "kitgen.toml").write_text(settings, encoding="utf-8")
    refused(kitgen(folder, "build", "sorting", "--lang", "en", "--content", "content"), expected)


def test_plain_settings_with_brackets_in_strings_and_comments_still_load(tmp_path: Path) -> None:
    from kitgen.app.settings import load_settings

    (tmp_path / "content").mkdir()
    (tmp_path / "kitgen.toml").write_text('paper = "letter"  # [[[[[[ {{{{{{\nlanguages = ["en", "ro"]\n'
                                          'card_size = "[[[[[["\n', encoding="utf-8")
    from kitgen.core.errors import UsageError

    with pytest.raises(UsageError, match="card_size") as error:
        load_settings(tmp_path / "content")
    assert "nest" not in str(error.value)
    (tmp_path / "kitgen.toml").write_text('paper = "letter"  # [[[[[[\nlanguages = [\n  "en",\n  "ro",\n]\n',
                                          encoding="utf-8")
    assert load_settings(tmp_path / "content") == {"paper": "letter", "languages": ["en", "ro"]}


# --------------------------------------------------------------------------- 5. located, never internal


@pytest.mark.parametrize("code, expected", [
    ("{% for i in range(10**9) %}{% endfor %}", "template error: Range too big"),
    ("{{ 1 / 0 }}", "template error: division by zero"),
    ("{{ 'x' * 'y' }}", "template error: can't multiply sequence"),
])
def test_a_template_that_fails_as_it_runs_is_located(tmp_path: Path, code: str, expected: str) -> None:
    # before: internal error: OverflowError (exit 1)
    folder = sorting_library(tmp_path)
    templates = folder / "content" / "sorting" / "templates"
    templates.mkdir()
    face = (REPO / "templates" / "card-face.xml.j2").read_text(encoding="utf-8")
    (templates / "card-face.xml.j2").write_text(code + face, encoding="utf-8")
    refused(kitgen(folder, "build", "sorting", "--lang", "en", "--content", "content"),
            f"content/sorting/templates/card-face.xml.j2:1: {expected}")


@pytest.mark.parametrize("name", ["con", "nul", "aux", "prn", "com1", "lpt9"])
def test_an_id_windows_cannot_name_a_folder_is_refused(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "content" / name
    folder.mkdir(parents=True)
    (folder / "activity.yaml").write_text(BASE.replace("id: sorting", f"id: {name}"), encoding="utf-8")
    refused(kitgen(tmp_path, "build", name, "--content", "content"),
            f"content/{name}/activity.yaml:1:5: id: '{name}' names a device on Windows")
    assert not (tmp_path / "output").exists()


def test_ids_that_only_start_like_a_device_are_fine() -> None:
    from kitgen.load.model import Activity

    for name in ("console", "com10", "nul-game", "auxiliary"):
        data = {"id": name, "title": "T", "purpose": "P", "category": "C", "players": 2, "minutes": 10,
                "rules": {"prepare": "a", "play": "b"}}
        assert Activity.model_validate(data).id == name


# keep the imports used by later sections
_ = (re, ContentError)
