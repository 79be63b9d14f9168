"""The docs stay true: every repository path README.md and docs/*.md name (in backticks or as a link) exists."""
from __future__ import annotations

import re
from pathlib import Path

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
