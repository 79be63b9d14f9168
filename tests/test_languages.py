"""Languages from the library: catalogs beside content/, kitgen's own fr/de/es/it, missing catalogs and strings,
and an edition that fails while the activity's other editions build.

Each test writes a small library into a temporary folder and reads what kitgen wrote: the PDFs' text and file
names, the quality notes, the error lines, the index.
"""
from __future__ import annotations

from pathlib import Path

import pypdf
import pytest
from click.testing import CliRunner

from kitgen.core.notes import NoteKind
from kitgen.app.batch import build_library
from kitgen.app.build import build, BuildOptions, check
from kitgen.cli import main
from kitgen.core.errors import ContentError, UsageError
from kitgen.app.index import write_index
from kitgen.load.library import Library
from kitgen.locale import missing_strings, template_messages

BASE = """id: sorting
title: Sorting
purpose: Sort the cards.
category: Logic
players: 2
minutes: 10
rules:
  prepare: Shuffle.
  play: Sort.
decks:
  - id: main
    name: Main
    back: {title: Sorting}
    cards:
      - {id: a, count: 2, caption: One}
"""


def library(tmp_path: Path, *languages: str) -> Path:
    content = tmp_path / "content"
    (content / "sorting").mkdir(parents=True)
    (content / "sorting" / "activity.yaml").write_text(BASE, encoding="utf-8")
    for language in languages:
        (content / "sorting" / f"activity.{language}.yaml").write_text(f"title: Sorting ({language})\n")
    return content


def text_of(path: Path) -> str:
    return " ".join(page.extract_text() for page in pypdf.PdfReader(path).pages)


def guide(result) -> Path:
    return next(f.path for f in result.files if f.role == "print-guide")


@pytest.mark.parametrize("language, heading, cards", [("fr", "Imprimer les cartes", "cartes"),
                                                      ("de", "Die Karten drucken", "karten"),
                                                      ("es", "Imprimir las cartas", "cartas"),
                                                      ("it", "Stampare le carte", "carte")])
def test_kitgens_own_catalogs_print_an_edition_in_its_language(tmp_path: Path, language, heading, cards):
    result = build("sorting", BuildOptions(out_dir=tmp_path / "out"), Library(library(tmp_path, language)), language)
    assert heading in text_of(guide(result)) and "Printing the cards" not in text_of(guide(result))
    assert any(f.path.name == f"sorting-{language}-{cards}.pdf" for f in result.files)
    # every string is translated (a string added to kitgen since is named in the quality report until it is)
    missing = missing_strings(language)
    assert len(missing) <= len(template_messages()) // 20
    notes = [str(note) for note in result.quality if note.kind is NoteKind.UNTRANSLATED]
    assert notes == ([f"{len(missing)} fixed string(s) have no {language!r}"] if missing else []) or \
        notes[0].startswith(f"{len(missing)} fixed string(s) have no {language!r}")


def test_a_library_catalog_comes_before_kitgens_own(tmp_path: Path):
    content = library(tmp_path, "fr")
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "fr.po").write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n\n'
                                               'msgid "Printing the cards"\nmsgstr "Comment imprimer les cartes"\n',
                                               encoding="utf-8")
    result = build("sorting", BuildOptions(out_dir=tmp_path / "out"), Library(content), "fr")
    text = text_of(guide(result))
    assert "Comment imprimer les cartes" in text  # the library's word
    assert "Découpe" in text  # what the library leaves out comes from kitgen's French catalog
    manifest = (result.folder / "manifest.json").read_text()
    assert str(tmp_path / "locale" / "fr.po") in manifest  # an input: editing it rebuilds the kit


def test_a_new_language_from_kitgen_translate_builds_and_says_what_is_missing(tmp_path: Path):
    content = library(tmp_path, "nl")
    runner = CliRunner()
    done = runner.invoke(main, ["translate", "nl", "--content", str(content)])
    assert done.exit_code == 0, done.output
    po = tmp_path / "locale" / "nl.po"
    text = po.read_text(encoding="utf-8")
    assert text.count("\nmsgid ") - 1 == len(template_messages())  # every string, the header aside
    assert 'msgid "Printing the cards"\nmsgstr ""' in text
    po.write_text(text.replace('msgid "Printing the cards"\nmsgstr ""', 'msgid "Printing the cards"\nmsgstr '
                                                                         '"De kaarten afdrukken"'), encoding="utf-8")
    result = build("sorting", BuildOptions(out_dir=tmp_path / "out"), Library(content), "nl")
    guide_text = text_of(guide(result))
    assert "De kaarten afdrukken" in guide_text and "Cutting" in guide_text  # the rest falls back to English
    untranslated = [note for note in result.quality if note.kind is NoteKind.UNTRANSLATED]
    assert len(untranslated) == 1
    assert f"{len(template_messages()) - 1} fixed string(s) have no 'nl' translation" in str(untranslated[0])
    assert runner.invoke(main, ["translate", "nl", "--content", str(content)]).exit_code == 2  # never overwritten


def test_a_missing_catalog_fails_in_check_with_the_builds_message(tmp_path: Path):
    content = library(tmp_path, "pt")
    with pytest.raises(UsageError) as built:
        build("sorting", BuildOptions(out_dir=tmp_path / "out"), Library(content), "pt")
    with pytest.raises(ContentError) as checked:
        check("sorting", Library(content))
    assert str(built.value).startswith("no catalog for language 'pt'; available: de, en, es, fr, it, ro")
    assert str(checked.value) == f"{content / 'sorting' / 'activity.pt.yaml'}:1:1: {built.value}"
    check("sorting", Library(content), "en")  # the English edition alone is fine
    runner = CliRunner()
    assert runner.invoke(main, ["check", "sorting", "--lang", "en", "--content", str(content)]).exit_code == 0
    failed = runner.invoke(main, ["check", "sorting", "--content", str(content)])
    assert failed.exit_code == 2 and "no catalog for language 'pt'" in failed.output


def test_one_broken_edition_leaves_the_others_built_and_the_index_truthful(tmp_path: Path):
    content = library(tmp_path, "fr", "pt")
    out = tmp_path / "out"
    [report] = build_library(Library(content), BuildOptions(out_dir=out, incremental=True), jobs=1)
    assert sorted(r.language for r in report.results) == ["en", "fr"]
    assert list(report.failed_editions) == ["pt"] and "no catalog for language 'pt'" in report.failed_editions["pt"]
    for language in ("en", "fr"):
        assert (out / f"sorting-{language}" / "manifest.json").is_file()
    assert not (out / "sorting-pt").exists()
    write_index(Library(content), [report], out)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "sorting (pt)" in page and "no catalog for language &#x27;pt&#x27;" in page
    assert page.count("<h2>Sorting") == 2  # en and fr listed as built
    assert "Not rebuilt" not in page  # no warning on the editions that were built

    # catalogs arrive in the library for pt and fr: those editions build, English stays up to date
    (tmp_path / "locale").mkdir()
    for language in ("pt", "fr"):
        (tmp_path / "locale" / f"{language}.po").write_text(
            'msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n', encoding="utf-8")
    [again] = build_library(Library(content), BuildOptions(out_dir=out, incremental=True), jobs=1)
    assert not again.error and {r.language: r.skipped for r in again.results} == {"en": True, "fr": False,
                                                                                  "pt": False}
