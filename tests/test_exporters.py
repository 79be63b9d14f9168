"""Exporters: every file a build writes beyond its PDFs comes from a registered exporter, is listed in the kit's
manifest with its sha256, is written and replaced with the kit in one step, and goes away with the kit it
belonged to (a teacher's own files stay)."""
from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest

from kitgen.app.build import BuildOptions, build
from kitgen.export import registry
from kitgen.export.exporter import Exporter
from kitgen.load.library import Library

REPO = Path(__file__).resolve().parents[1]
LIBRARY = Library.open(REPO / "content")


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_every_exported_file_is_in_the_manifest_with_its_bytes(tmp_path: Path) -> None:
    result = build("growing-discard", BuildOptions(out_dir=tmp_path, png_dpi=40, cutter="cricut"), LIBRARY)
    listed = manifest(result.folder)["artefacts"]
    on_disk = {str(p.relative_to(result.folder)) for p in result.folder.rglob("*")
               if p.is_file() and p.suffix in (".png", ".svg")}
    assert on_disk == set(listed) and len(listed) == 29  # 9 card designs in png/, 10 Cricut pictures with their SVGs
    for name, entry in listed.items():
        data = (result.folder / name).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert sorted(str(p.relative_to(result.folder)) for p in result.pictures) == sorted(listed)


def test_a_build_that_no_longer_asks_for_pictures_removes_them_and_keeps_the_teachers_files(tmp_path: Path) -> None:
    options = BuildOptions(out_dir=tmp_path, png_dpi=40)
    folder = build("growing-discard", options, LIBRARY).folder
    (folder / "png" / "my-notes.txt").write_text("cut the supply first")
    (folder / "png" / "supply-C2.png").write_bytes(b"drawn over by hand")  # changed: the kit is not up to date
    assert not build("growing-discard", BuildOptions(out_dir=tmp_path, png_dpi=40, incremental=True), LIBRARY).skipped
    assert (folder / "png" / "supply-C2.png").read_bytes().startswith(b"\x89PNG")
    build("growing-discard", BuildOptions(out_dir=tmp_path), LIBRARY)
    assert sorted(p.name for p in (folder / "png").iterdir()) == ["my-notes.txt"]
    assert "artefacts" not in manifest(folder)


def test_an_exporter_is_one_entry_in_the_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/architecture.md's "Adding an exporter": a list of card files, made by an exporter added with one line."""
    def card_list(files, resolved, options) -> dict[str, bytes]:
        return {"cards.txt": "\n".join(f.name for f in files if f.role.card_stock).encode()}

    monkeypatch.setattr(registry, "EXPORTERS", (*registry.EXPORTERS, Exporter("card-list", lambda o: True, card_list)))
    folder = build("growing-discard", BuildOptions(out_dir=tmp_path), LIBRARY).folder
    assert (folder / "cards.txt").read_text() == "growing-discard-cards.pdf"
    assert "cards.txt" in manifest(folder)["artefacts"]


def test_two_exporters_making_one_file_is_an_error_not_an_overwrite(monkeypatch: pytest.MonkeyPatch) -> None:
    twice = Exporter("twice", lambda o: True, lambda files, resolved, options: {"x.txt": b"1"})
    monkeypatch.setattr(registry, "EXPORTERS", (twice, twice))
    with pytest.raises(ValueError, match="x.txt"):
        registry.artefacts([], None, BuildOptions())  # type: ignore[arg-type]


def test_pdfium_is_called_in_one_place() -> None:
    """One rasteriser: PNG pictures, Cricut pictures, previews, thumbnails and served pages all come from it."""
    users = []
    for path in (REPO / "kitgen").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(name.split(".")[0] == "pypdfium2" for name in names):
                users.append(path.relative_to(REPO).as_posix())
    assert sorted(set(users)) == ["kitgen/export/raster.py"]
