"""Template lookup: a name found along the search path (the activity's templates, the library's, kitgen's)."""
from __future__ import annotations

from pathlib import Path

from kitgen.core.errors import BuildError, UnprintableContent

MAX_TEMPLATE_BYTES = 500_000  # kitgen's largest template is about 14 kB


def resolve_template(dirs: list[Path], name: str) -> Path | None:
    """The file `name` resolves to along the search path (the first folder that has it); a file whose real
    path leaves its folder (a symlink out), or that is over `MAX_TEMPLATE_BYTES`, is refused before it is read."""
    for folder in dirs:
        candidate = folder / name
        if candidate.is_file():
            if not candidate.resolve().is_relative_to(folder.resolve()):
                raise BuildError(f"template {name!r} resolves to {candidate.resolve()}, outside the template "
                                 "folders; refused")
            size = candidate.stat().st_size
            if size > MAX_TEMPLATE_BYTES:  # refused before Jinja reads and compiles it (60 MB took 400 MB)
                raise UnprintableContent(f"{candidate}: the template is {size:,} bytes, expected at most "
                                         f"{MAX_TEMPLATE_BYTES:,}")
            return candidate
    return None
