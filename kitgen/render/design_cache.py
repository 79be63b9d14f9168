"""Card designs drawn once: a face or back whose inputs have not changed is taken from the cache, and so is
what a card template wrote for a card whose data has not changed.

The key is a digest of everything a drawing is made from (its template's output, its picture, the card size,
bleed and style, and kitgen's own code), never of where the card sits in its file: a drawing is stored with
the label it was drawn under (`file:line:column: decks[0].cards[3] …`, which ends up in text origins and
quality notes) and relabelled when the card has moved. The same key becomes the form's `digest`, so a backend
may reuse what it made of the drawing too.
"""
from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from contextlib import nullcontext
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any, Callable, Protocol

import jinja2

from kitgen.core.cache import code_digest, Shelf
from kitgen.core.forked import Forked, worth_sharing
from kitgen.core.display import Group, Item, Text
from kitgen.core.notes import Note
from kitgen.pictures.files import Picture
from kitgen.render.quality import collecting, note

Drawing = tuple[str, tuple[Item, ...], tuple[Note, ...]]  # a kept drawing: its label, its items, its quality notes


class DesignInputs(Protocol):
    """What a drawing of a card design is made from (`kitgen.render.cards.Design`)."""

    @property
    def kind(self) -> str: ...
    @property
    def pattern(self) -> str: ...
    @property
    def fit(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def picture(self) -> Picture | None: ...
    @property
    def xml(self) -> ET.Element: ...


@lru_cache(maxsize=256)
def _picture_digest(picture: Picture) -> bytes:
    return hashlib.blake2b(picture.data, digest_size=16).digest() + repr(
        (picture.kind, picture.width, picture.height)).encode()


def _tree(element: ET.Element) -> tuple[Any, ...]:
    """The element as nested tuples (tag, attributes, text, children, tail): `repr` of it is a quick, exact key
    (ElementTree's own serializer is several times slower)."""
    return (element.tag, sorted(element.attrib.items()) if element.attrib else None, element.text,
            [_tree(child) for child in element], element.tail)


def design_key(design: DesignInputs, *context: object) -> bytes:
    """A digest of what a drawing of `design` depends on; `context` holds the size, bleed, style and extras."""
    digest = hashlib.blake2b(code_digest(), digest_size=20)
    digest.update(repr((design.kind, design.pattern, design.fit, context)).encode())
    digest.update(design.source.encode() if design.source else repr(_tree(design.xml)).encode())
    if design.picture is not None:
        digest.update(_picture_digest(design.picture))
    return digest.digest()


def document_key(root: ET.Element, *context: object) -> bytes:
    """A digest of what a document's layout depends on: its template's output, and the paper, style, title,
    footer words and credits in `context` (with kitgen's own code and fonts)."""
    digest = hashlib.blake2b(code_digest(), digest_size=20)
    digest.update(repr((_tree(root), context)).encode())
    return digest.digest()


def _relabelled(items: tuple[Item, ...], old: str, new: str) -> tuple[Item, ...]:
    """The items with every text origin that starts with `old` starting with `new` instead."""
    def moved(item: Item) -> Item:
        if isinstance(item, Text) and item.origin.startswith(old):  # (as `replace` would, five times quicker)
            return Text(item.x, item.y, item.text, item.font, item.size, item.color, new + item.origin[len(old):])
        if isinstance(item, Group):
            return replace(item, items=tuple(moved(inner) for inner in item.items))
        return item
    return tuple(moved(item) for item in items)


class DesignCache:
    """The drawings of one card file's designs, from a shelf named after the file."""

    def __init__(self, name: str) -> None:
        self.shelf: Shelf[Drawing] = Shelf("designs", hashlib.blake2b(name.encode(), digest_size=16).hexdigest())
        self.copy: Forked[Callable[[], list[Item]], tuple[tuple[Item, ...], tuple[Note, ...]]] | None = None
        self.theirs: dict[bytes, int] = {}  # a design the copy draws → its place in the copy's results

    def share(self, designs: list[tuple[bytes, Callable[[], list[Item]]]]) -> None:
        """Before a file's designs are drawn (each design's key and drawing, in the order `drawn` will be asked
        for them): when enough are not in the cache, a forked copy of this process draws the later half of those
        while this one draws the first (`kitgen.core.forked`); `drawn` takes each of them from the copy."""
        missing = [(key, draw) for key, draw in dict(designs).items() if self.shelf.entries.get(key) is None]
        if not worth_sharing(len(missing)):
            return
        theirs = missing[len(missing) // 2:]
        self.theirs = {key: index for index, (key, _) in enumerate(theirs)}
        self.copy = Forked(_drawn_with_notes, [draw for _, draw in theirs])

    def close(self) -> None:
        """Stop the copy `share` started, if it is still drawing (the build stopped on an error)."""
        if self.copy is not None:
            self.copy.close()
            self.copy = None
            self.theirs = {}

    def drawn(self, key: bytes, label: str, draw: Callable[[], list[Item]]) -> tuple[Item, ...]:
        """What `draw` returns for the design labelled `label`: from the cache when its key is there (its
        quality notes repeated), else drawn now (or by the copy `share` started) and kept."""
        if key in self.theirs and self.copy is not None:
            copied = self.copy.results()
            if self.theirs[key] < len(copied):  # else the copy stopped before it (it failed there): drawn here
                draw = partial(_replayed, *copied[self.theirs[key]])
        found = self.shelf.get(key)
        if found is not None:
            was, items, kept_notes = found
            for kept in kept_notes:
                note(replace(kept, where=label) if kept.where == was else kept)
            return items if was == label else _relabelled(items, was, label)
        with collecting() as notes:
            items = tuple(draw())
        for made in notes:
            note(made)
        self.shelf.put(key, (label, items, tuple(notes)))
        return items

    def save(self) -> None:
        self.shelf.save()


def _drawn_with_notes(draw: Callable[[], list[Item]]) -> tuple[tuple[Item, ...], tuple[Note, ...]]:
    """A design drawn by the copy: its items and the quality notes drawing it made."""
    with collecting() as notes:
        items = tuple(draw())
    return items, tuple(notes)


def _replayed(items: tuple[Item, ...], notes: tuple[Note, ...]) -> list[Item]:
    """What the copy drew, as drawing it here would give it: its notes made again, in their order."""
    for made in notes:
        note(made)
    return list(items)


class TemplateOutputs:
    """What a template wrote, kept by a digest of its source and of the values it reads.

    Only a template that reads nothing but the names it is given is kept: its output is a function of their
    values (`jinja2.meta` lists the names; one that includes, imports or extends another, translates words or
    reads a global, is rendered every time). A card face's template reads the card, its texts and
    a few flags, never the rest of the activity, so an edited card renders again and the others do not.
    """

    def __init__(self, env: jinja2.Environment, name: str) -> None:
        self.env = env
        self.shelf: Shelf[str] = Shelf("texts", hashlib.blake2b(name.encode(), digest_size=16).hexdigest())
        self.reads: dict[str, tuple[bytes, frozenset[str]] | None] = {}

    def text(self, name: str, **context: object) -> str:
        return self.texts(name, [context])[0]

    def texts(self, name: str, contexts: list[dict[str, Any]]) -> list[str]:
        """What template `name` writes for each context, in their order; when enough are not kept, a forked copy
        of this process renders the later half of those while this one renders the first (`kitgen.core.forked`)."""
        from kitgen.render.markup import template_text

        known = self.reads.get(name, ...)
        if known is ...:
            known = self.reads[name] = _template_reads(self.env, name)
        keys: list[bytes | None] = [None] * len(contexts)
        found: list[str | None] = [None] * len(contexts)
        if known is not None:
            source, reads = known
            for index, context in enumerate(contexts):
                if reads <= context.keys():
                    digest = hashlib.blake2b(code_digest() + source + repr(
                        [(read, context[read]) for read in sorted(reads)]).encode(), digest_size=20).digest()
                    keys[index], found[index] = digest, self.shelf.get(digest)
        missing: dict[bytes | int, int] = {}  # what is rendered (by key, or by place when it has none) → a context
        for index, kept in enumerate(keys):
            if found[index] is None:
                missing.setdefault(kept if kept is not None else index, index)
        order = list(missing)
        theirs = order[len(order) // 2:] if worth_sharing(len(order)) else []

        def rendered(which: bytes | int) -> str:
            return template_text(self.env, name, **contexts[missing[which]])

        made: dict[bytes | int, str] = {}
        with (Forked(rendered, theirs) if theirs else nullcontext()) as copy:
            for which in order[:len(order) - len(theirs)]:
                made[which] = rendered(which)
            copied = copy.results() if copy is not None else []
        for place, which in enumerate(theirs):  # the copy's, or rendered here from where the copy stopped
            made[which] = copied[place] if place < len(copied) else rendered(which)
        texts = []
        for index, kept in enumerate(keys):
            text = found[index]
            if text is None:
                text = made[kept if kept is not None else index]
                if kept is not None:
                    self.shelf.put(kept, text)
            texts.append(text)
        return texts

    def save(self) -> None:
        self.shelf.save()


TRANSLATING = {"_", "gettext", "ngettext", "pgettext", "npgettext"}  # their words come from the catalogs


def _template_reads(env: jinja2.Environment, name: str) -> tuple[bytes, frozenset[str]] | None:
    """A digest of template `name`'s source and the names it reads, or None when its output may depend on more."""
    if env.loader is None:
        return None
    try:
        source = env.loader.get_source(env, name)[0]
    except jinja2.TemplateError:
        return None  # reported, with its line, when it is rendered
    return _source_reads(env, source)


@lru_cache(maxsize=64)
def _source_reads(env: jinja2.Environment, source: str) -> tuple[bytes, frozenset[str]] | None:
    """What `_template_reads` says of one source text, parsed once per process (a build's environment lives as
    long as the process: `kitgen.render.markup.environment`)."""
    from jinja2 import meta, nodes

    try:
        tree = env.parse(source)
    except jinja2.TemplateError:
        return None
    if any(tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends))):
        return None
    if {name.name for name in tree.find_all(nodes.Name)} & TRANSLATING:  # (`meta` does not list `_`)
        return None
    return hashlib.blake2b(source.encode(), digest_size=16).digest(), frozenset(meta.find_undeclared_variables(tree))
