"""Every neutral (card frames, title rules, grey and black text, the index) prints in black ink alone."""

from __future__ import annotations

import shutil
from pathlib import Path

import forked
import pypdf
from pypdf.generic import ContentStream

from conftest import CONTENT, kitgen_env


def rgb_greys(path: Path) -> int:
    """RGB colour operators whose three components are equal, in the pages and their form XObjects."""
    reader = pypdf.PdfReader(path)
    streams = []
    for page in reader.pages:
        if page.get_contents() is not None:
            streams.append(page.get_contents())
        resources = page.get("/Resources")
        forms = resources.get_object().get("/XObject") if resources else None
        for form in (forms.get_object().values() if forms else []):
            if form.get_object().get("/Subtype") == "/Form":
                streams.append(form.get_object())
    count = 0
    for stream in streams:
        for operands, operator in ContentStream(stream, reader).operations:
            if operator in (b"RG", b"rg") and len({float(x) for x in operands}) == 1:
                count += 1
    return count


def test_no_grey_is_set_as_rgb_in_any_file(tmp_path: Path) -> None:
    shutil.copytree(CONTENT, tmp_path / "content")
    run = forked.run(["build", "--all"], cwd=tmp_path, env=kitgen_env(tmp_path), timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    pdfs = sorted((tmp_path / "output").rglob("*.pdf"))
    assert len(pdfs) >= 8 and any(p.name == "index.pdf" for p in pdfs), pdfs
    found = {p.relative_to(tmp_path).as_posix(): n for p in pdfs if (n := rgb_greys(p))}
    assert not found, f"neutrals set as RGB (separated into four inks): {found}"
    # the neutrals are there, as DeviceGray: the card frames' stroke grey
    frames = pypdf.PdfReader(next(p for p in pdfs if "optional-deck" in p.name))
    assert b".35 G" in frames.pages[0].get_contents().get_data() or any(
        b".35 G" in f.get_object().get_data() for f in (frames.pages[0]["/Resources"].get("/XObject") or {}).values())
