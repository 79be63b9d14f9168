"""The printing choices a user makes, named once: what the content model, plan and render take as types."""
from __future__ import annotations

from typing import Literal

Duplex = Literal["long", "short", "none"]  # backs for a long- or short-edge flip, or none
CutLines = Literal["marks", "lines", "both"]
Ink = Literal["normal", "light"]
Font = Literal["standard", "legible"]  # DejaVu Sans, or Atkinson Hyperlegible (kitgen.fonts.registry)
