"""Template lookup: a name found along the search path (the activity's templates, the library's, kitgen's)."""
from __future__ import annotations

from pathlib import Path

from kitgen.core.errors import BuildError


def resolve_template(dirs: list[Path], name: str) -> Path | None:
    """The file `name` resolves to along the search path (the first folder that has it); a file whose real
    path leaves its folder (a symlink out) is refused before it is read."""
    for folder in dirs:
        candidate = folder / name
        if candidate.is_file():
            if not candidate.resolve().is_relative_to(folder.resolve()):
                raise BuildError(f"template {name!r} resolves to {candidate.resolve()}, outside the template "
                                 "folders; refused")
            return candidate
    return None
