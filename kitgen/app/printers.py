"""Named printer profiles (a measured back offset), kept in the user's config file."""
from __future__ import annotations

import json
import math
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


MAX_CONFIG_BYTES = 1_000_000
MAX_OFFSET_MM = 20.0  # the range of --back-offset


DUPLEX_MODES = ("long", "short")  # the flips a back offset is measured for
DUPLEX_MEASURED = "long"  # a profile saved before the duplex mode was stored was measured for the default flip


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number of mm")


def _profile_problem(profile: object) -> str | None:
    """What is wrong with one profile, or None: `{"back_offset_mm": [X, Y]}`, two finite mm within the range."""
    if not isinstance(profile, dict) or "back_offset_mm" not in profile:
        return f"expected {{\"back_offset_mm\": [X, Y]}}, got {profile!r:.80}"
    pair = profile["back_offset_mm"]
    if profile.get("duplex", DUPLEX_MEASURED) not in DUPLEX_MODES:
        return f"duplex: expected 'long' or 'short' (the flip the offset was measured with), got " \
               f"{profile['duplex']!r:.80}"
    if not (isinstance(pair, list) and len(pair) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    and abs(v) <= MAX_OFFSET_MM for v in pair)):
        return (f"back_offset_mm: expected [X, Y], two numbers of mm between {-MAX_OFFSET_MM:g} and "
                f"{MAX_OFFSET_MM:g}, got {pair!r:.80}")
    return None


def load_printers() -> dict[str, dict[str, Any]]:
    """The saved profiles, each checked: a file kitgen cannot use is named with what is wrong (exit 2)."""
    path = config_file()
    if not path.exists():
        return {}
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise UsageError(f"{path}: the printer profiles file is {path.stat().st_size:,} bytes, expected at "
                             f"most {MAX_CONFIG_BYTES:,}")
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise UsageError(f"{path}: cannot read printer profiles (values nest too deep), expected "
                         f"{{\"NAME\": {{\"back_offset_mm\": [X, Y]}}}}") from None
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: cannot read printer profiles ({error})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected printer profiles as {{\"NAME\": {{\"back_offset_mm\": [X, Y]}}}}, "
                         f"got {type(data).__name__}")
    for name, profile in data.items():
        problem = _profile_problem(profile)
        if problem:
            raise UsageError(f"{path}: printer {name!r}: {problem}")
    return data


def save_printer(name: str, back_offset_mm: tuple[float, float], duplex: str = DUPLEX_MEASURED) -> Path:
    """Save the offset measured on the calibration page printed with the flip `duplex` ('long' or 'short')."""
    if duplex not in DUPLEX_MODES:
        raise UsageError(f"expected --duplex long or short (the flip the calibration page was printed with), "
                         f"got {duplex!r}")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,40}", name):
        raise UsageError(f"{name!r} is not a usable printer name (letters, digits, '-', '_', '.')")
    printers = load_printers()
    printers[name] = {"back_offset_mm": list(back_offset_mm), "duplex": duplex}
    from kitgen.core.atomic import write_atomic

    path = config_file()
    write_atomic(path, (json.dumps(printers, indent=2, sort_keys=True) + "\n").encode())
    return path


def printer_duplex(profile: dict[str, Any]) -> str:
    """The flip a profile's offset was measured with: its `duplex`, or long for a profile saved without one."""
    return str(profile.get("duplex", DUPLEX_MEASURED))


def printer_offset(name: str, duplex: str | None = None) -> tuple[float, float]:
    """The back offset of profile `name`. With `duplex` (the build's flip, 'long' or 'short'), a profile measured
    with the other flip is refused: flipped on the other edge the back lands shifted another way, so its offset
    would move the backs wrong."""
    printers = load_printers()
    if name not in printers:
        known = ", ".join(sorted(printers)) or "none yet (kitgen printer add NAME --back-offset X,Y)"
        raise UsageError(f"no printer profile {name!r}; profiles: {known}")
    measured = printer_duplex(printers[name])
    if duplex in DUPLEX_MODES and duplex != measured:
        raise UsageError(f"printer {name!r} was measured flipping on the {measured} edge, and this build prints "
                         f"backs for a flip on the {duplex} edge: its back offset would shift them wrong. Print "
                         f"kitgen calibrate --duplex {duplex}, then save a profile for it (kitgen printer add "
                         f"NAME --back-offset X,Y --duplex {duplex}), or build with --duplex {measured}")
    x, y = printers[name]["back_offset_mm"]
    return float(x), float(y)
