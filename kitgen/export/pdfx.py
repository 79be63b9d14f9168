"""PDF/X-4 for print shops: the output intent (a CMYK profile shipped inside kitgen), the PDF/X keys of the
document information and its XMP metadata, and the colours and pictures of a file in the output intent's inks.

Neutrals (black, every grey) print in black ink alone (`0 0 0 k`); other colours are converted from sRGB to
the profile's CMYK (relative colorimetric), pictures too (over white). Nothing here reaches the network: the
profile is a file of the package (`profiles/`, with its licence).
"""
from __future__ import annotations

import io
from functools import lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import ImageCms

PDFX_VERSION = "PDF/X-4"
PROFILE_NAME = "FOGRA39L-kitgen.icc"
OUTPUT_CONDITION = "FOGRA39"  # the registered characterization the profile was computed from
OUTPUT_CONDITION_INFO = "Offset printing on coated paper, ISO 12647-2 (FOGRA39L)"
REGISTRY = "http://www.color.org"


def profile_bytes() -> bytes:
    """The destination output profile (CMYK), read from the package."""
    return (files("kitgen.export") / "profiles" / PROFILE_NAME).read_bytes()


@lru_cache(maxsize=1)
def _transform() -> "ImageCms.ImageCmsTransform":
    from PIL import ImageCms

    source = ImageCms.createProfile("sRGB")
    target = ImageCms.ImageCmsProfile(io.BytesIO(profile_bytes()))
    return ImageCms.buildTransform(source, target, "RGB", "CMYK",
                                   renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


@lru_cache(maxsize=1024)
def cmyk(color: tuple[float, ...]) -> tuple[float, float, float, float]:
    """A colour in the output intent's inks: a neutral (grey or black, one component or three equal) in black
    alone, any other colour through the profile."""
    if len(color) == 1 or len(set(color)) == 1:
        return (0.0, 0.0, 0.0, round(1.0 - color[0], 4))
    from PIL import Image, ImageCms

    pixel = Image.new("RGB", (1, 1), tuple(round(255 * max(0.0, min(1.0, c))) for c in color[:3]))
    converted = ImageCms.applyTransform(pixel, _transform())
    assert converted is not None
    values = converted.getpixel((0, 0))
    assert isinstance(values, tuple)
    return (values[0] / 255, values[1] / 255, values[2] / 255, values[3] / 255)


def cmyk_picture(data: bytes) -> Any:
    """A picture (PNG, JPEG) as a CMYK Pillow image in the profile's inks, composed over white (a PDF/X file
    with a CMYK intent holds no RGB picture)."""
    from PIL import Image, ImageCms

    with Image.open(io.BytesIO(data)) as opened:
        picture = opened.convert("RGBA")
    white = Image.new("RGBA", picture.size, (255, 255, 255, 255))
    flat = Image.alpha_composite(white, picture).convert("RGB")
    if all(flat.getchannel(0) == c for c in (flat.getchannel(1), flat.getchannel(2))):  # a grey picture: K alone
        grey = flat.getchannel(0)
        black = grey.point(lambda v: 255 - v)
        zero = Image.new("L", flat.size, 0)
        return Image.merge("CMYK", (zero, zero, zero, black))
    converted = ImageCms.applyTransform(flat, _transform())
    assert converted is not None
    return converted


def xmp(title: str, producer: str, creator: str, date: str) -> bytes:
    """The XMP metadata PDF/X-4 asks for: the version, title, dates, producer, trapping and document ids."""
    from hashlib import blake2b
    from xml.sax.saxutils import escape

    ident = blake2b(f"{title}\0{date}".encode(), digest_size=16).hexdigest()
    uuid = f"{ident[:8]}-{ident[8:12]}-{ident[12:16]}-{ident[16:20]}-{ident[20:]}"
    body = f"""<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/"
 xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(title)}</rdf:li></rdf:Alt></dc:title>
<xmp:CreateDate>{date}</xmp:CreateDate>
<xmp:ModifyDate>{date}</xmp:ModifyDate>
<xmp:MetadataDate>{date}</xmp:MetadataDate>
<xmp:CreatorTool>{escape(creator)}</xmp:CreatorTool>
<pdf:Producer>{escape(producer)}</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
<pdfxid:GTS_PDFXVersion>{PDFX_VERSION}</pdfxid:GTS_PDFXVersion>
<xmpMM:DocumentID>uuid:{uuid}</xmpMM:DocumentID>
<xmpMM:InstanceID>uuid:{uuid}</xmpMM:InstanceID>
<xmpMM:VersionID>1</xmpMM:VersionID>
<xmpMM:RenditionClass>default</xmpMM:RenditionClass>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""
    return body.encode("utf-8")


def xmp_date(when: tuple[int, ...], dhh: int, dmm: int) -> str:
    """A date (year, month, day, hours, minutes, seconds) as XMP writes it, the same instant as the document
    information's (`dhh`, `dmm`: the offset from UTC)."""
    year, month, day, hour, minute, second = when[:6]
    sign = "-" if dhh < 0 else "+"
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{sign}{abs(dhh):02d}:{dmm:02d}"


__all__ = ["OUTPUT_CONDITION", "PDFX_VERSION", "PROFILE_NAME", "cmyk", "cmyk_picture", "profile_bytes", "xmp",
           "xmp_date"]
