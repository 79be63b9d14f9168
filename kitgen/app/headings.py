"""`kitgen new --from`: which card field each heading of a teacher's spreadsheet means, in the languages kitgen
ships (English, French, German, Dutch, Romanian, Spanish, Italian), checked against the column's values so
that the activity written builds: a `Picture` column of picture names is `picture`, of files `image`; a
`Nombre` column of whole numbers is `count` (French), of words `name` (Spanish)."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from kitgen.load.model import CardKind
from kitgen.pictures.emoji import named_picture
from kitgen.pictures.files import PictureError
from kitgen.load.cells import card_value, column_letters
from kitgen.load.spreadsheets import Table

# (the fields a heading may mean, most likely first; the headings, as `normal` spells them). Earlier groups
# claim a field first: a sheet with both `Name` and `Animal` takes the names from `Name`.
MEANINGS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("id",), ("id", "ids", "identifier", "identifiant", "kennung", "identificador", "identificatore",
               "identificator")),
    (("name",), ("name", "names", "nom", "noms", "naam", "namen", "nume", "nome", "title", "titre", "titel",
                 "titlu", "titolo", "titulo")),
    (("count", "name"), ("nombre",)),  # French: how many; Spanish: the name
    (("count",), ("count", "copies", "quantity", "qty", "how many", "number of cards", "number of copies",
                  "exemplaires", "quantite", "nombre de cartes", "nombre d exemplaires", "anzahl", "menge", "stuck",
                  "stuckzahl", "kopien", "aantal", "exemplaren", "hoeveelheid", "cantitate", "exemplare", "bucati",
                  "numar de carti", "cantidad", "copias", "quantita", "copie")),
    (("name",), ("word", "words", "mot", "mots", "wort", "worter", "woord", "woorden", "cuvant", "cuvinte",
                 "palabra", "parola", "animal", "animals", "animaux", "tier", "tiere", "dier", "dieren", "animale",
                 "card", "cards", "carte", "cartes", "karte", "kaart", "carta", "thing", "object", "objet", "item")),
    (("picture", "image"), ("picture", "pictures", "emoji", "emojis", "bild", "bilder", "dessin", "dessins",
                            "tekening", "plaatje", "desen", "dibujo", "disegno", "icon", "icone", "pictogram",
                            "pictogramme", "piktogramm", "pictograma")),
    (("image", "picture"), ("image", "images", "photo", "photos", "foto", "fotos", "fotografie", "afbeelding",
                            "imagine", "imagini", "imagen", "immagine", "picture file", "image file", "fichier",
                            "datei", "bestand", "fisier")),
    (("text",), ("text", "texte", "tekst", "testo", "texto", "description", "beschreibung", "beschrijving",
                 "descriere", "descripcion", "descrizione")),
    (("caption",), ("caption", "legende", "bijschrift", "onderschrift", "legenda", "leyenda", "didascalia",
                    "subtitle", "sous titre", "untertitel", "ondertitel", "subtitlu", "subtitulo", "sottotitolo")),
    (("symbol",), ("symbol", "symbols", "symbole", "symbool", "simbol", "simbolo")),
    (("value",), ("value", "valeur", "wert", "waarde", "valoare", "valor", "valore")),
    (("footer",), ("footer", "pied de page", "fusszeile", "voettekst", "subsol", "pie de pagina", "pie di pagina")),
    (("color",), ("color", "colour", "couleur", "farbe", "kleur", "culoare", "colore")),
    (("qr",), ("qr", "qr code", "link", "url", "web address", "website", "lien", "adresse web", "webadresse",
               "weblink", "koppeling", "adresa web", "enlace", "collegamento")),
    (("layout",), ("layout",)), (("fit",), ("fit",)), (("show_title",), ("show title",)),
)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg")
WHAT = {"picture": "a picture by name", "image": "a picture file", "count": "copies of the card",
        "id": "each card's id"}


def normal(heading: str) -> str:
    """A heading as looked up: lower case, accents dropped, runs of spaces and punctuation one space
    ('Quantité' → 'quantite', 'Stück-zahl' → 'stuck zahl', 'show_title' → 'show title')."""
    plain = unicodedata.normalize("NFKD", heading.casefold())
    plain = "".join(char for char in plain if not unicodedata.combining(char))
    return re.sub(r"[\W_]+", " ", plain).strip()


@lru_cache(maxsize=1)
def _meanings() -> dict[str, list[tuple[int, str]]]:
    """Each heading's (group, field) choices, most likely first."""
    found: dict[str, list[tuple[int, str]]] = {}
    for group, (fields, words) in enumerate(MEANINGS):
        for word in words:
            found.setdefault(word, []).extend((group, f) for f in fields)
    return found


@dataclass
class Column:
    """One column of the sheet as `new` maps it."""

    number: int
    heading: str
    target: str | None = None  # the card field, or None: data (or left out, with `skip`)
    skip: bool = False
    note: str = ""  # why, for the YAML comment
    files: list[str] = field(default_factory=list)  # an image column's files, to copy along

    @property
    def letters(self) -> str:
        return column_letters(self.number)


def map_columns(table: Table, fields: list[str], folder: Path) -> list[Column]:
    """Every column of the table mapped to a card field its heading names in one of kitgen's languages and its
    values fit, or to data; columns without a heading or repeating one are left out (`skip`)."""
    columns: list[Column] = []
    filled = {n for _, cells in table.rows for n, cell in enumerate(cells, 1) if cell not in ("", None)}
    width = max([len(table.headers), *(len(cells) for _, cells in table.rows)])
    seen: dict[str, int] = {}
    for number in range(1, width + 1):
        heading = table.headers[number - 1] if number <= len(table.headers) else ""
        column = Column(number, heading)
        if not heading:
            column.skip = True
            column.note = ("has values but no heading: not read (give it a heading to use it)" if number in filled
                           else "is empty: not read")
        elif heading in seen:
            column.skip = True
            column.note = f"is headed {heading!r} like column {column_letters(seen[heading])}: not read"
        seen.setdefault(heading, number)
        columns.append(column)
    claims = sorted((column.heading != name, group, place, column.number, name) for column in columns
                    if not column.skip
                    for place, (group, name) in enumerate(_meanings().get(normal(column.heading), []))
                    if name in fields)  # a field's own heading first, then by the groups' order
    taken: dict[str, Column] = {}
    for *_, number, name in claims:
        column = columns[number - 1]
        if column.target is not None or name in taken:
            continue
        why = _misfit(table, column, name, taken, folder)
        if why:
            column.note = column.note or f"kept as data: {why}"
            continue
        column.target, column.note = name, ""
        taken[name] = column
    return columns


def _adapter(name: str) -> TypeAdapter[Any]:
    info = CardKind.model_fields[name]
    kind: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return TypeAdapter(kind)


def _misfit(table: Table, column: Column, name: str, taken: dict[str, Column], folder: Path) -> str:
    """Why the column's values cannot be the field `name` of every card ('' when they can)."""
    adapter = _adapter(name)
    other = {"image": "picture", "picture": "image"}.get(name)
    values: dict[Any, int] = {}  # each value's first row
    for row, cells in table.rows:
        value = cells[column.number - 1] if column.number <= len(cells) else ""
        if value in ("", None):
            if name == "id":
                return f"row {row} has no id"
            continue
        if other in taken and cells[taken[other].number - 1] not in ("", None):
            return f"row {row} has a {other} already (a card shows one picture)"
        value = card_value(name, value)
        if name == "id" and value in values:
            return f"the id {value!r} is in rows {values[value]} and {row}"
        values.setdefault(value, row)
        try:
            adapter.validate_python(value)
        except ValidationError as error:
            return f"row {row} {str(value)[:40]!r}: {error.errors()[0]['msg']}"
        why = _picture_misfit(name, value, folder, column)
        if why:
            return f"row {row}: {why}"
    return ""


def _picture_misfit(name: str, value: Any, folder: Path, column: Column) -> str:
    if name == "picture":
        try:
            named_picture(str(value))
        except PictureError as error:
            return str(error).split(';')[0]  # no picture named 'x' in the OpenMoji set
    elif name == "image":
        path = folder / str(value)
        if Path(str(value)).is_absolute() or not path.resolve().is_relative_to(folder.resolve()):
            return f"{value!r} is outside the spreadsheet's folder"
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            return f"no picture file {value!r} beside the spreadsheet"
        column.files.append(str(value))
    return ""
