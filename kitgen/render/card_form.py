"""A card's PDF form XObject, written in one step.

A sheet file of 2,000 distinct cards holds 2,000 forms, and ReportLab formats each one's dictionary
through a dozen generic PDF objects (names, arrays, a copied dictionary). A card form always has the
same keys, so `CardForm` writes the very same bytes from one template: the output does not change,
the save is faster.
"""
from __future__ import annotations

import zlib

from reportlab import rl_config
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase.pdfdoc import PDFFormXObject, format as pdf_format


class CardForm(PDFFormXObject):
    """A form with a shared resource dictionary and a Flate-compressed stream."""

    def format(self, document) -> bytes:
        if self.Resources is None or not self.stream or self.Annots or rl_config.useA85 or not self.compression:
            return super().format(document)  # not a card form as kitgen draws them: ReportLab's own way
        content = document.encrypt.encode(zlib.compress(self.stream))
        return b"".join((
            b"<<\n/BBox [ ", fp_str(self.lowerx, self.lowery, self.upperx, self.uppery).encode("ascii"),
            b" ] /Filter [ /FlateDecode ] /FormType 1 /Length ", str(len(content)).encode("ascii"),
            b" /Matrix [ 1 0 0 1 0 0 ] /Resources ", pdf_format(self.Resources, document),
            b" \n  /Subtype /Form /Type /XObject\n>>\nstream\n", content, b"endstream\n",
        ))


def end_card_form(canvas, resources) -> None:
    """End the form begun with `canvas.beginForm(...)`, with `resources` (a reference) as its resources.

    What `canvas.endForm` does, less the resource bookkeeping that a form with its own `Resources` ignores.
    """
    name, lowerx, lowery, upperx, uppery = canvas._formData
    form = CardForm(lowerx=lowerx, lowery=lowery, upperx=upperx, uppery=uppery)
    form.compression = canvas._pageCompression
    form.setStreamList([canvas._preamble] + canvas._code)
    form.Resources = resources
    canvas._doc.addForm(name, form)
    canvas._restartAccumulators()
    canvas.pop_state_stack()
