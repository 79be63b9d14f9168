"""Plan a whole kit: which cards go on which sheet, which slips and mat parts are printed."""
from __future__ import annotations

from dataclasses import dataclass, field

from kitgen.core.choices import Duplex
from kitgen.core.errors import PlanError
from kitgen.load.model import Activity, Board, Slip
from kitgen.plan import card_sheets, CardSheet, Grid
from kitgen.plan.imposition import impose, Sheet
from kitgen.plan.tiling import BoardLayout, place_mat, Tile
from kitgen.core.units import CardSize, PAPER_SIZES, PaperSize, parse_card_size


@dataclass(frozen=True)
class CardRef:
    """One printed card: deck and card-kind indexes within the activity, and its kit (0 = unnumbered)."""

    deck: int
    kind: int
    kit: int = 0


@dataclass(frozen=True)
class Seat:
    """One player of one kit; `kit` is 0 when only one kit is printed (no kit numbers)."""

    kit: int
    player: int


@dataclass(frozen=True)
class DeckFile:
    """Card sheets that go into one file: the main decks together, or one optional deck alone."""

    deck_ids: tuple[str, ...]
    optional: bool
    sheets: list[CardSheet[CardRef]]

    @property
    def cards(self) -> int:
        return sum(len(sheet.faces) for sheet in self.sheets)


@dataclass(frozen=True)
class SlipPlan:
    slip: Slip
    grid: Grid
    sheets: list[CardSheet[int]]  # items: copy number (0-based)


@dataclass(frozen=True)
class BoardPlan:
    board: Board
    layout: BoardLayout
    tiles: list[Tile]
    copies: list[Seat]  # one printed board per seat (player 0: one per kit)
    page: PaperSize  # the sheet it is printed on: the kit's paper, or that paper turned landscape
    scale: float = 1.0  # `fit: page`: drawn this much smaller, on one sheet


@dataclass(frozen=True)
class KitPlan:
    paper: PaperSize
    grid: Grid
    decks: list[DeckFile]
    slips: list[SlipPlan]
    boards: list[BoardPlan]
    seats: list[Seat]
    kits: int
    per_paper: dict[str, int] = field(default_factory=dict)  # cards per sheet with these options: {"a4": 9, ...}

    @property
    def kit_numbers(self) -> list[int]:
        """[0] for a single unnumbered kit, else 1..kits."""
        return [0] if self.kits == 1 else list(range(1, self.kits + 1))


def _refs(activity: Activity, indexes: list[int], kits: list[int]) -> list[CardRef]:
    """Every printed card, kit after kit, deck after deck."""
    return [CardRef(d, k, kit) for kit in kits for d in indexes for k, kind in enumerate(activity.decks[d].cards)
            for _ in range(kind.count)]


def plan_kit(activity: Activity, paper: PaperSize, card: CardSize, kits: int = 1, sheet: Sheet = Sheet(),
             narrow_mats: bool = True) -> KitPlan:
    """Everything the renderer draws for `kits` numbered kits, as plain data; nothing is drawn here. Without
    `narrow_mats` (large print: the narrow frame has no room for a 12 pt note) a mat keeps its ordinary frame."""
    grid = impose(paper, card, sheet)
    numbers = [0] if kits == 1 else list(range(1, kits + 1))
    seats = [Seat(kit, player) for kit in numbers for player in range(1, activity.players.max + 1)]
    main = [d for d, deck in enumerate(activity.decks) if not deck.optional]
    decks = []
    if main:
        decks.append(DeckFile(tuple(activity.decks[d].id for d in main), False,
                              card_sheets(_refs(activity, main, numbers), grid)))
    for d, deck in enumerate(activity.decks):
        if deck.optional:
            decks.append(DeckFile((deck.id,), True, card_sheets(_refs(activity, [d], numbers), grid)))
    slips = []
    for index, slip in enumerate(activity.slips):
        try:
            slip_grid = impose(paper, parse_card_size(slip.size), Sheet(Duplex.NONE, margin=sheet.margin))
        except PlanError as error:
            raise PlanError(str(error), ("slips", index, "size")) from None
        copies = slip.copies * (len(seats) if slip.per_player else kits)
        slips.append(SlipPlan(slip, slip_grid, card_sheets(list(range(copies)), slip_grid)))
    boards = []
    for index, board in enumerate(activity.boards):
        p = board.positions
        try:
            placed = place_mat(p.columns, p.rows, p.width, p.height, p.gap, paper, board.orientation,
                               figure=bool(board.qr or board.picture or board.image), fit=board.fit == "page",
                               narrow=narrow_mats)
        except ValueError as error:
            raise PlanError(str(error), ("boards", index, "fit")) from None
        boards.append(BoardPlan(board, placed.layout, placed.tiles,
                                [s for s in seats] if board.per_player else [Seat(k, 0) for k in numbers], placed.page,
                                placed.scale))
    return KitPlan(paper, grid, decks, slips, boards, seats, kits, per_paper(card, sheet))


def per_paper(card: CardSize, sheet: Sheet) -> dict[str, int]:
    """Cards per sheet on each paper with the same options (0 where the card does not fit)."""
    counts = {}
    for name, size in PAPER_SIZES.items():
        try:
            counts[name] = impose(size, card, sheet).per_sheet
        except PlanError:
            counts[name] = 0
    return counts
