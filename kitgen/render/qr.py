"""QR codes as vector boxes: a web address encoded by segno, drawn module by module in black on white.

A code is drawn only if each module (one black or white square of it) prints at least `MIN_MODULE` wide, with
a quiet zone of `QUIET` modules around it inside its place; otherwise the build refuses, with the place named,
since a phone cannot read a code printed smaller."""
from __future__ import annotations

from functools import lru_cache

from kitgen.core.display import Box
from kitgen.core.errors import UnprintableContent
from kitgen.plan import Rect
from kitgen.core.units import mm, to_mm

MIN_MODULE = mm(0.5)  # the smallest module a phone camera reads reliably from paper at arm's length
QUIET = 2  # modules of white around the code, inside its place (the paper around it is white too)
BLACK = (0.0,)


@lru_cache(maxsize=256)
def qr_matrix(url: str) -> tuple[tuple[bool, ...], ...]:
    """The code's modules, row by row from the top, True for black (no quiet zone)."""
    import segno

    code = segno.make(url, error="m", micro=False)
    return tuple(tuple(bool(v) for v in row) for row in code.matrix)


def qr_side(url: str) -> float:
    """The smallest side, in points, that prints the code of `url` with its quiet zone at the minimum module."""
    return (len(qr_matrix(url)) + 2 * QUIET) * MIN_MODULE


def qr_items(url: str, box: Rect, where: str) -> list[Box]:
    """The code of `url` as black boxes (one per run of black modules in a row), as large as fits `box`,
    centred; UnprintableContent naming `where` when its modules would print smaller than `MIN_MODULE`."""
    matrix = qr_matrix(url)
    count = len(matrix) + 2 * QUIET
    side = min(box.width, box.height)
    module = side / count
    if module < MIN_MODULE - 1e-9:
        raise UnprintableContent(
            f"{where}, qr: the QR code of {url!r} needs {count} modules of at least {to_mm(MIN_MODULE):g} mm, "
            f"{to_mm(qr_side(url)):.1f} mm square, but its place is {to_mm(side):.1f} mm; shorten the address or "
            f"give it more room (a larger card, fewer other parts)")
    x0 = box.x + (box.width - side) / 2 + QUIET * module
    top = box.y + (box.height + side) / 2 - QUIET * module
    items: list[Box] = []
    for r, row in enumerate(matrix):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            start = c
            while c < len(row) and row[c]:
                c += 1
            items.append(Box(round(x0 + start * module, 3), round(top - (r + 1) * module, 3),
                             round((c - start) * module, 3), round(module, 3), None, BLACK))
    return items
