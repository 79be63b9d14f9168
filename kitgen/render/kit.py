"""Render every file of one kit in memory: cards, player sheets, host key and print guide."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kitgen.checks import card_texts, evaluate_hand
from kitgen.library import Library
from kitgen.load import LoadedActivity
from kitgen.locale import translations
from kitgen.plan import CardSheet, Grid
from kitgen.render.cards import Design, render_card_sheets
from kitgen.render.documents import render_document
from kitgen.render.markup import environment, render_template
from kitgen.units import to_mm


@dataclass(frozen=True)
class RenderedFile:
    name: str
    role: str
    data: bytes
    pages: int
    text: list[str]
    for_players: bool


def render_kit(loaded: LoadedActivity, library: Library, grid: Grid, sheets: Sequence[CardSheet], paper: str
               ) -> list[RenderedFile]:
    activity = loaded.activity
    env = environment(tuple(library.template_dirs(loaded.folder)), activity.language)
    _ = translations(activity.language).gettext
    stem = activity.id
    files: list[RenderedFile] = []

    if sheets:
        faces, backs = {}, {}
        for d, deck in enumerate(activity.decks):
            backs[d] = Design(d, f"{deck.id} back", render_template(env, "card-back.xml.j2", deck=deck,
                              back=deck.back, activity=activity), "back", deck.back.pattern)
            for k, card in enumerate(deck.cards):
                label = f"decks[{d}] {deck.id}, card {card.id!r}"
                faces[(d, k)] = Design((d, k), label, render_template(
                    env, "card-face.xml.j2", card=card, text=card_texts(card), deck=deck, activity=activity), "face")
        side_names = {"faces": _("faces"), "backs": _("backs")}
        data, pages = render_card_sheets(
            sheets, grid, {k: v for k, v in faces.items()}, backs,
            back_of=lambda ref: ref.deck,
            face_key=lambda ref: (ref.deck, ref.kind),
            title=f"{activity.title} · {_('cards')}",
            sheet_label=lambda n, total, side: _("%(title)s · cards · sheet %(n)d of %(total)d · %(side)s") % {
                "title": activity.title, "n": n, "total": total, "side": side_names[side]},
            ruler_note=_("Check with a ruler: this bar is 100 mm long at 100% / Actual size.")
            if paper != "letter" else _("Check with a ruler: 100 mm above, 4 in below, at 100% / Actual size."),
            letter=paper == "letter",
        )
        files.append(RenderedFile(f"{stem}-cards.pdf", "cards", data, pages, [], True))

    players = list(range(1, activity.players.max + 1))
    sheets_doc = render_document(
        render_template(env, "player-sheets.xml.j2", activity=activity, players=players),
        grid.page, title=f"{activity.title} · {_('Player sheets')}",
        footer=lambda n: f"{activity.title} · {_('Player sheets')} · {_('page')} {n}")
    files.append(RenderedFile(f"{stem}-sheets.pdf", "sheets", sheets_doc.data, sheets_doc.pages,
                              sheets_doc.text, True))

    examples = [evaluate_hand(activity, example)[0] for example in activity.host_key.examples]
    key_doc = render_document(
        render_template(env, "host-key.xml.j2", activity=activity, key=activity.host_key, examples=examples),
        grid.page, title=f"{activity.title} · {_('Host key')}",
        footer=lambda n: f"{activity.title} · {_('Host key')} · {_('for the adult only')} · {_('page')} {n}")
    files.append(RenderedFile(f"{stem}-host-key.pdf", "host-key", key_doc.data, key_doc.pages,
                              key_doc.text, False))

    card_count = sum(len(sheet.faces) for sheet in sheets)
    guide_doc = render_document(
        render_template(env, "print-guide.xml.j2", activity=activity, files=files, paper=paper,
                        card_sheets=len(sheets), card_count=card_count, per_sheet=grid.per_sheet,
                        card_mm=(round(to_mm(grid.card.width), 1), round(to_mm(grid.card.height), 1)),
                        player_count=len(players)),
        grid.page, title=f"{activity.title} · {_('Print guide')}",
        footer=lambda n: f"{activity.title} · {_('Print guide')} · {_('page')} {n}")
    files.append(RenderedFile(f"{stem}-print-guide.pdf", "print-guide", guide_doc.data, guide_doc.pages,
                              guide_doc.text, True))
    return files
