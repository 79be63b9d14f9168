"""Where kitgen finds activities and templates."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kitgen.core.files import kit_folder_name
from kitgen.core.errors import ContentError, display_path, KitgenError, UsageError
from kitgen.load.editions import edition_file, edition_languages, editions
from kitgen.load.yaml_source import read_yaml

PACKAGE_DIR = Path(__file__).resolve().parents[1]


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
        refuse_outside(self, files[activity_id])
        refuse_shared_folder(self, activity_id, files[activity_id])
        return files[activity_id]

    @property
    def fonts_folder(self) -> Path:
        """The library's own font files (a family named by its files' stem): `fonts/` in the content folder."""
        return self.content / "fonts"

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


def refuse_outside(library: Library, path: Path) -> None:
    """A content file (or its activity folder) that a symlink leads out of the library is refused before it is
    read, as templates are."""
    root = library.content.resolve()
    for candidate in [path, *(edition_file(path, language) for language in edition_languages(path))]:
        if not candidate.resolve().is_relative_to(root):
            shown = os.path.relpath(candidate) if Path(os.path.abspath(candidate)).is_relative_to(Path.cwd()) \
                else str(candidate)  # the name in the library, not where the link leads
            raise UsageError(f"{shown} leads outside the library, to {candidate.resolve()}; refused")


def refuse_shared_folder(library: Library, activity_id: str, path: Path) -> None:
    """Two activities never write into one kit folder: the activity `trash-en` and the `en` edition of `trash`
    would (an edition's folder is `<id>-<language>`). The clash is a content error at the activity's `id:`."""
    def folders(of: str, languages: list[str]) -> dict[str, str]:
        return {kit_folder_name(of, language, len(languages) > 1): language for language in languages}

    mine: dict[str, str] | None = None
    for other_id, other_path in library.activity_files().items():
        if other_id == activity_id or not (other_id.startswith(activity_id + "-")
                                           or activity_id.startswith(other_id + "-")):
            continue  # only ids that one hyphenated suffix apart can make the same folder name
        try:
            refuse_outside(library, other_path)
            mine = mine if mine is not None else folders(activity_id, editions(path))
            theirs = folders(other_id, editions(other_path))
        except KitgenError:
            continue  # that activity's own build reports what is wrong with it
        for folder in sorted(set(mine) & set(theirs)):
            def describe(of: str, language: str, languages: dict[str, str]) -> str:
                return f"the {language!r} edition of {of!r}" if len(languages) > 1 else f"{of!r}"
            _, source = read_yaml(path)
            message = (f"id: {describe(activity_id, mine[folder], mine)} would write the same kit folder, {folder}/, "
                       f"as {describe(other_id, theirs[folder], theirs)} ({display_path(other_path)}); "
                       "rename one of them")
            raise ContentError([source.problem(("id",), message)])
