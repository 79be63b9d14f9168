"""Card designs kept between builds: an edit redraws only what changed, and never changes the bytes.

Each test gets a cache folder of its own and forgets what earlier builds of this process kept in memory, so
"cold" means an empty cache. What a build drew is counted by wrapping the face and back drawing functions;
what it wrote is compared byte for byte with a build from an empty cache.
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import forked
import pytest

from conftest import kitgen_env
from kitgen.core import cache
from benchmarks.bench import synthetic_activity
from kitgen.app.build import build, BuildOptions
from kitgen.app.rendering import render_kit
from kitgen.load.library import Library
from kitgen.load import load_activity
from kitgen.render import cards

ID = "deck"


@pytest.fixture()
def library(tmp_path: Path, monkeypatch) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    synthetic_activity(content, ID, 30)
    monkeypatch.setenv("KITGEN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_SHELVES", {})
    return content


@pytest.fixture()
def drawn(monkeypatch) -> list[str]:
    """The labels of the faces and backs drawn (not taken from the cache), in order."""
    labels: list[str] = []
    for kind in ("face", "back"):
        original = cards.DRAW[kind]

        def counting(design, *args, _original=original, **kwargs):
            labels.append(design.label)
            return _original(design, *args, **kwargs)
        monkeypatch.setitem(cards.DRAW, kind, counting)
    return labels


def built(content: Path, out: Path, **options) -> dict[str, bytes]:
    result = build(ID, BuildOptions(out_dir=out, incremental=False, **options), Library.open(content))
    return {path.name: path.read_bytes() for path in sorted(result.folder.glob("*.pdf"))}


def cold(content: Path, out: Path, monkeypatch, **options) -> dict[str, bytes]:
    """The same build from an empty cache (another folder, nothing in memory)."""
    monkeypatch.setenv("KITGEN_CACHE", str(out.parent / f"empty-cache-{out.name}"))
    monkeypatch.setattr(cache, "_SHELVES", {})
    try:
        return built(content, out, **options)
    finally:
        monkeypatch.setenv("KITGEN_CACHE", str(content.parent / "cache"))


def edit(content: Path, old: str, new: str) -> None:
    path = content / f"{ID}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def rename(content: Path, number: int, new_name) -> None:
    """Give card `number` the name `new_name(old name)`."""
    card = f"{{id: c{number:05d}, count: 1, name: "
    text = (content / f"{ID}.yaml").read_text(encoding="utf-8")
    old = text.split(card, 1)[1].split('"')[1]
    edit(content, f'{card}"{old}"', f'{card}"{new_name(old)}"')


def test_a_rebuild_draws_nothing_again_and_writes_the_same_bytes(library, tmp_path, drawn):
    first = built(library, tmp_path / "one")
    assert len(drawn) == 31  # 30 faces and the deck's back
    drawn.clear()
    again = built(library, tmp_path / "two")
    assert drawn == []
    assert again == first


def test_a_new_process_reads_the_cache_and_writes_the_same_bytes(library, tmp_path):
    def run(out: str) -> dict[str, str]:
        done = forked.run(["build", ID, "-q", "--force", "--content", str(library), "--out", str(tmp_path / out)],
                          cwd=tmp_path, env=kitgen_env(tmp_path, KITGEN_CACHE=str(tmp_path / "c")), timeout=300)
        assert done.returncode == 0, done.stderr
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (tmp_path / out / ID).glob("*.pdf")}

    first = run("one")
    shelves = sorted(p.parent.name.split("-")[0] for p in (tmp_path / "c").rglob("*") if p.is_file()
                     and p.parent.name.startswith(("texts", "designs", "streams")))
    assert shelves == ["designs", "streams", "texts"]
    assert run("two") == first


def test_editing_one_card_redraws_that_card_alone_and_matches_a_cold_build(library, tmp_path, drawn, monkeypatch):
    built(library, tmp_path / "one")
    drawn.clear()
    rename(library, 7, lambda name: f"{name} II")
    edited = built(library, tmp_path / "two")
    assert len(drawn) == 1 and "c00007" in drawn[0], drawn
    assert edited == cold(library, tmp_path / "three", monkeypatch)


def test_cards_moved_down_their_file_are_reused_and_named_by_their_new_lines(library, tmp_path, drawn):
    built(library, tmp_path / "one")
    drawn.clear()
    edit(library, "\n    cards:\n", "\n    # three lines\n    # added above\n    # the cards\n    cards:\n")
    loaded = load_activity(library / f"{ID}.yaml")
    kit = render_kit(loaded, BuildOptions(out_dir=tmp_path / "two"), Library.open(library), pdf=False)
    assert drawn == []
    line = next(n for n, text in enumerate((library / f"{ID}.yaml").read_text().splitlines(), 1) if "c00004," in text)
    cards_file = kit.files[0].document
    origins = {text.origin for text in cards_file.distinct_texts() if "cards[3]" in text.origin}
    assert origins and all(f"{ID}.yaml:{line}:" in origin for origin in origins), origins


def test_a_new_character_changes_every_glyph_code_and_still_matches_a_cold_build(library, tmp_path, monkeypatch):
    built(library, tmp_path / "one")
    rename(library, 3, lambda name: f"Ωmega {name}")  # a letter no card had: codes are given anew
    assert built(library, tmp_path / "two") == cold(library, tmp_path / "three", monkeypatch)


@pytest.mark.parametrize("options", [{"ink": "light"}, {"card_size": "mini"}, {"bleed_mm": 3.0}, {"font": "legible"},
                                     {"large_print": True}, {"duplex": "none"}])
def test_other_options_never_reuse_a_drawing_made_for_different_ones(library, tmp_path, monkeypatch, options):
    built(library, tmp_path / "plain")
    assert built(library, tmp_path / "other", **options) == cold(library, tmp_path / "cold", monkeypatch, **options)


def test_a_changed_picture_is_drawn_again(library, tmp_path, monkeypatch):
    from PIL import Image

    picture = library / "sun.png"
    Image.new("RGB", (40, 40), (250, 200, 0)).save(picture)
    edit(library, "{id: c00002, count: 1,", "{id: c00002, count: 1, image: sun.png,")
    built(library, tmp_path / "one")
    Image.new("RGB", (40, 40), (0, 90, 200)).save(picture)  # same name, same size, other pixels
    assert built(library, tmp_path / "two") == cold(library, tmp_path / "three", monkeypatch)


def test_changed_code_never_reuses_a_drawing(library, tmp_path, drawn, monkeypatch):
    built(library, tmp_path / "one")
    drawn.clear()
    monkeypatch.setattr(cache, "_SHELVES", {})  # as a new process would: the drawings are on disk
    monkeypatch.setattr("kitgen.render.design_cache.code_digest", lambda: b"another kitgen")
    built(library, tmp_path / "two")
    assert len(drawn) == 31


@pytest.mark.parametrize("damage", ["cut short", "one byte changed", "not a shelf", "empty"])
def test_a_damaged_cache_file_is_ignored(library, tmp_path, drawn, monkeypatch, damage):
    first = built(library, tmp_path / "one")
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.parent.name.startswith(("designs",
                                                                                                       "streams"))]
    assert len(files) == 2
    for file in files:
        data = file.read_bytes()
        file.write_bytes({"cut short": data[:len(data) // 2], "one byte changed": data[:-9] + bytes([data[-9] ^ 1])
                          + data[-8:], "not a shelf": b"hello", "empty": b""}[damage])
    monkeypatch.setattr(cache, "_SHELVES", {})
    drawn.clear()
    assert built(library, tmp_path / "two") == first
    assert len(drawn) == 31


def test_two_builds_at_once_share_the_cache_safely(library, tmp_path):
    env = kitgen_env(tmp_path, KITGEN_CACHE=str(tmp_path / "shared"))

    def start(out: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "kitgen", "build", ID, "-q", "--force", "--content",
                                 str(library), "--out", str(tmp_path / out)], env=env, stderr=subprocess.PIPE)

    for round_ in range(2):  # cold, then both reading what the first round kept
        runs = [start(f"r{round_}-a"), start(f"r{round_}-b")]
        assert [run.wait(timeout=300) for run in runs] == [0, 0]
    outputs = {out: {p.name: p.read_bytes() for p in (tmp_path / out / ID).glob("*.pdf")}
               for out in ("r0-a", "r0-b", "r1-a", "r1-b")}
    assert len({tuple(sorted(files.items())) for files in outputs.values()}) == 1
    for file in (tmp_path / "shared").rglob("*"):
        if file.is_file() and file.parent.name.startswith(("designs", "streams")):
            assert cache._read_shelf(file), f"{file} is not a whole shelf"


def test_a_shelf_keeps_only_what_the_last_build_used(library, tmp_path):
    built(library, tmp_path / "one")
    for number in range(1, 31):
        rename(library, number, lambda name: f"{name}!")
    built(library, tmp_path / "two")
    shelf = next(p for p in (tmp_path / "cache").rglob("*") if p.parent.name.startswith("designs"))
    assert len(cache._read_shelf(shelf)) == 31  # not 61: the old drawings are gone


@pytest.fixture()
def rendered(monkeypatch) -> list[str]:
    """The card ids whose face template was rendered (not taken from the cache)."""
    from kitgen.render import markup

    ids: list[str] = []
    original = markup.template_text

    def counting(env, name, **context):
        if name == "card-face.xml.j2":
            ids.append(context["card"].id)
        return original(env, name, **context)
    monkeypatch.setattr(markup, "template_text", counting)
    return ids


def test_an_edited_card_alone_goes_through_its_template_again(library, tmp_path, rendered, monkeypatch):
    built(library, tmp_path / "one")
    assert len(rendered) == 30
    rendered.clear()
    rename(library, 12, lambda name: f"{name} (new)")
    edited = built(library, tmp_path / "two")
    assert rendered == ["c00012"]
    assert edited == cold(library, tmp_path / "three", monkeypatch)


@pytest.mark.parametrize("how", ["directly", "in an included template"])
def test_a_template_that_reads_the_activity_is_rendered_every_time(library, tmp_path, rendered, monkeypatch, how):
    """Its output may depend on any card, so none is kept: the title edit shows on every face."""
    templates = library.parent / "templates"
    templates.mkdir()
    shipped = (Path(__file__).resolve().parents[1] / "templates" / "card-face.xml.j2").read_text(encoding="utf-8")
    footer = "{% if text.footer is defined %}<footer>{{ text.footer }}</footer>{% endif %}"
    assert footer in shipped
    reading = "<footer>{{ activity.title }}</footer>"
    if how != "directly":
        (templates / "face-footer.xml.j2").write_text(reading, encoding="utf-8")
        reading = '{% include "face-footer.xml.j2" %}'
    (templates / "card-face.xml.j2").write_text(shipped.replace(footer, reading), encoding="utf-8")
    built(library, tmp_path / "one")
    rendered.clear()
    edit(library, "title: Synthetic deck deck", "title: Another deck")
    edited = built(library, tmp_path / "two")
    assert len(rendered) == 30
    assert edited == cold(library, tmp_path / "three", monkeypatch)



@pytest.mark.parametrize("source", ['<card>{{ _("Draw") }}</card>', "<card>{% trans %}Draw{% endtrans %}</card>",
                                    '<card>{{ gettext("Draw") }}</card>'])
def test_a_template_that_translates_is_never_kept(tmp_path, source):
    """Its words come from the catalogs, which are not part of the key."""
    from kitgen.render.design_cache import _template_reads
    from kitgen.render.markup import environment

    (tmp_path / "card-face.xml.j2").write_text(source, encoding="utf-8")
    assert _template_reads(environment((tmp_path,), "en"), "card-face.xml.j2") is None
    (tmp_path / "card-face.xml.j2").write_text("<card>{{ card.id }}</card>", encoding="utf-8")
    assert _template_reads(environment((tmp_path,), "fr"), "card-face.xml.j2")[1] == {"card"}


def test_documents_are_laid_out_again_only_when_what_they_print_changed(library, tmp_path, monkeypatch):
    """A new purpose is printed on the rules and the print guide, not in the host key."""
    from kitgen.render import kit

    titles: list[str] = []
    original = kit.render_document

    def counting(root, paper, **options):
        titles.append(options["title"])
        return original(root, paper, **options)
    monkeypatch.setattr(kit, "render_document", counting)
    built(library, tmp_path / "one")
    assert len(titles) == 3  # sheets, host key, print guide
    titles.clear()
    built(library, tmp_path / "two")
    assert titles == []
    edit(library, "purpose: Measure how", "purpose: Find out how")
    edited = built(library, tmp_path / "three")
    assert titles == ["Synthetic deck deck · Player sheets", "Synthetic deck deck · Print guide"], titles
    assert edited == cold(library, tmp_path / "four", monkeypatch)


@pytest.fixture()
def written(monkeypatch) -> list[str]:
    """The titles of the PDFs written (not taken from the cache), in order."""
    from kitgen.export import pdf

    titles: list[str] = []
    original = pdf._written

    def counting(document, **options):
        titles.append(document.title)
        return original(document, **options)
    monkeypatch.setattr(pdf, "_written", counting)
    return titles


def test_a_file_is_written_as_pdf_again_only_when_what_it_draws_changed(library, tmp_path, monkeypatch, written):
    """A new purpose is printed on the player sheets and the print guide: only those two PDFs are written again;
    the cards and host key come from the cache, and every file is the bytes of a build from an empty cache. In a
    new process (nothing in memory) the kept files are read from the cache folder."""
    built(library, tmp_path / "one")
    assert len(written) == 4
    written.clear()
    assert built(library, tmp_path / "two") == built(library, tmp_path / "one")
    assert written == []
    edit(library, "purpose: Measure how", "purpose: Find out how")
    monkeypatch.setattr(cache, "_SHELVES", {})  # as a new process: what was kept is read from the folder
    edited = built(library, tmp_path / "three")
    assert sorted(written) == ["Synthetic deck deck · Player sheets", "Synthetic deck deck · Print guide"], written
    assert edited == cold(library, tmp_path / "four", monkeypatch)


def test_pictures_of_the_cards_do_not_push_the_kept_card_file_out(library, tmp_path, written):
    """`--png` rasterises every card from PDFs made for the purpose: they are not kept in place of the kit's own
    files, so the next build still takes all four PDFs from the cache."""
    built(library, tmp_path / "one", png_dpi=36)
    built(library, tmp_path / "two", png_dpi=36)
    written.clear()
    built(library, tmp_path / "three")
    assert written == []


def test_pictures_of_the_cards_leave_the_kept_form_streams_of_the_card_file(library, tmp_path):
    """The PDFs `--png` rasterises hold the same forms under the card file's title: their streams are not kept
    in place of the card file's own (which are made with the card file's glyph codes)."""
    def kept_streams() -> set[bytes]:
        return {key for (kind, _name), entries in cache._SHELVES.items() if kind == "streams" for key in entries}

    built(library, tmp_path / "one")
    before = kept_streams()
    assert len(before) >= 31  # 30 faces and a back
    built(library, tmp_path / "two", png_dpi=36)
    assert kept_streams() == before
