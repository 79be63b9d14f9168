"""Every card-size preset works for every kit: mini backs wrap a long subtitle, tarot gutter-folds on Letter."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pdfplumber
import forked
import pytest

from conftest import CONTENT, kitgen_env, page_texts

TEMPLATES = CONTENT.parent / "templates"
KITS = sorted(p.stem if p.is_file() else p.name for p in CONTENT.iterdir() if p.suffix in (".yaml", "") )
MM = 72 / 25.4


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("presets")
    shutil.copytree(CONTENT, root / "content")
    shutil.copytree(TEMPLATES, root / "templates")
    return root


def build(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return forked.run(["build", *args], cwd=root, env=kitgen_env(root), timeout=600)


def card_pdfs(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*.pdf"))
            if not p.name.endswith(("host-key.pdf", "print-guide.pdf", "sheets.pdf", "slips.pdf")) and p.name != "index.pdf"]


@pytest.mark.parametrize("kit", KITS)
def test_mini_cards_build_and_long_back_subtitles_wrap(library: Path, kit: str) -> None:
    run = build(library, kit, "--card-size", "mini")
    assert run.returncode == 0, run.stdout + run.stderr
    pdfs = card_pdfs(library / "output" / "variants" / "mini")
    assert pdfs
    if kit == "needle-in-a-card-stack":  # "Needle in a Card Stack" is wider than a mini back's panel at 7 pt
        deck = next(p for p in pdfs if p.name.startswith(kit) and "optional-deck" in p.name)
        lines = page_texts(deck)[1].splitlines()
        # the subtitle on two lines: "Needle in a Card" on one, "Stack" alone on the next, on every back
        assert any(line.startswith("Needle in a Card") for line in lines), lines
        assert any(set(line.split()) == {"Stack"} for line in lines), lines


@pytest.mark.parametrize("kit", KITS)
def test_tarot_cards_gutter_fold_on_letter(library: Path, kit: str) -> None:
    run = build(library, kit, "--card-size", "tarot", "--fold", "--paper", "letter")
    assert run.returncode == 0, run.stdout + run.stderr
    pdfs = [p for p in card_pdfs(library / "output" / "variants" / "letter-tarot-fold") if p.name.startswith(kit)]
    folded = 0
    for path in pdfs:
        with pdfplumber.open(path) as pdf:
            page = pdf.pages[0]
            assert (round(page.width, 1), round(page.height, 1)) == (612.0, 792.0), path
            middle = [e for e in page.lines + page.edges if abs(e["top"] - page.height / 2) < 0.5
                      and abs(e["bottom"] - page.height / 2) < 0.5]
            if not middle:
                continue
            folded += 1
            # faces above the fold line and their backs below it, both with text
            words = [w for w in page.extract_words() if 20 * MM < w["x0"] and w["x1"] < page.width - 20 * MM]
            assert any(w["bottom"] < page.height / 2 - 6 * MM for w in words), path
            assert any(w["top"] > page.height / 2 + 6 * MM for w in words), path
    assert folded, f"no card sheet of {kit} folds at the middle of a Letter page: {pdfs}"


@pytest.mark.parametrize("extra", [("--back-offset", "1.5,-0.8"), ("--duplex", "short")])
def test_fold_refuses_a_back_offset_or_a_short_edge_flip(tmp_path: Path, extra: tuple[str, str]) -> None:
    """A gutter fold has no back page to shift and no flip edge: a usage error, not a variant folder named
    after options it ignored."""
    shutil.copytree(CONTENT, tmp_path / "content")
    run = build(tmp_path, "needle-in-a-card-stack", "--fold", *extra)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "--fold" in run.stderr and extra[0] in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "output").exists()
