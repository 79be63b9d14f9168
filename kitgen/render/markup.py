"""Jinja for text: templates render a small XML vocabulary that becomes ReportLab flowables.

Content strings reach the XML only through Jinja's autoescape, so `<`, `&` and markup in content
print literally and never reach ReportLab's paragraph parser as tags.
"""
from __future__ import annotations

import gettext
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import jinja2
import jinja2.bccache
from markupsafe import escape as markup_escape
from jinja2.exceptions import SecurityError

from kitgen.jinja.budget import BoundedSandbox, BudgetExceeded, Limits
from kitgen.core.cache import cache_file, keep_sealed, recall_sealed
from kitgen.core.errors import BuildError, KitgenError, UnprintableContent
from kitgen.jinja.lookup import resolve_template
from kitgen.locale import translations

INLINE_TAGS = {"b", "i", "br"}


class ContainedLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader that refuses, before reading it, a template whose real path (after symlinks)
    leaves its folder."""

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str, Callable[[], bool]]:

        resolve_template([Path(folder) for folder in self.searchpath], template)  # raises if it leads out
        return super().get_source(environment, template)


class _SharedBytecode(jinja2.BytecodeCache):
    """Compiled templates, shared by every environment of the process and kept on disk between runs.

    Jinja checks each entry against its template's source (and its own and Python's versions) before
    using it; a cache that cannot be read or written is simply not used, and an entry that cannot be read
    (cut short, damaged) is compiled again. Entries are named with `REVISION`, the version of how kitgen
    compiles a template (it adds the budget's counting), so code compiled another way is never loaded.
    """

    REVISION = "b1"

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = self.store.get(bucket.key)
        if data is None:
            data = recall_sealed(cache_file("templates", f"{bucket.key}-{self.REVISION}.bytecode"))
        if data is not None:
            try:
                bucket.bytecode_from_string(data)
            except Exception:  # pickle and marshal raise many kinds of error on a damaged entry
                bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = bucket.bytecode_to_string()
        self.store[bucket.key] = data
        keep_sealed(cache_file("templates", f"{bucket.key}-{self.REVISION}.bytecode"), data)


_BYTECODE = _SharedBytecode()


# One render (a card face, the host key) may loop 500,000 times, make values of 5,000,000 characters and
# take 3 s; all the renders of one kit together 2,000,000 steps and 20 s. With kitgen's own templates the
# largest render of the library takes 894 steps and 28,083 characters, and a kit of 10,000 card kinds
# 60,288 steps and 804,756 characters in all.
# One render may take 200,000 steps and 3 s; the kit as a whole 600,000 steps (ten times a kit of 10,000
# card kinds), bounded by its steps and characters, not by time: a valid kit on a slow or busy machine
# must build.
LIMITS = Limits("template", steps=200_000, chars=20_000_000, value=5_000_000, seconds=3.0,
                total_steps=600_000, total_chars=100_000_000, total_seconds=float("inf"))


def environment(template_dirs: tuple[Path, ...], language: str, catalogs: tuple[Path, ...] = ()) -> BoundedSandbox:
    """The one Jinja environment for kitgen's templates: sandboxed (templates may come with content),
    autoescape, strict undefined, gettext, and a budget (`kitgen.jinja.budget`) that starts again here: each
    kit's build asks for its environment once."""
    env = _environment(template_dirs, language, catalogs)
    env.ledger.reset()
    return env


class EscapedTranslations:
    """A catalog as templates see it: a translation is text, escaped before it joins the markup a template writes
    (a catalog's `<b>` or `&` prints as it is written); the English text, when nothing translates it, is the
    template's own."""

    def __init__(self, catalog: gettext.NullTranslations) -> None:
        self.catalog = catalog

    @staticmethod
    def _text(found: str, *english: str) -> str:
        return found if found in english else markup_escape(found)

    def gettext(self, message: str) -> str:
        return self._text(self.catalog.gettext(message), message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._text(self.catalog.ngettext(singular, plural, n), singular, plural)

    def pgettext(self, context: str, message: str) -> str:
        return self._text(self.catalog.pgettext(context, message), message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._text(self.catalog.npgettext(context, singular, plural, n), singular, plural)


@lru_cache(maxsize=32)
def _environment(template_dirs: tuple[Path, ...], language: str, catalogs: tuple[Path, ...] = ()) -> BoundedSandbox:

    env = BoundedSandbox(
        LIMITS,
        loader=ContainedLoader([str(d) for d in template_dirs]),
        bytecode_cache=_BYTECODE,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    # added by the i18n extension at run time, unknown to Jinja's types
    env.install_gettext_translations(EscapedTranslations(translations(language, catalogs)),  # type: ignore[attr-defined]
                                     newstyle=True)
    return env


def compile_templates(template_dirs: tuple[Path, ...]) -> None:
    """Compile every template in these folders into the shared bytecode store (before a batch forks)."""
    env = environment(template_dirs, "en")
    for name in env.list_templates(filter_func=lambda name: name.endswith(".j2")):
        try:
            env.get_template(name)
        except (jinja2.TemplateError, KitgenError):
            pass  # a broken template (or one too big) is reported, with its line, by the build that uses it


def render_template(env: jinja2.Environment, name: str, **context: Any) -> ET.Element:
    """Render `name` and parse its XML; template mistakes (and a render that runs over its budget, exit 2)
    name the template file and line."""
    return parse_xml(template_text(env, name, **context), name)


def template_text(env: jinja2.Environment, name: str, **context: Any) -> str:
    """What template `name` writes for `context` (errors as `render_template` reports them)."""
    try:
        if isinstance(env, BoundedSandbox):
            text = env.run(env.get_template(name), context)
        else:
            text = env.get_template(name).render(**context)
    except BudgetExceeded as error:
        raise UnprintableContent(f"{_template_location(error, name)}: {error}") from None
    except RecursionError as error:
        raise UnprintableContent(f"{_template_location(error, name)}: templates call, include or extend each "
                                 "other without end; expected a template that finishes") from None
    except jinja2.TemplateSyntaxError as error:
        raise BuildError(f"{error.filename or name}:{error.lineno}: template error: {error.message}") from None
    except jinja2.UndefinedError as error:
        raise BuildError(f"{_template_location(error, name)}: template error: {error.message}") from None
    except SecurityError as error:
        raise BuildError(f"{_template_location(error, name)}: template refused by the sandbox: {error}") from None
    except jinja2.TemplateNotFound as error:
        folders = env.loader.searchpath if isinstance(env.loader, jinja2.FileSystemLoader) else []
        raise BuildError(f"template {error.name!r} not found in {', '.join(folders)}") from None
    except KitgenError:
        raise
    except (ArithmeticError, LookupError, TypeError, ValueError) as error:  # range(10**9), 1/0, [][5], ...
        what = str(error).rstrip(".")
        raise UnprintableContent(f"{_template_location(error, name)}: template error: {what}, expected a template "
                                 "that computes its text without error") from None
    return text


def parse_xml(text: str, name: str) -> ET.Element:
    """A template's output as an element tree."""
    try:
        return ET.fromstring(text)
    except ET.ParseError as error:
        raise BuildError(f"template {name} produced malformed XML ({error})") from None


def _template_location(error: Exception, name: str) -> str:
    import traceback

    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename.endswith((".j2", ".xml", ".html")):
            return f"{frame.filename}:{frame.lineno}"
    return name


def escape(text: str) -> str:
    """`&`, `<` and `>` as entities (what xml.sax.saxutils does, without importing urllib and ssl with it)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """The inverse of `escape`."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def inline_markup(element: ET.Element) -> str:
    """The element's content as ReportLab paragraph markup: text escaped, only b/i/br kept."""
    parts = [escape(element.text or "")]
    for child in element:
        if child.tag not in INLINE_TAGS:
            raise BuildError(f"template markup: <{child.tag}> is not allowed inside <{element.tag}>")
        if child.tag == "br":
            parts.append("<br/>")
        else:
            parts.append(f"<{child.tag}>{inline_markup(child)}</{child.tag}>")
        parts.append(escape(child.tail or ""))
    return "".join(parts).strip()


def plain_text(element: ET.Element) -> str:
    return "".join(element.itertext()).strip()
