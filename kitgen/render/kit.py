"""Render every file of one kit in memory: cards, slips, mats, player sheets, host key and print guide."""
from __future__ import annotations

import gettext
import hashlib
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

import jinja2

from kitgen.fonts.registry import family
from kitgen.render.documents import Figures, render_document
from kitgen.load.source import dotted
from kitgen.pictures.emoji import EMOJI_CREDIT, EMOJI_SET, named_picture
from kitgen.core.display import Path as Drawn, walk
from kitgen.check.content import CheckedKit
from kitgen.core.errors import ContentError, Hints, Problem
from kitgen.load import LoadedActivity
from kitgen.pictures.files import KINDS as PICTURE_KINDS, library_root, Picture, PictureError, read_picture
from kitgen.core.display import Document
from kitgen.load.model import Activity, Back, CardKind, CardTable
from kitgen.load.strict import Illustrated
from kitgen.load.source import Location
from kitgen.plan.imposition import corner_zones, Rect, registration_rects
from kitgen.plan.kit import DeckFile, KitPlan, Seat, SlipPlan
from kitgen.render.boards import BoardPrint, render_boards
from kitgen.render.cards import Design, render_card_sheets, SheetText
from kitgen.core.style import LibraryFont, Style
from kitgen.core.cache import Shelf
from kitgen.render.design_cache import document_key, TemplateOutputs
from kitgen.render.markup import render_template
from kitgen.render.quality import gathered
from kitgen.core.files import OutputFile, Role
from kitgen.core.units import PAPER_SIZES, to_mm


def picture_credits(files: list[OutputFile]) -> str:
    """The credit lines the pictures printed in `files` require (read from what is drawn), joined."""

    for file in files:
        document = file.document
        if document is None:
            continue
        forms = [form.items for form in document.forms.values()] + [page.items for page in document.pages]
        if any(isinstance(item, Drawn) and item.name.startswith(EMOJI_SET) for items in forms for item in walk(items)):
            return EMOJI_CREDIT
    return ""


def root_templates(activity: Activity) -> set[str]:
    """The templates a kit of this activity renders directly."""
    roots = {"player-sheets.xml.j2", "host-key.xml.j2", "print-guide.xml.j2"}
    if activity.decks:
        roots |= {"card-face.xml.j2", "card-back.xml.j2"}
    if activity.slips:
        roots.add("slip.xml.j2")
    if activity.boards:
        roots.add("board.xml.j2")
    return roots


def card_pictures(loaded: LoadedActivity) -> tuple[dict[Location, Picture], list[Problem]]:
    """Every picture of the activity by the place of its owner (cards, backs, the rules, record sheets, mats and
    their places), found and checked, and a located problem for each that cannot be used."""

    root = library_root(loaded.path)
    found: dict[Location, Picture] = {}
    problems = []
    hints = Hints()
    activity = loaded.activity
    owners: list[tuple[Location, Back | CardKind | Illustrated]] = [(("rules",), activity.rules)]
    owners += [(("record_sheets", i), sheet) for i, sheet in enumerate(activity.record_sheets)]
    owners += [(("boards", i), board) for i, board in enumerate(activity.boards)]
    for d, deck in enumerate(activity.decks):
        owners += [(("decks", d, "back"), deck.back)]
        owners += [(("decks", d, "cards", k), card) for k, card in enumerate(deck.cards)]
    named: list[tuple[Location, str, bool]] = [
        (loc + (("image",) if owner.image else ("picture",)), owner.image or owner.picture or "", bool(owner.image))
        for loc, owner in owners if owner.image or owner.picture]
    named += [(("boards", i, "positions", "pictures", j), name, Path(name).suffix.lower() in PICTURE_KINDS)
              for i, board in enumerate(activity.boards) for j, name in enumerate(board.positions.pictures) if name]
    for loc, name, is_file in named:
        owner_loc = loc if loc[-2:-1] == ("pictures",) else loc[:-1]
        try:
            found[owner_loc] = read_picture(name, loaded.folder, root, hints) if is_file else named_picture(name, hints)
        except PictureError as error:
            problems.append(loaded.source.problem(loc, f"{dotted(loc)}: {error}"))
    return found, problems


def picture_key(loc: Location) -> str:
    """How a document or mat template names the picture of the owner at `loc`: `record_sheets.0`."""
    return ".".join(str(part) for part in loc)


@dataclass
class KitRenderer:
    """Renders one kit; `stem` prefixes every file name (the activity id, plus the language of an edition)."""

    checked: CheckedKit
    plan: KitPlan
    env: jinja2.Environment
    stem: str
    catalog: gettext.NullTranslations
    style: Style = Style()

    @property
    def activity(self) -> Activity:
        return self.checked.activity

    def where(self, loc: Location, what: str) -> str:
        """`file:line:column: decks[0].cards[1] (what)` for error messages about rendered content."""

        file, line, column = self.checked.loaded.source.position(loc)
        return f"{file}:{line}:{column}: {dotted(loc)} ({what})"

    @property
    def gettext(self) -> Callable[[str], str]:
        return self.catalog.gettext

    def file_name(self, role: str, several: bool = False, item_id: str = "") -> str:
        """`<stem>-<role>.pdf` with the role word in the edition's language (ASCII, from the catalog)."""
        words = {
            "cards": lambda c: c.pgettext("file name", "cards"),
            "optional-deck": lambda c: c.pgettext("file name", "optional-deck"),
            "slips": lambda c: c.pgettext("file name", "slips"),
            "mat": lambda c: c.pgettext("file name", "mat"),
            "sheets": lambda c: c.pgettext("file name", "sheets"),
            "host-key": lambda c: c.pgettext("file name", "host-key"),
            "print-guide": lambda c: c.pgettext("file name", "print-guide"),
        }
        return f"{self.stem}-{words[role](self.catalog)}{'-' + item_id if several else ''}.pdf"

    @property
    def letter(self) -> bool:
        return self.plan.paper == PAPER_SIZES["letter"]

    def ruler_note(self) -> str:
        _ = self.gettext
        if self.plan.grid.side is not None:  # the side layout: a ruler up each side margin
            if self.letter:
                return _("Check with a ruler: 100 mm on the left, 4 in on the right, at 100% / Actual size.")
            return _("Check with a ruler: the bar on the left is 100 mm long at 100% / Actual size.")
        if self.letter:
            return _("Check with a ruler: 100 mm above, 4 in below, at 100% / Actual size.")
        return _("Check with a ruler: this bar is 100 mm long at 100% / Actual size.")

    def sheet_text(self, title: str, what: str) -> SheetText:
        return SheetText(title, self.sheet_label(what), self.ruler_note(), self.gettext("fold here"))

    def sheet_label(self, what: str) -> Callable[[int, int, str], str]:
        _ = self.gettext
        sides = {"faces": _("faces"), "backs": _("backs"), "fold": _("faces and backs, fold on the line")}

        def label(number: int, total: int, side: str) -> str:
            return _("%(title)s · %(what)s · sheet %(n)d of %(total)d") % {
                "title": self.activity.title, "what": what, "n": number, "total": total} + (
                f" · {sides[side]}" if side in sides and what != _("slips") else "")
        return label

    def kit_label(self, kit: int) -> str:
        return self.gettext("Kit %(n)d") % {"n": kit} if kit else ""

    def seat_label(self, seat: Seat) -> str:
        player = self.gettext("Player %(n)d") % {"n": seat.player} if seat.player else ""
        return " · ".join(part for part in (player, self.kit_label(seat.kit)) if part)

    @cached_property
    def pictures(self) -> dict[Location, Picture]:
        """Every card's and back's picture, found and checked once; every bad one reported at once, located
        (`check` gathers them and renders the cards without them)."""
        found, problems = card_pictures(self.checked.loaded)
        if problems:
            error = ContentError(problems)
            if not gathered(error):
                raise error
        return found

    @cached_property
    def figures(self) -> Figures:
        """The pictures of the rules and the record sheets, by the key a template names them with, and where
        each owner is in the content."""
        owners: list[tuple[Location, str]] = [(("rules",), "rules")] + [
            (("record_sheets", i), f"record sheet {sheet.id!r}") for i, sheet in enumerate(self.activity.record_sheets)]
        return Figures({picture_key(loc): self.pictures[loc] for loc, _ in owners if loc in self.pictures},
                       {picture_key(loc): self.where(loc, what) for loc, what in owners})

    def deck_file(self, deck_file: DeckFile) -> list[OutputFile]:
        _ = self.gettext
        activity = self.activity
        pictures = self.pictures
        faces, backs = {}, {}
        contexts: list[dict[str, Any]] = []  # each face's template context, in the order of `faces`
        outputs = TemplateOutputs(self.env, repr((self.stem, deck_file.deck_ids, self.activity.language)))
        for d, deck in enumerate(activity.decks):
            if deck.id not in deck_file.deck_ids:
                continue
            back_where = self.where(("decks", d, "back"), f"back of deck {deck.id!r}")
            cards = [(k, card, self.checked.texts[(d, k)], self.where(("decks", d, "cards", k), f"card {card.id!r}"))
                     for k, card in enumerate(deck.cards)]
            for kit in self.plan.kit_numbers:
                label = self.kit_label(kit)
                prefix = f"kit{kit}-{deck.id}" if kit else deck.id
                back_picture = pictures.get(("decks", d, "back"))
                backs[(d, kit)] = Design(back_where, render_template(
                    self.env, "card-back.xml.j2", deck=deck, back=deck.back, activity=activity, kit=label,
                    picture=back_picture is not None), "back", deck.back.pattern, f"{prefix}-back", back_picture)
                for k, card, texts, where in cards:
                    picture = pictures.get(("decks", d, "cards", k))
                    show_title = card.show_title if card.show_title is not None else deck.show_title
                    contexts.append(dict(card=card, text=texts, deck=deck, activity=activity, kit=label,
                                         layout=card.layout or deck.layout, show_title=show_title,
                                         picture=picture is not None))
                    faces[(d, k, kit)] = Design(where, None, "face", stem=f"{prefix}-{card.id}", picture=picture,
                                                fit=card.fit or deck.fit, template="card-face.xml.j2")
        # every face's template output at once: a big deck's are shared with a second process
        for (key, face), source in zip(faces.items(), outputs.texts("card-face.xml.j2", contexts)):
            faces[key] = replace(face, source=source)
        outputs.save()
        if deck_file.optional:
            deck = next(d for d in activity.decks if d.id == deck_file.deck_ids[0])
            several = sum(d.optional for d in activity.decks) > 1
            name, role, what = self.file_name("optional-deck", several, deck.id), Role.OPTIONAL_CARDS, deck.name
        else:
            name, role, what = self.file_name("cards"), Role.CARDS, _("cards")
        document = render_card_sheets(
            deck_file.sheets, self.plan.grid, faces, backs,
            back_of=lambda ref: (ref.deck, ref.kit), face_key=lambda ref: (ref.deck, ref.kind, ref.kit),
            text=self.sheet_text(f"{activity.title} · {what}", what), letter=self.letter, style=self.style)
        if self.plan.grid.sheet.print_shop:
            return self.shop_files(document, name, role, [self.activity.decks[item.deck].name
                                                          for sheet in deck_file.sheets for _, item in sheet.faces])
        return [OutputFile(Path(name), role, len(document.pages), len(deck_file.sheets), document)]

    def shop_files(self, document: Document, name: str, role: Role, decks: list[str]) -> list[OutputFile]:
        """A print shop's two files of a deck file: the fronts, one card a page, and the backs, each back once
        (with the fronts it goes behind, `OutputFile.backs`, and its deck's name, `OutputFile.decks`), both
        PDF/X-4. `decks`: the deck name of each front, in page order."""
        catalog = self.catalog
        stem = name.removesuffix(".pdf")
        fronts_word, backs_word = catalog.pgettext("print shop", "fronts"), catalog.pgettext("print shop", "backs")
        fronts_file, backs_file = catalog.pgettext("file name", "fronts"), catalog.pgettext("file name", "backs")
        fronts = Document(f"{document.title} · {fronts_word}",
                          document.pages[0::2], document.forms, pdfx=True)
        backs = Document(f"{document.title} · {backs_word}", [], document.forms,
                         pdfx=True)
        behind: dict[tuple[Any, ...], list[int]] = {}
        for number, page in enumerate(document.pages[1::2], start=1):
            key = tuple(page.items)
            if key not in behind:
                behind[key] = []
                backs.pages.append(page)
            behind[key].append(number)
        files = [OutputFile(Path(f"{stem}-{fronts_file}.pdf"), role, len(fronts.pages),
                            document=fronts)]
        if backs.pages:
            files.append(OutputFile(Path(f"{stem}-{backs_file}.pdf"), role,
                                    len(backs.pages), document=backs,
                                    backs=tuple(tuple(numbers) for numbers in behind.values()),
                                    decks=tuple(decks[numbers[0] - 1] for numbers in behind.values())))
        return files

    def slip_file(self, plan: SlipPlan) -> OutputFile:
        _ = self.gettext
        slip = plan.slip
        xml = render_template(self.env, "slip.xml.j2", slip=slip, activity=self.activity)
        index = self.activity.slips.index(slip)
        design = Design(self.where(("slips", index), f"slip {slip.id!r}"), xml, "slip", stem=f"slip-{slip.id}")
        document = render_card_sheets(
            plan.sheets, plan.grid, {0: design}, None, back_of=lambda i: 0, face_key=lambda i: 0,
            text=self.sheet_text(f"{self.activity.title} · {slip.title}", _("slips")), letter=self.letter,
            style=self.style)
        document.pdfx = plan.grid.sheet.print_shop  # a print shop's file: PDF/X-4 like the cards
        name = self.file_name("slips", len(self.activity.slips) > 1, slip.id)
        return OutputFile(Path(name), Role.SLIPS, len(document.pages), document=document)

    def board_files(self) -> list[OutputFile]:
        _ = self.gettext
        files = []
        for plan in self.plan.boards:
            board = plan.board
            number = self.activity.boards.index(board)
            key = picture_key(("boards", number))
            xml = render_template(self.env, "board.xml.j2", board=board, activity=self.activity, key=key)
            pictures = {picture_key(loc): picture for loc, picture in self.pictures.items()
                        if loc[:2] == ("boards", number)}
            prints = []
            for seat in plan.copies:
                owner = f" · {self.seat_label(seat)}" if self.seat_label(seat) else ""
                labels = [f"{board.title}{owner}" + (" · " + _("part %(n)d of %(total)d") % {
                          "n": t.number, "total": len(plan.tiles)} if len(plan.tiles) > 1 else "")
                          for t in plan.tiles]  # a mat on one sheet is no "part 1 of 1"
                if plan.layout.compact:  # the owner alone, in the title band beside the title
                    labels = [self.seat_label(seat)]
                prints.append(BoardPrint(xml, plan.layout, plan.tiles, labels, _(
                    "Trim the later parts along the dashed line, lay each over its neighbour so the ⊕ marks "
                    "meet, and glue.") if len(plan.tiles) > 1 else "",
                    self.where(("boards", number), f"mat {board.id!r}"), pictures, self.style.light, plan.scale))
            document = render_boards(prints, plan.page, title=f"{self.activity.title} · {board.title}",
                                     large_print=self.style.large_print)
            name = self.file_name("mat", len(self.activity.boards) > 1, board.id)
            files.append(OutputFile(Path(name), Role.MAT, len(document.pages), document=document))
        return files

    def document(self, template: str, role: Role, label: str, picture_credits: str = "",
                 **context: Any) -> OutputFile:
        _ = self.gettext
        activity = self.activity
        seats = [{"label": self.seat_label(seat), "kit": seat.kit, "player": seat.player} for seat in self.plan.seats]
        kits = [{"number": kit, "label": self.kit_label(kit)} for kit in self.plan.kit_numbers]
        root = render_template(self.env, template, activity=activity, seats=seats, kits=kits, **context)
        adult_only = _("for the adult only")
        page_word = _("page")
        suffix = f" · {adult_only}" if role is Role.HOST_KEY else ""
        title = f"{activity.title} · {label}"
        credits = " · ".join(c for c in (activity.credits, picture_credits) if c)
        figures = self.figures
        key = document_key(root, self.plan.paper, self.style, title, suffix, page_word, credits,
                           sorted((name, hashlib.sha1(p.data).hexdigest()) for name, p in figures.pictures.items()))
        document = self.documents.get(key)
        if document is None:  # (platypus is imported only when a document is laid out: an edit to a card needs none)

            document = render_document(root, self.plan.paper, large_print=self.style.large_print, title=title,
                                       footer=lambda n: f"{title}{suffix} · {page_word} {n}", credits=credits,
                                       light=self.style.light, for_players=role is Role.SHEETS,
                                       figures=figures).document
            self.documents.put(key, document)
        return OutputFile(Path(self.file_name(role.value)), role, len(document.pages), document=document)

    @cached_property
    def documents(self) -> Shelf[Document]:
        """The kit's rules, record sheets, host key and guide as laid out before, by what they were made from."""
        return Shelf("documents", hashlib.blake2b(self.stem.encode(), digest_size=16).hexdigest())

    def printing(self) -> dict[str, Any]:
        """The printing choices, as the print guide states them."""
        sheet, style = self.plan.grid.sheet, self.style
        return {"duplex": sheet.duplex, "fold": sheet.fold, "bleed": f"{to_mm(sheet.bleed):g}" if sheet.bleed else "",
                "margin": f"{to_mm(sheet.margin):g}", "guides": self.plan.grid.guides and not self.plan.grid.short_marks,
                "short_marks": self.plan.grid.short_marks,
                "side": self.plan.grid.side is not None, "per_paper": self.plan.per_paper,
                "print_shop": sheet.print_shop, "cutter": sheet.cutter, "cricut": style.cricut,
                "cut_lines": style.cut_lines, "ink": style.ink, "large_print": style.large_print,
                "back_offset": ",".join(f"{to_mm(v):g}" for v in style.back_offset),
                "font": style.font.name if isinstance(style.font, LibraryFont) else "",
                "font_licence": f"fonts/{style.font.licence.name}" if isinstance(style.font, LibraryFont)
                and style.font.licence else "",
                **(self.cutter_facts() if sheet.cutter else {})}

    def cutter_facts(self) -> dict[str, str]:
        """The print-then-cut numbers the guide gives, measured on the sheet's layout: the registration marks'
        length, thickness and inset, the side of each marked corner's clear zone, and how far the nearest card
        (with its bleed) stays from a mark."""
        grid = self.plan.grid
        marks = [r for rects in registration_rects(grid.page).values() for r in rects]
        cards = [grid.cell(i).inset(-grid.sheet.bleed) for i in range(grid.per_sheet)]

        def gap(a: Rect, b: Rect) -> float:
            dx = max(b.x - a.right, a.x - b.right, 0.0)
            dy = max(b.y - a.top, a.y - b.top, 0.0)
            return float((dx * dx + dy * dy) ** 0.5)
        square = registration_rects(grid.page)["square"][0]
        bar = registration_rects(grid.page)["top-right"][0]
        return {"reg_length": _mm(bar.width), "reg_thickness": _mm(bar.height), "reg_inset": _mm(square.x),
                "reg_zone": _mm(corner_zones(grid.page)[0].width),
                "reg_nearest": f"{to_mm(min(gap(m, c) for m in marks for c in cards)):.1f}"}

    def totals(self, files: list[OutputFile]) -> dict[str, int]:
        """Sheets of plain paper and card stock, cards to cut and a rough cutting time, for the print guide."""
        shop = [f for f in files if f.document is not None and f.document.pdfx]  # printed by the shop
        card_stock = sum(f.sheets for f in files if f.role.card_stock and f not in shop)
        plain = sum(f.sheets for f in files if not f.role.card_stock and f not in shop)
        grid = self.plan.grid
        pieces = sum(d.cards for d in self.plan.decks) + sum(
            len(sheet.faces) for slip in self.plan.slips for sheet in slip.sheets)
        cuts = sum(len(d.sheets) for d in self.plan.decks) * (grid.columns + grid.rows + 2) + sum(
            len(s.sheets) * (s.grid.columns + s.grid.rows + 2) for s in self.plan.slips)
        return {"card_stock": card_stock, "plain": plain, "cards": pieces, "shop_pages": sum(f.pages for f in shop),
                "cutting_minutes": max(1, round(cuts * 10 / 60))}  # about 10 s a straight cut with a ruler

    def host_key_context(self) -> dict[str, Any]:
        checked = self.checked
        return {"key": self.activity.host_key, "examples": checked.hands, "sets": checked.sets,
                "tables": [(table, self._table_headings(table), [(row.label, row.values, row.total) for row in rows])
                           for table, rows in checked.tables],
                "replays": checked.replays}

    def _table_headings(self, table: CardTable) -> list[str]:
        """A host-key card table's column headings: the card (or the value a grouped table groups by, then its
        cards, headed by their deck's name), each field, and the total."""
        card = table.cards_heading or self.gettext("Card")
        if table.group_by is not None:
            deck = next((d for d in self.activity.decks if d.id == table.deck), None)
            card = table.cards_heading or (deck.name if deck else card)
            return [table.group_by.heading, card] + [f.heading for f in table.fields]
        return [card] + [f.heading for f in table.fields] + ([table.total] if table.total else [])

    def render(self) -> list[OutputFile]:

        with family(self.style.font):  # every text of every file in the kit's font family
            return self._render()

    def _render(self) -> list[OutputFile]:
        _ = self.gettext
        files = [file for deck_file in self.plan.decks for file in self.deck_file(deck_file)]
        files += [self.slip_file(slip) for slip in self.plan.slips]
        files += self.board_files()
        files.append(self.document("player-sheets.xml.j2", Role.SHEETS, _("Player sheets"),
                                   worked=self.checked.examples))
        files.append(self.document("host-key.xml.j2", Role.HOST_KEY, _("Host key"), **self.host_key_context()))
        files.append(self.print_guide(files))
        self.documents.save()
        return files

    def print_guide(self, files: list[OutputFile]) -> OutputFile:
        """Which file on which paper; its totals count every other file's sheets ("and this guide")."""
        grid = self.plan.grid
        main = next((d for d in self.plan.decks if not d.optional), None)
        return self.document(
            "print-guide.xml.j2", Role.PRINT_GUIDE, self.gettext("Print guide"), files=files,
            paper="letter" if self.letter else "a4", per_sheet=grid.per_sheet,
            card_count=main.cards if main else 0, card_sheets=len(main.sheets) if main else 0,
            card_mm=(round(to_mm(grid.card.width), 1), round(to_mm(grid.card.height), 1)),
            player_count=len(self.plan.seats), kit_count=self.plan.kits, printing=self.printing(),
            totals=self.totals(files), picture_credits=picture_credits(files), shop=shop_facts(files),
            mat_pages=[{"landscape": plan.page.width > plan.page.height, "percent": round(plan.scale * 100)}
                       for plan in self.plan.boards])


def _mm(points: float) -> str:
    return f"{to_mm(points):.3f}".rstrip("0").rstrip(".")


def _ranges(numbers: tuple[int, ...]) -> str:
    """1, 2, 3, 7 → "1–3, 7"."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def shop_facts(files: list[OutputFile]) -> list[dict[str, Any]]:
    """What the print guide says of each print-shop file, measured from its pages (their size and boxes): the
    page and trim sizes in mm, the bleed, and for a backs file each back's deck, count and fronts."""
    facts = []
    for file in files:
        document = file.document
        if document is None or not document.pdfx or not document.pages:
            continue
        page = document.pages[0]
        x0, y0, x1, y1 = page.boxes["trim"]
        facts.append({
            "name": file.name, "pages": len(document.pages), "width": _mm(page.width), "height": _mm(page.height),
            "trim_width": _mm(x1 - x0), "trim_height": _mm(y1 - y0), "bleed": _mm(x0),
            "backs": [{"page": n, "deck": deck, "count": len(fronts), "fronts": _ranges(fronts)}
                      for n, (deck, fronts) in enumerate(zip(file.decks, file.backs), start=1)]})
    return facts
