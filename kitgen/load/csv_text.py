"""A CSV file's bytes as text (its encoding declared or detected) and its delimiter detected."""
from __future__ import annotations

from kitgen.core.errors import ContentError, Problem

DELIMITERS = ",;\t|"


def decode(raw: bytes, encoding: str | None, shown: str) -> tuple[str, tuple[int, int] | None]:
    """A CSV file's text: in the declared encoding, else UTF-16 by its mark, UTF-8 (a mark dropped) or cp1252;
    and for text read as cp1252, the line and column of its first byte that is not UTF-8."""
    if encoding:
        try:
            return raw.decode(encoding), None
        except LookupError:
            raise ContentError([Problem(shown, 1, 1, f"unknown encoding {encoding!r}, expected one such as "
                                                           "utf-8, cp1252 or latin-1")]) from None
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            raise ContentError([Problem(shown, line, 1, f"the file is not {encoding} text: {error.reason}; "
                                                              "expected the encoding declared with encoding:")]) from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16"), None
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        first_bad = error.start
    line = raw[:first_bad].count(b"\n") + 1
    start = raw.rfind(b"\n", 0, first_bad) + 1
    column = len(raw[start:first_bad].decode("utf-8", "replace")) + 1
    save = 'save it as "CSV UTF-8" in the spreadsheet program'
    if _looks_japanese(raw) and not _reads_western(raw):
        raise ContentError([Problem(shown, line, column, "expected UTF-8 text, and this looks like Shift-JIS "
                                                               f"(Japanese) from here: {save}, or add encoding: "
                                                               "shift_jis to the file's reference")])
    try:  # what spreadsheet programs on Windows save as "CSV" (Western European)
        return raw.decode("cp1252"), (line, column)
    except UnicodeDecodeError:
        raise ContentError([Problem(shown, line, column, f"expected UTF-8 text (or Windows' Western European, "
                                                               f"cp1252), and byte 0x{raw[first_bad]:02X} here is "
                                                               f"neither: {save}, or add the encoding it has "
                                                               "(encoding: ...) to the file's reference")]) from None


def _looks_japanese(raw: bytes) -> bool:
    """Do the bytes read as Shift-JIS, every character they make outside ASCII a Japanese one (kana, kanji,
    full-width forms)? Western European text saved by Windows almost never does: an accented letter is a
    Shift-JIS lead byte that a comma or a letter cannot follow."""
    try:
        text = raw.decode("cp932")
    except UnicodeDecodeError:
        return False
    wide = [char for char in text if ord(char) > 0x7F]
    return bool(wide) and all(0x3000 <= ord(char) <= 0x30FF or 0x4E00 <= ord(char) <= 0x9FFF
                              or 0xFF00 <= ord(char) <= 0xFFEF for char in wide)


def _reads_western(raw: bytes) -> bool:
    """Do the bytes read as Windows' Western European (cp1252), nearly every character outside ASCII an accented
    letter (é, à, ç, œ)? Shift-JIS read that way is mostly punctuation and symbols (`‚Ë‚±`), while French such as
    `élégant` is also valid Shift-JIS (an accented letter followed by a letter makes a kanji)."""
    try:
        text = raw.decode("cp1252")
    except UnicodeDecodeError:
        return False
    wide = [char for char in text if ord(char) > 0x7F]
    letters = sum(1 for char in wide if ("\u00c0" <= char <= "\u00ff" and char not in "×÷") or char in "œŒšŠžŽ")
    return bool(wide) and letters >= 0.8 * len(wide)


def sniff_delimiter(text: str) -> str:
    """The delimiter that splits the first non-empty line into most cells (outside quotes); ',' by default."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in first:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","
