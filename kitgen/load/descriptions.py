"""What every field of the content format means, one sentence each: the descriptions an editor shows on hover.

They live here rather than in `model.py` (which they would make too long) and are added to the JSON Schema
that pydantic generates from the model (`kitgen/app/schema.py`). A description naming a field the model no
longer has is an error, so the two cannot drift apart unnoticed (`tests/test_schema_descriptions.py`).
"""
from __future__ import annotations

from typing import Any

_ONE_OR_LIST = "One text, or a list of paragraphs."
_PER_PLAYER = "true: one for every player of every kit; false: one per kit (default: true)."

# model (the $defs name, Activity for the top level) → field (as written in YAML) → description
FIELDS: dict[str, dict[str, str]] = {
    "Activity": {
        "id": "The activity's id, exactly its file or folder name: lower-case letters, digits and '-'. "
              "It names the output folder and files.",
        "title": "The title, printed on every sheet, in the print guide and in the PDF titles.",
        "purpose": "One sentence on what the players do or practise, printed under the title of the player "
                   "sheets and the print guide.",
        "category": "A free label such as 'Logic and rule checking', shown with the players and minutes.",
        "players": "How many play with one kit: 2, '2-4' or {min: 2, max: 4}. The largest number decides how "
                   "many player copies of sheets, slips and mats each kit gets.",
        "minutes": "How long one round takes, in minutes: 20, '20-25' or {min: 20, max: 25}.",
        "language": "The language of the text in this file, two lower-case letters; it picks kitgen's own "
                    "printed words, such as the headings (default: en).",
        "working_title": "true adds '(working title)' after the title on the player sheets and the host key "
                         "(default: false).",
        "credits": "Who made the activity, printed in small type at the foot of every page of the player "
                   "sheets, host key and print guide.",
        "card_size": "The cut size of every card: poker (63.5 × 88.9 mm, the default), bridge, mini, tarot, "
                     "or width x height with a unit, such as 63x88mm. --card-size overrides it.",
        "font": "The type of every text: standard (DejaVu Sans, the default), legible (Atkinson "
                "Hyperlegible), or a font of the library's fonts/ folder by its file name without the style "
                "(Andika for fonts/Andika-Regular.ttf). --font overrides it.",
        "links": "Web addresses for the adult, such as a video of the rules, printed in the print guide, "
                 "each with a QR code 30 mm wide.",
        "printing": "This activity's printing defaults (duplex, fold, bleed, cut lines); an option typed on "
                    "the command line wins.",
        "rules": "The players' rules, printed on the player sheets, and notes for the adult in the print guide.",
        "decks": "The decks of cards; the cards of one deck share one back design.",
        "totals": "Card counts the rules promise; every build checks them against the decks.",
        "boards": "Mats with labelled places for real cards, printed in parts to trim and glue when larger "
                  "than the paper.",
        "slips": "Small forms printed several to a page with cut marks, for a secret choice, a bid or a guess.",
        "player_aids": "One-page summaries each player keeps in front of them, such as the phases of a turn.",
        "record_sheets": "Tables the players fill in by hand, one numbered row per turn or round.",
        "host_key": "Material for the adult only (answers, worked examples, checks), printed in a file of its "
                    "own that is checked never to reach the players' files.",
        "game": "Rules of the game that every replayed walkthrough and worked example of the kit is checked "
                "against: hand limits, sets, places on a mat, moves allowed once in some turns.",
    },
    "Link": {
        "title": "What the address is, printed beside its QR code in the print guide.",
        "url": "The web address, starting with http:// or https://.",
    },
    "CardKind": {
        "id": "How the host key names this card, unique within its deck; it is the title when there is no "
              "name. Spaces and symbols are fine (A♠, Recycling Center).",
        "count": "How many identical copies of this card to print (1 to 10,000).",
        "name": "The title printed at the top centre of the face (default: the id).",
        "symbol": "A symbol shown small at the top right and very large in the middle of the face.",
        "value": "Printed large and bold in the top-left corner; write numbers in quotes, such as \"1\".",
        "caption": "A bold line under the big symbol or picture.",
        "text": "The body text, 10 pt; made smaller (down to 7 pt) when it does not fit.",
        "footer": "A bold line near the bottom of the face.",
        "color": "The colour of the value, title and symbols: black, red, blue, green or a web colour such as "
                 "\"#c70d0d\" (default: black).",
        "image": "A picture file (PNG, JPEG or SVG), relative to the activity's folder or to the library's "
                 "images/ folder.",
        "picture": "A picture from the built-in emoji set, by its name (hedgehog) or as the emoji itself.",
        "qr": "A web address (http:// or https://) printed as a QR code on the face.",
        "layout": "How the face places its parts: text, picture, big-value, word-picture or pair "
                  "(default: the deck's).",
        "fit": "contain shows the whole picture, cover fills its box and cuts off the edges (default: the deck's).",
        "show_title": "false leaves the name off the face (default: the deck's).",
        "data": "Facts about the card (price, coins, rank) used by {{ field }} placeholders and the host-key "
                "checks; not printed by itself. Write numbers without quotes.",
    },
    "Back": {
        "title": "Printed in bold in the white panel in the middle of the back.",
        "subtitle": "A small line under the title.",
        "symbol": "A large symbol above the title.",
        "pattern": "The grey pattern around the panel: stripes (the default), dots, grid, diamonds or plain.",
        "image": "A picture file (PNG, JPEG or SVG) printed in the panel instead of the symbol.",
        "picture": "A picture from the emoji set, by name or as the emoji, printed in the panel instead of the "
                   "symbol.",
    },
    "Generate": {
        "product": "Property name → its list of values (1 to 1,000 each); one card is made for every "
                   "combination, such as 4 suits × 13 ranks = 52 cards.",
        "standard": "52 for an ordinary deck of playing cards, 32 for a piquet deck (7 to ace), printed in "
                    "the edition's language.",
        "ranks": "A standard deck's words for a rank, changed: keyed by A, 2 … 10, J, Q, K, a text or a "
                 "mapping of data.",
        "suits": "A standard deck's words for a suit, changed: keyed by spades, hearts, diamonds or clubs, a "
                 "text or a mapping of data.",
        "card": "The card every generated card follows (the fields of a card); its texts and id use the "
                "properties as {{ placeholders }}.",
    },
    "Deck": {
        "id": "The deck's id, unique among the decks; used in totals, card tables and file names.",
        "name": "The deck's name, shown in the print guide's list of what is in the kit.",
        "back": "The back design every card of this deck has.",
        "cards": "The kinds of card, each printed count times, or a spreadsheet (CSV, XLSX, ODS) with one card "
                 "a row. Give cards or generate.",
        "generate": "Makes the cards from every combination of some values, or a standard playing-card deck, "
                    "instead of listing them.",
        "optional": "true prints this deck in a file of its own, for material a class may already own "
                    "(default: false).",
        "note": "Printed after the deck in the print guide's list of what is in the kit.",
        "layout": "How the faces place their parts: text (the default), picture, big-value, word-picture or pair.",
        "fit": "How pictures fill their box: contain (the default) shows all of it, cover fills the box and "
               "cuts off the edges.",
        "show_title": "false prints no title (name) on the faces (default: true).",
    },
    "RecordSheet": {
        "id": "The record sheet's id, unique among the record sheets.",
        "title": "The heading of each copy, followed by the player or kit label.",
        "intro": "Instructions printed above the table. " + _ONE_OR_LIST,
        "columns": "1 to 12 columns, each a heading or {heading, width, fill}.",
        "rows": "How many rows to fill in.",
        "number_rows": "Writes 1, 2, 3 … in the first column (default: true).",
        "total_row": "Adds a last row labelled Total (default: false).",
        "per_player": _PER_PLAYER,
        "image": "A picture file (PNG, JPEG or SVG), relative to the activity's folder or to the library's "
                 "images/ folder, printed on each copy, under the intro.",
        "picture": "A picture from the built-in emoji set, by its name (hedgehog) or as the emoji itself, "
                   "printed on each copy, under the intro.",
        "qr": "A web address (http:// or https://) printed as a QR code on each copy, under the intro, with the address beside it.",
    },
    "HandExample": {
        "title": "The bold lead-in (default: Example 1, Example 2, …).",
        "hand": "The ids of the cards in the hand.",
        "sum": "The data field whose numbers are added up, such as coins; a dot reaches into a mapping "
               "(rank.order).",
        "unit": "The word printed after the total, such as coins.",
        "buys": "The id of a card bought with the hand; checked to be affordable.",
        "price": "The data field of the bought card that holds its price (default: price).",
        "note": "Printed after the sum.",
    },
    "HostSection": {
        "title": "The section's heading.",
        "paragraphs": "Printed first, as paragraphs. " + _ONE_OR_LIST,
        "items": "Printed after the paragraphs, one bullet each.",
    },
    "Step": {
        "cards": "Ids of the cards this step is about, printed in bold; each must exist in a deck.",
        "text": "What happens in this step.",
        "who": "The holder the step acts on (default: the previous step's, else the first holder in start).",
        "gain": "Added to who: counts such as {metal: 1}, or card ids whose worth is read through the "
                "walkthrough's values.",
        "pay": "Taken from who: counts, or card ids whose cost is read through the walkthrough's costs.",
        "build": "A card id, or a list: for each, who pays its cost and then holds one more of it.",
        "move": "Taken from who and given to the holder in to: counts, or card ids (one card each).",
        "to": "The holder a move goes to.",
        "place": "A card who holds, put face up on the place of the game's mat labelled at.",
        "at": "The label of the mat's place where the card of place goes.",
        "finds": "The card lying face down on that place, which comes into who's hand.",
        "turn": "The player's own turn number, for a move the game allows only once in some turns.",
    },
    "Walkthrough": {
        "title": "The walkthrough's heading.",
        "start": "What each holder (a player, a hand, a pile) holds at the start: holder → {name: number}; "
                 "numbers may be 0. With it the walkthrough is replayed and checked.",
        "costs": "Card data field → the counted name a payment takes it from, for pay and build with card ids "
                 "(workers: Worker).",
        "values": "Card data field → the counted name a gain of that card adds to, for gain with card ids "
                  "(coins: coins).",
        "plurals": "A counted name → the word printed when the count is not 1 (Worker: Workers).",
        "show": "The holders printed after each step, in this order (default: every holder, in the order met).",
        "end": "What the last step must leave: holder → {name: number}; checked, and printed as a sum.",
        "face_up": "Places of the game's mat already face up at the start: place label → card id.",
        "steps": "The steps, at least one, each printed as a bullet with the state it leaves.",
    },
    "Rules": {
        "prepare": "How to set up, printed under Prepare on the player sheets. " + _ONE_OR_LIST,
        "play": "How to play, printed under Play as bullets, one per paragraph. " + _ONE_OR_LIST,
        "example": "A worked example, printed under Worked example: paragraphs, or walkthroughs that are "
                   "replayed and checked.",
        "finish": "How the game ends and who wins, printed under End of the game. " + _ONE_OR_LIST,
        "adaptation": "Ways to adapt the game, printed in the print guide under Notes for the adult. "
                      + _ONE_OR_LIST,
        "about": "Background for the adult, printed in the print guide under Notes for the adult. "
                 + _ONE_OR_LIST,
        "free_alternative": "How to play without printing, printed in the print guide under Notes for the "
                            "adult. " + _ONE_OR_LIST,
        "image": "A picture file (PNG, JPEG or SVG), relative to the activity's folder or to the library's "
                 "images/ folder, printed at the end of the rules page.",
        "picture": "A picture from the built-in emoji set, by its name (hedgehog) or as the emoji itself, "
                   "printed at the end of the rules page.",
        "qr": "A web address (http:// or https://) printed as a QR code at the end of the rules page, with the address beside it.",
    },
    "Places": {
        "mat": "The id of the board (mat) whose places take the cards.",
        "fits": "The card data field a place's label must equal (rank.rank: a 7 fits place 7).",
        "wild": "Values of that field that fit any face-down place, such as K.",
        "holder": "How a place is named in the printed state (default: place, as in 'place 7').",
    },
    "OnceIn": {
        "from": "The holder the move takes from, named or by the last word of its name (hand).",
        "to": "The holder the move gives to, named or by the last word of its name.",
        "turns": "The move is allowed once in this many of the player's own turns.",
    },
    "GameRules": {
        "at_most": "Holder (or the last word of its name, such as hand) → the most it may hold, all counts "
                   "together.",
        "sets": "Holders (or their last word, such as sets) that receive named cards only as sets scored by "
                "host_key.scoring.",
        "places": "A mat whose places each take the card that fits them, face up.",
        "once_in": "Moves a player may make only once in some of their own turns.",
    },
    "DataField": {
        "field": "The cards' data field shown in this column; a dot reaches into a mapping.",
        "value": "Or a value computed from each card's data with placeholders, such as '{{ a * b }}'.",
        "heading": "The column heading.",
    },
    "Pairing": {
        "deck": "The id of the deck whose cards pair with the rows, such as the answer cards.",
        "field": "The data field (or printed text, such as value) of those cards that must equal the row's value.",
    },
    "CardTable": {
        "title": "The heading above the table.",
        "deck": "Every card kind of this deck gets a row; give deck or cards.",
        "cards": "Or these card ids get a row each.",
        "fields": "One column per entry: {field, heading} or {value, heading}.",
        "total": "The heading of an extra column that adds up each row's numbers.",
        "group_by": "One row per value of this field (or computed value), with the cards that have it.",
        "cards_heading": "The heading of the card column (default: Card, or the deck's name when grouped).",
        "places": "With group_by: ids of mats whose place labels are the only values allowed, in their order.",
        "pairs_with": "With group_by: the deck whose cards must match the rows one for one.",
    },
    "SetScoring": {
        "order": "The data field holding each card's position (a number); a set's numbers must follow each "
                 "other with no gap.",
        "size": "Cards in a set (default: 3).",
        "points": "Points for a plain set (default: 1).",
        "bonus_points": "Points instead, when a bonus applies (default: 2).",
        "bonus_same": "A data field: the bonus applies when every card of the set has the same value in it "
                      "(the same suit).",
        "bonus_all": "A data field: the bonus applies when it is true for every card of the set (all face cards).",
        "labels": "How the host key names each kind of set: run, same and all, each a short text.",
    },
    "SetExample": {
        "cards": "The ids of the cards in the set.",
        "points": "What the set should score; when given, checked against the scoring rule.",
        "note": "Printed after the points.",
    },
    "HostKey": {
        "intro": "Paragraphs under the host key's title. " + _ONE_OR_LIST,
        "examples": "Worked hands whose sums and purchases are computed from the card data and checked.",
        "walkthroughs": "Worked sequences of moves, step by step; replayed and checked when they give a start.",
        "card_tables": "Tables of card data computed from the decks, such as each robot's cost.",
        "scoring": "How a set of cards scores: the rule the sets are checked against (not printed by itself).",
        "sets": "Example sets, each with the points it scores, checked against the scoring rule.",
        "sections": "Free-form parts: a heading with paragraphs and bullets.",
    },
    "PositionGrid": {
        "columns": "How many places side by side.",
        "rows": "How many rows of places.",
        "width": "The width of one place, with its unit, such as 68mm; a few millimetres wider than the card.",
        "height": "The height of one place, with its unit, such as 94mm.",
        "gap": "The space between neighbouring places (default: 6mm).",
        "labels": "Printed large and grey in the places, row by row from the top left; or a spreadsheet column.",
        "pictures": "A picture in each place, in the order of the labels, above its label: an emoji-set name "
                    "(hedgehog) or a PNG, JPEG or SVG file; an empty text leaves a place without one.",
        "qr": "A web address printed as a QR code in each place, in the order of the labels, above its label; "
              "an empty text leaves a place without one.",
    },
    "Board": {
        "id": "The mat's id; with several mats, each goes to a file of its own.",
        "title": "Printed large across the top of the mat.",
        "positions": "The labelled places for cards, in rows and columns.",
        "note": "A line of small text along the bottom of the mat.",
        "per_player": _PER_PLAYER,
        "image": "A picture file (PNG, JPEG or SVG), relative to the activity's folder or to the library's "
                 "images/ folder, printed at the left end of the title band.",
        "picture": "A picture from the built-in emoji set, by its name (hedgehog) or as the emoji itself, "
                   "printed at the left end of the title band.",
        "qr": "A web address (http:// or https://) printed as a QR code at the right end of the title band.",
        "orientation": "How the sheets lie: portrait, landscape, or auto (default), whichever needs fewer sheets, "
                       "portrait when both need the same.",
        "fit": "page: a mat a little too big for one sheet is printed smaller on one sheet (the print guide says "
               "by how much) instead of in parts to glue; without it the places keep their size.",
    },
    "Slip": {
        "id": "The slip's id; with several slips, each goes to a file of its own.",
        "title": "Printed on the outside half of a folding slip, at the top of an open one.",
        "size": "The cut size of one slip: a card size (mini) or width x height with a unit, such as 90x60mm.",
        "per_player": "true: copies slips for every player of every kit; false: copies per kit (default: true).",
        "copies": "Slips per player, or per kit (default: 1).",
        "fold": "true adds a dashed fold line across the middle, so the written half folds out of sight "
                "(default: false).",
        "outside": "Printed under the title, on the outside half of a folding slip. " + _ONE_OR_LIST,
        "lines": "Write-in lines, each with its label.",
    },
    "AidStep": {
        "title": "The step's heading, printed with its number (1. Collect).",
        "text": "What the player does in this step.",
    },
    "PlayerAid": {
        "id": "The player aid's id, unique among the player aids.",
        "title": "The heading of the aid.",
        "steps": "The steps, at least one, each {title, text}.",
        "note": "Printed in a box at the bottom.",
        "per_player": _PER_PLAYER,
    },
    "Printing": {
        "duplex": "Backs for printing two-sided flipped on the long edge (long, the default) or the short edge "
                  "(short), or no backs (none). --duplex overrides it.",
        "fold": "true prints faces and backs side by side on one side of the sheet, to fold and glue "
                "(default: false). --fold overrides it.",
        "bleed": "How far the card design runs past the cut line, 0 to 10 mm, such as 3mm (default: none). "
                 "--bleed overrides it.",
        "cut_lines": "Crop marks in the margin (marks, the default), a thin line round every card (lines), or "
                     "both. --cut-lines overrides it.",
    },
    "Totals": {
        "cards": "How many cards all decks that are not optional hold together, checked by every build.",
        "decks": "Deck id → how many cards that deck holds, checked by every build.",
    },
}

_RANGE = {"min": "The smallest number, 1 or more.", "max": "The largest number, not smaller than min."}

# properties of a schema written by hand inside a field's schema (a short form): model → field → property
INNER: dict[str, dict[str, dict[str, str]]] = {
    "Activity": {"players": _RANGE, "minutes": _RANGE},
    "RecordSheet": {"columns": {
        "heading": "The column heading.",
        "width": "The column's share of the table width, not a length (default: 1): widths 1, 2, 1 give the "
                 "middle column half the table.",
        "fill": "Printed in every row of this column, such as a box to tick ☐.",
    }},
}


def _fill(schema: Any, descriptions: dict[str, str]) -> None:
    """Every `properties` inside `schema` (its anyOf, items, if/then/else) gets the descriptions it lacks."""
    if isinstance(schema, list):
        for item in schema:
            _fill(item, descriptions)
    elif isinstance(schema, dict):
        for name, inner in (schema.get("properties") or {}).items():
            if isinstance(inner, dict) and name in descriptions and not inner.get("description"):
                inner["description"] = descriptions[name]
        for value in schema.values():
            _fill(value, descriptions)


def describe(schema: dict[str, Any]) -> dict[str, Any]:
    """Adds the descriptions above to the schema pydantic generated (in place, and returns it).

    Raises ValueError for a description of a model or field the schema does not have."""
    models = {"Activity": schema, **schema.get("$defs", {})}
    for model, fields in FIELDS.items():
        properties = models.get(model, {}).get("properties")
        if properties is None:
            raise ValueError(f"descriptions name a model the schema lacks: {model}")
        for field, description in fields.items():
            if field not in properties:
                raise ValueError(f"descriptions name a field the schema lacks: {model}.{field}")
            properties[field]["description"] = description
    for model, inner in INNER.items():
        for field, descriptions in inner.items():
            _fill(models[model]["properties"][field], descriptions)
    return schema
