"""`kitgen serve`'s pages as HTML: the library, a kit's pages with its errors and options, the pictures
`picture:` can name. Each page's script listens to the server's event stream and replaces the page's body
after a save."""
from __future__ import annotations

import html
import json
import urllib.parse

from kitgen.app.printers import load_printers
from kitgen.app.serve_kits import OPTION_NAMES, ServedKits, SHOWN_NOTES, ShownKit
from kitgen.core.errors import KitgenError
from kitgen.core.units import PAPER_SIZES


class KitServer(ServedKits):
    """The kits and their pages."""

    def library_page(self) -> str:
        from kitgen.load import load_activity

        rows = []
        for activity_id, path in self.library.activity_files().items():
            try:
                title = load_activity(path).activity.title
            except Exception:  # the kit's page shows the located error
                title = "(has errors: open it to see where)"
            link = f"/kit/{urllib.parse.quote(activity_id)}{self.query_string(self.defaults)}"
            rows.append(f'<li><a href="{html.escape(link)}">{html.escape(activity_id)}</a> — {html.escape(title)}</li>')
        body = f"<h1>Activity library</h1><p class=where>{html.escape(str(self.library.content))}</p>" \
               f"<ul class=library>{''.join(rows)}</ul>"
        return _document("Activity library", body, self.generation, "/events")

    def kit_page(self, activity_id: str, query: dict[str, str]) -> str:
        shown = self.kit(activity_id, {**self.defaults, **query})
        parts = [f'<p><a href="/">← library</a></p><h1>{html.escape(shown.title or activity_id)}</h1>',
                 self._options_form(shown)]
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
        for file in shown.files:
            href = f"/kit/{urllib.parse.quote(activity_id)}/{urllib.parse.quote(file.name)}{query_string}"
            parts.append(f'<section class=file data-role="{file.role}"><h2>{html.escape(file.role.value.replace("-", " "))} '
                         f'<small>{html.escape(file.name)}, {file.pages} page{"s" if file.pages != 1 else ""} · '
                         f'<a href="{html.escape(href)}" download>download PDF</a></small></h2><div class=pages>')
            for number, fingerprint in enumerate(file.fingerprints, 1):
                parts.append(f'<img src="/page/{fingerprint}.png" alt="{html.escape(file.name)} page {number}" '
                             f'title="page {number}" loading="lazy">')
            parts.append("</div></section>")
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
h1{margin:.2em 0} h2{font-size:1.1em;margin:1.2em 0 .4em} small{font-weight:normal;color:#555}
.options label{margin-right:1.2em} .options input{width:5em} .status{color:#555}
.pages{display:flex;flex-wrap:wrap;gap:10px}
.pages img{width:223px;border:1px solid #bbb;box-shadow:0 1px 3px #0002;background:#fff}
.error{border:2px solid #b00020;background:#fff3f3;padding:.2em 1em;margin:1em 0}
.error h2{color:#b00020} .source{background:#fff;padding:.4em;margin:.3em 0;overflow-x:auto}
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


def _document(title: str, body: str, generation: int, events: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} · kitgen'
            f"</title><style>{_STYLE}</style></head><body data-generation=\"{generation}\">{body}"
            f"<script>{_SCRIPT % (generation, json.dumps(events))}</script></body></html>")

