"""A library's own fonts: the TrueType and OpenType files a teacher puts in the `fonts/` folder of the content
folder, each family named by its files' stem (`Andika` for `Andika-Regular.ttf` and `Andika-Bold.ttf`, `MyHand`
for a lone `MyHand.ttf`).

A family is checked when an activity names it: every file must be a TrueType font (glyph outlines, as in most
`.ttf` and many `.otf` files) that allows embedding. An OpenType font with PostScript (CFF) outlines, a font
collection (`.ttc`) or a file that is no font at all is refused with what to do instead. The family's licence is
a text file beside it (`OFL.txt`, `LICENSE.txt`, `Andika-OFL.txt` ...), noted in the print guide.
"""
from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path

from kitgen.core.style import LibraryFont

SUFFIXES = (".ttf", ".otf")
_STYLES = {"regular": "regular", "bold": "bold", "book": "regular", "normal": "regular", "roman": "regular"}
_OTHER_STYLES = {"light", "medium", "semibold", "extrabold", "black", "thin", "heavy", "condensed", "extralight"}
_STYLE_TAIL = re.compile(r"^(?P<family>.+?)[-_ ](?P<style>[A-Za-z]+)$")
_LICENCE_WORDS = ("ofl", "licence", "license", "copying", "copyright")
MAX_FONT_BYTES = 30_000_000  # far above any one text font (DejaVu Sans is 0.7 MB)


class FontProblem(Exception):
    """What is wrong with a font an activity names, in a sentence for the teacher."""


def font_files(folder: Path) -> dict[str, dict[str, Path]]:
    """Family name → its style (`regular`, `bold`, or another style's word in lower case) → file, for every font
    file in `folder` (none when there is no such folder)."""
    families: dict[str, dict[str, Path]] = {}
    if not folder.is_dir():
        return families
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in SUFFIXES or not path.is_file():
            continue
        match = _STYLE_TAIL.match(path.stem)
        tail = match["style"].lower() if match else ""
        if match and (tail in _STYLES or tail in _OTHER_STYLES or tail.endswith(("italic", "oblique"))):
            family, style = match["family"], tail
        else:  # `MyHand.ttf`, or `Comic-Neue.ttf`: a name with a hyphen, not a style
            family, style = path.stem, "regular"
        families.setdefault(family, {}).setdefault(_STYLES.get(style, style), path)
    return families


def library_font(folder: Path, name: str) -> LibraryFont:
    """The family `name` (letter case aside) of the font folder, its files checked; FontProblem if there is no
    such family or a file of it cannot be embedded."""
    families = font_files(folder)
    found = next((family for family in families if family.casefold() == name.casefold()), None)
    if found is None:
        shown = _shown(folder)
        if not families:
            raise FontProblem(f"no font {name!r}: expected standard, legible, or a font file such as "
                              f"{shown}/{name}-Regular.ttf in the library (there is no font file in {shown}/)")
        close = difflib.get_close_matches(name, list(families), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise FontProblem(f"no font {name!r} in {shown}/{hint} (expected standard, legible, or one of "
                          f"{', '.join(sorted(families))})")
    styles = families[found]
    regular, bold = styles.get("regular"), styles.get("bold")
    if regular is None:
        raise FontProblem(f"font {found!r}: no regular file in {_shown(folder)}/ (expected {found}-Regular.ttf "
                          f"or {found}.ttf beside {', '.join(sorted(p.name for p in styles.values()))})")
    digest = hashlib.sha256()
    for path in (regular, bold):
        if path is not None:
            digest.update(check_font_file(path))
    licence = licence_file(folder, found)
    if licence is not None:
        digest.update(licence.name.encode())
    return LibraryFont(found, regular, bold, digest.hexdigest()[:16], licence)


def check_font_file(path: Path) -> bytes:
    """The bytes of the font file `path`; FontProblem if kitgen cannot embed it."""
    shown = f"{_shown(path.parent)}/{path.name}"
    size = path.stat().st_size
    if size > MAX_FONT_BYTES:
        raise FontProblem(f"{shown} is {size // 1_000_000} MB, expected a font file of at most "
                          f"{MAX_FONT_BYTES // 1_000_000} MB")
    data = path.read_bytes()
    kind = data[:4]
    if kind == b"OTTO":
        raise FontProblem(f"{shown} is an OpenType font with PostScript (CFF) outlines, which kitgen cannot embed "
                          "in a PDF; expected a TrueType version of the font (.ttf, often offered beside the .otf)")
    if kind == b"ttcf":
        raise FontProblem(f"{shown} is a font collection (several fonts in one file), expected one font a file "
                          "(.ttf)")
    if kind not in (b"\x00\x01\x00\x00", b"true"):
        raise FontProblem(f"{shown} is not a TrueType or OpenType font file (it does not start as one)")
    from reportlab.pdfbase.ttfonts import TTFError

    from kitgen.fonts.truetype import truetype_font

    try:
        font = truetype_font("kitgen-check", path)
    except TTFError as error:
        reason = str(error).replace(str(path), path.name).replace(f'"{path.name}"', path.name)
        if "subsetting/embedding" in reason:
            reason = "its licence flags forbid embedding it in a PDF"
        raise FontProblem(f"{shown} cannot be embedded: {reason}") from None
    if not font.face.charToGlyph:
        raise FontProblem(f"{shown} maps no character to a glyph, expected a text font")
    return data


def licence_file(folder: Path, family: str) -> Path | None:
    """The licence text beside a family's files: one named for the family first (`Andika-OFL.txt`), else the
    folder's own (`OFL.txt`, `LICENSE`)."""
    candidates = [path for path in sorted(folder.iterdir()) if path.is_file()
                  and path.suffix.lower() in ("", ".txt", ".md")
                  and any(word in path.stem.casefold() for word in _LICENCE_WORDS)]
    own = [path for path in candidates if path.stem.casefold().startswith(family.casefold())]
    found = own or candidates
    return found[0] if found else None


def _shown(folder: Path) -> str:
    """The folder as a teacher sees it: `content/fonts`, relative to the working folder where it can be."""
    from kitgen.core.errors import display_path

    return display_path(folder)
