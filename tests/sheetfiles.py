"""Minimal XLSX and ODS writers (inline strings and numbers) for the spreadsheet tests and examples: no dependency."""
import zipfile
from xml.sax.saxutils import escape


def _col(n):
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def write_xlsx(path, sheets, merged=None):
    """sheets: {name: [[cell, ...], ...]}; a cell is str, int, float or None. merged: {name: ["A1:C1", ...]}, the
    cells merged as a spreadsheet program saves them (the value in the first, the others empty)."""
    merged = merged or {}
    names = list(sheets)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                   + "".join(f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(len(names)))
                   + "</Types>")
        z.writestr("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        z.writestr("xl/workbook.xml", '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                   'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
                   + "".join(f'<sheet name="{escape(n)}" sheetId="{i + 1}" r:id="rId{i + 1}"/>' for i, n in enumerate(names))
                   + "</sheets></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   + "".join(f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{i + 1}.xml"/>' for i in range(len(names)))
                   + "</Relationships>")
        for i, name in enumerate(names):
            rows = []
            for r, row in enumerate(sheets[name], 1):
                cells = []
                for c, value in enumerate(row, 1):
                    ref = f"{_col(c)}{r}"
                    if value is None or value == "":
                        continue
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        cells.append(f'<c r="{ref}"><v>{value}</v></c>')
                    else:
                        cells.append(f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(str(value))}</t></is></c>')
                rows.append(f'<row r="{r}">{"".join(cells)}</row>')
            z.writestr(f"xl/worksheets/sheet{i + 1}.xml", '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                       f'<sheetData>{"".join(rows)}</sheetData>'
                       + (f'<mergeCells count="{len(merged[name])}">'
                          + "".join(f'<mergeCell ref="{ref}"/>' for ref in merged[name]) + "</mergeCells>"
                          if merged.get(name) else "")
                       + "</worksheet>")


def write_ods(path, sheets, spans=None):
    """spans: {name: {(row, column): n}} (0-based): that cell spans n columns, as a merged cell is saved, and the
    n - 1 cells it covers follow it."""
    spans = spans or {}
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    tables = []
    for name, rows in sheets.items():
        out = []
        for r, row in enumerate(rows):
            cells = []
            covered = 0
            for c, value in enumerate(row):
                span = spans.get(name, {}).get((r, c))
                if covered:
                    covered -= 1
                    cells.append("<table:covered-table-cell/>")
                elif span:
                    covered = span - 1
                    cells.append(f'<table:table-cell table:number-columns-spanned="{span}" office:value-type="string">'
                                 f'<text:p>{escape(str(value))}</text:p></table:table-cell>')
                elif value is None or value == "":
                    cells.append("<table:table-cell/>")
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    cells.append(f'<table:table-cell office:value-type="float" office:value="{value}"><text:p>{value}</text:p></table:table-cell>')
                else:
                    cells.append(f'<table:table-cell office:value-type="string"><text:p>{escape(str(value))}</text:p></table:table-cell>')
            out.append(f"<table:table-row>{''.join(cells)}</table:table-row>")
        tables.append(f'<table:table table:name="{escape(name)}">{"".join(out)}</table:table>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                   '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                   '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>')
        z.writestr("content.xml", f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns} office:version="1.2"><office:body><office:spreadsheet>'
                   f'{"".join(tables)}</office:spreadsheet></office:body></office:document-content>')
