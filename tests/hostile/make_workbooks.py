"""Writes the small hostile workbooks of this corpus (run from this folder): far-cell.xlsx, far-cell-undeclared.xlsx,
repeated-rows.ods and repeated-cells.ods (a few hundred bytes each that ask a spreadsheet reader for
terabytes), and doctype.xlsx (an entity expansion in its sheet part)."""
import zipfile

def write_zip(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members:
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            z.writestr(info, text)

def xlsx(path, sheet_xml):
    write_zip(path, [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
        ("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        ("xl/workbook.xml", '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        ("xl/_rels/workbook.xml.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
        ("xl/worksheets/sheet1.xml", sheet_xml)])

def S(ref, v):
    return f'<c r="{ref}" t="inlineStr"><is><t>{v}</t></is></c>'
head = f'<row r="1">{S("A1", "id")}{S("B1", "name")}</row><row r="2">{S("A2", "a")}{S("B2", "A")}</row>'
far = f'<row r="1048576">{S("XFD1048576", "x")}</row>'
ws = '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
xlsx("far-cell.xlsx", ws + f'<dimension ref="A1:XFD1048576"/><sheetData>{head}{far}</sheetData></worksheet>')
xlsx("far-cell-undeclared.xlsx", ws + f'<sheetData>{head}{far}</sheetData></worksheet>')

ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
def ods(path, body):
    write_zip(path, [
        ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
        ("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'),
        ("content.xml", f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns} office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Sheet1">{body}</table:table></office:spreadsheet></office:body></office:document-content>')])
def C(v, extra=""):
    return f'<table:table-cell office:value-type="string"{extra}><text:p>{v}</text:p></table:table-cell>'
top = f'<table:table-row>{C("id")}{C("name")}</table:table-row>'
ods("repeated-rows.ods", top + f'<table:table-row table:number-rows-repeated="1000000000">{C("a")}{C("A")}</table:table-row>')
many = ' table:number-columns-repeated="16384"'
ods("repeated-cells.ods", top + f'<table:table-row table:number-rows-repeated="6000">{C("x", many)}</table:table-row>')

doctype = ('<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
           '&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><worksheet '
           'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
xlsx("doctype.xlsx", doctype + f'<sheetData>{head}<row r="3">{S("A3", "&c;")}</row></sheetData></worksheet>')
