"""Where kitgen finds activities and templates."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kitgen.errors import UsageError

PACKAGE_DIR = Path(__file__).resolve().parent


def builtin_root() -> Path:
    """The folder holding the default `content/` and `templates/`: inside the wheel, or the source checkout."""
    packaged = PACKAGE_DIR / "_library"
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent


def builtin_templates() -> Path:
    return builtin_root() / "templates"


def default_content_dir() -> Path:
    """`$KITGEN_CONTENT`, else `./content` when it exists, else the library that ships with kitgen."""
    if os.environ.get("KITGEN_CONTENT"):
        return Path(os.environ["KITGEN_CONTENT"])
    local = Path("content")
    if local.is_dir():
        return local
    return builtin_root() / "content"


def own_content_dir(content: Path | None = None) -> Path:
    """Where new activities and the schema go: `--content`, `$KITGEN_CONTENT`, else `./content` (which may not
    exist yet). Never the library that ships with kitgen: that one is read, not written."""
    if content is not None:
        return Path(content)
    if os.environ.get("KITGEN_CONTENT"):
        return Path(os.environ["KITGEN_CONTENT"])
    return Path("content")


@dataclass(frozen=True)
class Library:
    """A folder of activities: `<id>.yaml` files or `<id>/activity.yaml` folders."""

    content: Path

    @classmethod
    def open(cls, content: Path | None = None) -> "Library":
        folder = Path(content) if content is not None else default_content_dir()
        if not folder.is_dir():
            raise UsageError(f"no content folder at {folder}")
        return cls(folder)

    def activity_files(self) -> dict[str, Path]:
        """Activity id (from the file or folder name) → its YAML file, sorted by id."""
        found: dict[str, Path] = {}
        for path in sorted(self.content.iterdir()):
            if path.suffix in (".yaml", ".yml") and path.is_file() and "." not in path.stem:
                found[path.stem] = path
            elif path.is_dir() and (path / "activity.yaml").is_file():
                found[path.name] = path / "activity.yaml"
        return found

    def find(self, activity_id: str) -> Path:
        files = self.activity_files()
        if activity_id not in files:
            known = ", ".join(files) or "(none)"
            raise UsageError(f"no activity {activity_id!r} in {self.content}; available: {known}")
        from kitgen.inputs import refuse_outside, refuse_shared_folder

        refuse_outside(self, files[activity_id])
        refuse_shared_folder(self, activity_id, files[activity_id])
        return files[activity_id]

    def template_dirs(self, activity_folder: Path | None = None) -> list[Path]:
        """Template search order: the activity's own templates, the library's, then kitgen's built-ins."""
        candidates = []
        if activity_folder is not None and activity_folder != self.content:
            own = activity_folder / "templates"
            if own.is_dir() and not own.resolve().is_relative_to(activity_folder.resolve()):
                raise UsageError(f"{own} leads outside its activity folder; refused")
            candidates.append(own)
        candidates += [self.content.parent / "templates", builtin_templates()]
        ordered: list[Path] = []
        for folder in candidates:
            if folder.is_dir() and all(folder.resolve() != seen.resolve() for seen in ordered):
                ordered.append(folder)
        return ordered
