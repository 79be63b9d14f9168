"""Picture files named by content (`image: pictures/fox.png`): found, confined to the library, and checked.

A path is looked up relative to the activity's folder, then in the library's `images/` folder (inside the
content folder, so it travels with the library). Whatever it names must resolve inside the library: an
absolute path, `..` out of it or a symlink that leads out is refused, and so are a missing or unreadable
file, a file that is no picture, and a picture too large to print sensibly. What a file is comes from its
first bytes, not its name: a JPEG saved as `.png` is read as the JPEG it is. GIF, WebP, BMP and TIFF pictures
are printed as PNG (an animated one as its first frame).
"""
from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kitgen.core.errors import Hints

KINDS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".svg": "svg", ".gif": "gif", ".webp": "webp",
         ".bmp": "bmp", ".tif": "tiff", ".tiff": "tiff"}  # the names a picture may have; its bytes say what it is
SUFFIXES = ".png, .jpg, .jpeg, .svg, .gif, .webp, .bmp, .tif or .tiff"
MAX_BYTES = 20 * 1024 * 1024  # one picture file
MAX_PIXELS = 40_000_000  # width × height of a PNG or JPEG (a 300 dpi A3 poster is about 17 million)
MAX_DECODED_BYTES = 100_000_000  # a PNG or JPEG decoded: pixels × bytes a pixel (an A3 poster in RGBA is 70 MB)
LIBRARY_IMAGES = "images"


class PictureError(Exception):
    """A picture file that cannot be used; the message says why, without the location (the caller adds it)."""


@dataclass(frozen=True)
class Picture:
    """A checked picture: its bytes, what it is, and its natural size (pixels, or SVG units) for its shape."""

    kind: str  # "png", "jpeg" or "svg" (a picture of another kind is read as a PNG)
    data: bytes = field(repr=False)
    name: str  # as the author wrote it (or the emoji's name)
    width: float
    height: float
    credit: str = ""  # who must be credited when it is printed (a picture set's licence), else ""

    @property
    def aspect(self) -> float:
        return self.width / self.height if self.height else 1.0


def library_root(activity_file: Path) -> Path:
    """The library folder an activity belongs to: the folder of `<id>.yaml`, or the one above `<id>/activity.yaml`."""
    folder = activity_file.parent
    return folder.parent if activity_file.name.startswith("activity.") and activity_file.suffix == ".yaml" else folder


def find_picture(reference: str, activity_folder: Path, library: Path, hints: Hints | None = None) -> Path:
    """The file `reference` names, confined to `library`; PictureError when there is none (with the name of a file
    close to it, while `hints` lasts) or it leads out."""
    if not reference.strip():
        raise PictureError("expected a path to a PNG, JPEG or SVG file, got nothing")
    relative = Path(reference)
    if relative.is_absolute() or reference.startswith(("~", "\\")):
        raise PictureError(f"{reference!r} is an absolute path; expected a path relative to the activity's folder "
                           f"or to the library's {LIBRARY_IMAGES}/ folder")
    if relative.suffix.lower() not in KINDS:
        raise PictureError(f"{reference!r}: expected a {SUFFIXES} file")
    root = library.resolve()
    tried = []
    for base in (activity_folder, library / LIBRARY_IMAGES):
        candidate = base / relative
        tried.append(base)
        if not (candidate.exists() or candidate.is_symlink()):
            continue
        resolved = candidate.resolve()
        if not resolved.is_relative_to(root):
            raise PictureError(f"{reference!r} leads outside the library ({root}); refused")
        if not resolved.is_file():
            raise PictureError(f"{reference!r} is not a file")
        return resolved
    if any(part == ".." for part in relative.parts):
        outside = [base for base in tried if not (base / relative).resolve().is_relative_to(root)]
        if outside:
            raise PictureError(f"{reference!r} leads outside the library ({root}); refused")
    places = " or ".join(str(base) for base in tried)
    close = _close_file(relative, tried, hints or Hints())
    raise PictureError(f"no picture {reference!r} in {places}" + (f", did you mean {close!r}?" if close else ""))


MAX_LISTED = 10_000  # picture files of one folder compared with a name that is not there


def _close_file(relative: Path, folders: list[Path], hints: Hints) -> str | None:
    """The picture file a missing name probably meant (`hedgehog2.png` → `hedgehog.png`), as the content would
    name it: a file of the same folder, beside the activity or in the library's images/."""
    names: dict[str, str] = {}
    for base in folders:
        try:
            for number, entry in enumerate((base / relative.parent).iterdir()):
                if number >= MAX_LISTED:
                    break
                if entry.suffix.lower() in KINDS:
                    names.setdefault(entry.name.lower(), str(relative.parent / entry.name) if relative.parent.parts
                                     else entry.name)
        except OSError:
            continue
    found = hints.close(relative.name.lower(), sorted(names)) if names else None
    return names[found] if found else None


def read_picture(reference: str, activity_folder: Path, library: Path, hints: Hints | None = None) -> Picture:
    """Find and check one picture file (PictureError with the reason when it cannot be used)."""
    path = find_picture(reference, activity_folder, library, hints)
    try:
        stat = path.stat()
    except OSError as error:
        raise PictureError(f"{reference!r}: {error.strerror or error}") from None
    if stat.st_size > MAX_BYTES:
        raise PictureError(f"{reference!r} is {stat.st_size / 1024 / 1024:.1f} MB, expected at most "
                           f"{MAX_BYTES // 1024 // 1024} MB")
    return _checked(str(path), stat.st_mtime_ns, stat.st_size, reference)


@lru_cache(maxsize=256)
def _checked(path: str, mtime: int, size: int, reference: str) -> Picture:
    """Read and check a file once per version of it (a deck of 200 cards names the same picture 200 times)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise PictureError(f"{reference!r} cannot be read: {error.strerror or error}") from None
    kind = sniffed(data)
    if kind is None:
        raise PictureError(f"{reference!r} is not a picture: it is {what_it_is(data)}; expected a PNG, JPEG, GIF, "
                           "WebP or SVG file")
    if kind == "svg":
        width, height = svg_size(data, reference)
    else:
        width, height = raster_size(data, kind, reference)
        if kind not in ("png", "jpeg"):
            data, kind = _as_png(data), "png"
    return Picture(kind, data, reference, width, height)


def sniffed(data: bytes) -> str | None:
    """What picture `data` is by its first bytes: png, jpeg, gif, webp, bmp, tiff, or svg (XML whose first
    element is <svg>); None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:2] == b"BM" and len(data) > 26:
        return "bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if _first_tag(data) == "svg":
        return "svg"
    return None


def _first_tag(data: bytes) -> str:
    """The name of the first element of an XML or HTML file (lower case, without a prefix), or ""."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return ""
    text = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.S | re.I).lstrip()
    found = re.match(rb"<([A-Za-z_][\w.:-]*)", text)
    return found.group(1).decode("ascii").rsplit(":", 1)[-1].lower() if found else ""


def what_it_is(data: bytes) -> str:
    """What a file that is no picture seems to be, in words a teacher knows."""
    if not data.strip():
        return "empty"
    known = [(b"%PDF", "a PDF document"), (b"PK\x03\x04", "a ZIP archive (perhaps a Word, Excel or "
              "OpenOffice file)"), (b"\xd0\xcf\x11\xe0", "an old Office document"),
             (b"\x00\x00\x01\x00", "an icon file"), (b"8BPS", "a Photoshop file"), (b"{\\rtf", "a rich text document")]
    for magic, words in known:
        if data.startswith(magic):
            return words
    if data[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1", b"ftypavif"):
        return "a HEIC or AVIF photo (save it as JPEG or PNG)"
    tag = _first_tag(data)
    if tag in ("html", "head", "body"):
        return "a web page (HTML)"
    if tag:
        return f"an XML file whose first element is <{tag}>, not <svg>"
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "neither a picture nor text kitgen knows"
    return "text"


def plain_reason(error: BaseException) -> str:
    """A reader's error in words, without Python's insides: no `<... object at 0x...>`, no `(<string>, line 1)`."""
    text = str(getattr(error, "msg", "") or error)
    text = re.sub(r"\s*<[^<>]*\bat 0x[0-9a-fA-F]+>", "", text)
    text = re.sub(r"\s*\(<string>, line \d+\)", "", text)
    text = re.sub(r"\s*\bline \d+, column \d+$", "", text.strip().rstrip(","))
    text = re.sub(r"Excessive depth in document: (\d+) use XML_PARSE_HUGE option",
                  lambda found: f"elements nested more than {int(found.group(1)) - 1} deep", text)
    return text.strip(" ,:") or type(error).__name__


def _as_png(data: bytes) -> bytes:
    """A GIF, WebP, BMP or TIFF picture (its first frame) as PNG bytes."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as picture:
        picture.seek(0)
        frame = picture.convert("RGBA" if "A" in picture.getbands() or "transparency" in picture.info else "RGB")
    buffer = io.BytesIO()
    frame.save(buffer, "PNG")
    return buffer.getvalue()


def raster_size(data: bytes, kind: str, reference: str) -> tuple[int, int]:
    """The pixel size of a picture of `kind` (its first bytes') after decoding it whole (a truncated file is
    refused)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as picture:
            if (picture.format or "").lower() != kind:
                raise PictureError(f"{reference!r} is not a readable {kind.upper()} picture (its first bytes say "
                                   f"{kind.upper()}, the rest does not); expected a whole {kind.upper()} file")
            width, height = picture.size  # read from the header: nothing is decoded yet
            if width * height > MAX_PIXELS:
                raise PictureError(f"{reference!r} is {width} × {height} pixels, expected at most "
                                   f"{MAX_PIXELS // 1_000_000} million pixels")
            decoded = width * height * _bytes_per_pixel(picture.mode)
            if decoded > MAX_DECODED_BYTES:
                raise PictureError(f"{reference!r} is {width} × {height} pixels of {picture.mode}, "
                                   f"{decoded / 1_000_000:.0f} MB decoded, expected at most "
                                   f"{MAX_DECODED_BYTES // 1_000_000} MB (fewer pixels, or without transparency)")
            picture.load()
        if kind == "png":
            _check_png_rows(data, reference, width, height)
    except PictureError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, zlib.error,
            Image.DecompressionBombError) as error:
        raise PictureError(f"{reference!r} is not a readable {kind.upper()} picture ({plain_reason(error)}); "
                           f"expected a whole {kind.upper()} file") from None
    return width, height


_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type → samples a pixel


def _check_png_rows(data: bytes, reference: str, width: int, height: int) -> None:
    """A PNG's image data holds every row its header declares (PIL fills the missing rows of a cut-short file
    with black and says nothing). Interlaced files are left to PIL."""
    if len(data) < 33 or data[28] != 0 or data[25] not in _PNG_CHANNELS:
        return
    row = 1 + (width * data[24] * _PNG_CHANNELS[data[25]] + 7) // 8  # a filter byte, then the row's samples
    expected, found, at = row * height, 0, 8
    inflate = zlib.decompressobj()
    while at + 8 <= len(data) and found <= expected:
        length, kind = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 8]
        if kind == b"IDAT":
            chunk = inflate.decompress(data[at + 8:at + 8 + length], expected + 1 - found)
            found += len(chunk)
            while inflate.unconsumed_tail and found <= expected:
                found += len(inflate.decompress(inflate.unconsumed_tail, expected + 1 - found))
        elif kind == b"IEND":
            break
        at += 12 + length
    if found < expected:
        raise PictureError(f"{reference!r} is cut short: its image data holds {found // row:,} of the "
                           f"{height:,} rows its header declares, expected a whole PNG file")


def _bytes_per_pixel(mode: str) -> int:
    """What one pixel of a picture in `mode` takes decoded (PIL's modes; 4 for any it does not list here)."""
    return {"1": 1, "L": 1, "P": 1, "LA": 2, "PA": 2, "La": 2, "I;16": 2, "I;16B": 2, "I;16L": 2,
            "RGB": 3, "YCbCr": 3, "LAB": 3, "HSV": 3}.get(mode, 4)


def svg_size(data: bytes, reference: str) -> tuple[float, float]:
    """The drawing size of an SVG file, after parsing it (a file that is not SVG is refused, and so is one with a
    feature kitgen would not draw: `reference:line: what`)."""
    from lxml import etree

    from kitgen.pictures.svg import svg_drawing, svg_problem, svg_refused, SvgTooLarge

    try:
        drawing = svg_drawing(data)
    except SvgTooLarge as error:
        raise PictureError(f"{reference!r} cannot be printed: {error}") from None
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (error.lineno, 0)
        raise PictureError(f"{reference}:{line}:{column}: is not a readable SVG picture: its XML is broken "
                           f"({plain_reason(error)}); expected a whole SVG file") from None
    except Exception as error:  # svglib and lxml raise many kinds
        raise PictureError(f"{reference!r} is not a readable SVG picture ({plain_reason(error)})") from None
    refused = svg_refused(data, reference)
    if refused:
        raise PictureError(refused)
    if drawing.width <= 0 or drawing.height <= 0:
        raise PictureError(f"{reference!r} is an SVG picture without a size (width, height or viewBox)")
    try:
        problem = svg_problem(data)
    except Exception as error:  # svglib's shapes can hold anything: never an internal error
        problem = f"it cannot be drawn ({plain_reason(error)})"
    if problem:
        raise PictureError(f"{reference!r} cannot be printed: {problem}")
    return float(drawing.width), float(drawing.height)
