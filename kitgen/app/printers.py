"""Named printer profiles (a measured back offset), kept in the user's config file."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from kitgen.core.errors import UsageError


def config_file() -> Path:
    """`$KITGEN_CONFIG`, else `$XDG_CONFIG_HOME/kitgen/printers.json`, else `~/.config/kitgen/printers.json`."""
    if os.environ.get("KITGEN_CONFIG"):
        return Path(os.environ["KITGEN_CONFIG"])
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "kitgen" / "printers.json"


def parse_offset(text: str) -> tuple[float, float]:
    """`'1.5,-0.8'` (millimetres) → (1.5, -0.8)."""
    match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*(?:mm)?\s*", text)
    if not match:
        raise UsageError(f"expected a back offset in mm such as '1.5,-0.8', got {text!r}")
    return float(match[1]), float(match[2])


def load_printers() -> dict[str, dict[str, Any]]:
    path = config_file()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: cannot read printer profiles ({error})") from None
    return data if isinstance(data, dict) else {}


def save_printer(name: str, back_offset_mm: tuple[float, float]) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,40}", name):
        raise UsageError(f"{name!r} is not a usable printer name (letters, digits, '-', '_', '.')")
    printers = load_printers()
    printers[name] = {"back_offset_mm": list(back_offset_mm)}
    from kitgen.core.atomic import write_atomic

    path = config_file()
    write_atomic(path, (json.dumps(printers, indent=2, sort_keys=True) + "\n").encode())
    return path


def printer_offset(name: str) -> tuple[float, float]:
    printers = load_printers()
    if name not in printers:
        known = ", ".join(sorted(printers)) or "none yet (kitgen printer add NAME --back-offset X,Y)"
        raise UsageError(f"no printer profile {name!r}; profiles: {known}")
    x, y = printers[name]["back_offset_mm"]
    return float(x), float(y)
