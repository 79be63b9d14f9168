"""The authoring guide as a web page: `docs/authoring.md` rendered to one HTML file, offline, for `kitgen docs`.

The page is written to the user's cache (a temporary folder when there is none) each time it changes, and
needs nothing from the network: its style is inside it and its links go to its own headings.
"""
from __future__ import annotations

import html
import re
import tempfile
import webbrowser
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from kitgen.core.atomic import write_atomic
from kitgen.core.cache import cache_file
from kitgen.core.errors import BuildError, UsageError
from kitgen.load.library import builtin_root

_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; margin: 0; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1, h2, h3, h4 { line-height: 1.25; margin-top: 1.6em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; }
code { font: .9em/1.4 ui-monospace, monospace; background: #f2f2f2; padding: .1em .25em; border-radius: 3px; }
pre { background: #f2f2f2; padding: .75em 1em; overflow-x: auto; border-radius: 4px; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; margin: 1em 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
blockquote { margin: 1em 0; padding: 0 1em; border-left: 4px solid #ccc; color: #444; }
hr { border: 0; border-top: 1px solid #ccc; margin: 2em 0; }
.picture { color: #555; font-style: italic; }
"""


def guide_markdown() -> Path:
    """The guide's Markdown file as installed (inside the wheel, or in the source checkout)."""
    guide = builtin_root() / "docs" / "authoring.md"
    if not guide.is_file():
        raise UsageError(f"the authoring guide is missing from this installation ({guide})")
    return guide


def _plain(inline: Token) -> str:
    """A heading's text as read: its words and code, without the Markdown around them."""
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def heading_id(text: str) -> str:
    """The anchor of a heading as Markdown sites make it, so the guide's own `#links` lead to it:
    lower case, punctuation dropped, spaces as `-` ("3.9 Printing defaults" → "39-printing-defaults")."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _picture_as_words(renderer: Any, tokens: list[Token], index: int, options: Any, env: Any) -> str:
    """A picture of the guide (a screenshot beside the Markdown file) as its description: the page is one file,
    and the pictures are not installed with it."""
    words = renderer.renderInlineAsText(tokens[index].children or [], options, env)
    return f'<span class="picture">(picture: {html.escape(words)})</span>'


def guide_html(markdown: str) -> str:
    """The guide as one HTML page. Raw HTML in the Markdown is shown as text, never run; a picture as its words."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.add_render_rule("image", _picture_as_words)
    tokens = parser.parse(markdown)
    title, seen = "kitgen authoring guide", set[str]()
    for token, inline in zip(tokens, tokens[1:]):
        if token.type != "heading_open":
            continue
        text = _plain(inline)
        anchor = base = heading_id(text)
        number = 0
        while anchor in seen:  # a second heading of the same words: -1, -2 as on Markdown sites
            number += 1
            anchor = f"{base}-{number}"
        seen.add(anchor)
        token.attrSet("id", anchor)
        if token.tag == "h1" and title == "kitgen authoring guide":
            title = text
    body = parser.renderer.render(tokens, parser.options, {})
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n")


def write_guide_html() -> Path:
    """Render the installed guide and write it where the user's cache is (written again only when changed)."""
    page = guide_html(guide_markdown().read_text(encoding="utf-8")).encode()
    target = cache_file("docs", "authoring.html") or Path(tempfile.mkdtemp(prefix="kitgen-docs-")) / "authoring.html"
    try:
        unchanged = target.is_file() and target.read_bytes() == page
    except OSError:
        unchanged = False
    if not unchanged:
        write_atomic(target, page)
    return target


def open_in_browser(page: Path) -> None:
    """Open the page in the default web browser; a BuildError (exit 1) when none can be started."""
    try:
        opened = webbrowser.open(page.resolve().as_uri())
    except webbrowser.Error:
        opened = False
    if not opened:
        raise BuildError(f"no web browser could be started here; open {page} in a browser yourself")
