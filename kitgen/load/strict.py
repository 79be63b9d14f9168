"""The base of every content model (unknown keys refused, values frozen), and the picture and QR code that a
record sheet, the rules and a mat may print beside their text, named as on cards."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from kitgen.load.fields import Name, Url


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, defer_build=True)


class Illustrated(Strict):
    """A picture and a QR code beside a sheet's, a rules page's or a mat's text, named as on cards."""

    image: Name | None = None  # a PNG, JPEG or SVG file, relative to the activity's folder or the library's images/
    picture: Name | None = None  # a picture of the emoji set, by name (chipmunk) or as the emoji itself
    qr: Url | None = None  # a web address printed as a QR code

    @model_validator(mode="after")
    def _one_picture(self) -> "Illustrated":
        if self.image and self.picture:
            raise PydanticCustomError("picture", "expected either image (a file) or picture (a name), not both")
        return self
