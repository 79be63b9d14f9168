"""Read YAML safely into plain data, remembering where every value came from."""
from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from kitgen.core.errors import ContentError, display_path, Problem
from kitgen.load.source import Location, SourceMap

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~20× faster, same marks
MAX_FILE_BYTES = 2_000_000
MAX_NODES = 200_000  # bounds alias expansion ("billion laughs")
MAX_DEPTH = 64
PLAIN_TAGS = {f"tag:yaml.org,2002:{name}" for name in
              ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge")}
STR_TAG = "tag:yaml.org,2002:str"
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")

def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Converter:
    """Turns a composed YAML node tree into dicts, lists and scalars, filling a SourceMap."""

    def __init__(self, source: SourceMap):
        self.source = source
        self.problems: list[Problem] = []
        self.nodes = 0
        self.scalars = yaml.SafeLoader("")  # only its scalar constructors are used

    def convert(self, node: yaml.Node, loc: Location) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ContentError([Problem(self.source.file, *_mark(node),
                                        f"the document expands to more than {MAX_NODES} values "
                                        "(too many aliases?), expected a plain activity file")])
        if len(loc) > MAX_DEPTH:
            raise ContentError([Problem(self.source.file, *_mark(node),
                                        f"values nest more than {MAX_DEPTH} levels deep, expected a plain activity file")])
        if node.tag not in PLAIN_TAGS:
            raise ContentError([Problem(self.source.file, *_mark(node),
                                        f"the tag {node.tag!r} is not allowed, expected plain YAML values")])
        self.source.values.setdefault(loc, (self.source.file, *_mark(node)))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, loc)
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, loc + (i,)) for i, item in enumerate(node.value)]
        value = self._scalar(node, loc)
        if isinstance(value, str):
            bad = CONTROL.search(value)
            if bad:
                where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
                self.problems.append(Problem(self.source.file, *_mark(node),
                                             f"{where}: the text holds the control character U+{ord(bad[0]):04X}, "
                                             "expected printable text"))
        return value

    def _scalar(self, node: yaml.Node, loc: Location) -> Any:
        """A scalar's value; one Python refuses to make (a whole number of more than 4,300 digits) is a
        located problem."""
        if node.tag == STR_TAG:  # most values: the constructor would return the text as it is
            return node.value
        try:
            return self.scalars.construct_object(node, deep=True)
        except ValueError as error:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
            digits = len(str(node.value).lstrip("+-").replace("_", ""))
            reason = (f"a number of {digits:,} digits, expected at most {sys.get_int_max_str_digits():,}"
                      if "digits" in str(error) else f"{error}, expected a plain value")
            self.problems.append(Problem(self.source.file, *_mark(node), f"{where + ': ' if where else ''}{reason}"))
            return None

    def _mapping(self, node: yaml.MappingNode, loc: Location) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged = self.convert(value_node, loc)
                for item in merged if isinstance(merged, list) else [merged]:
                    if isinstance(item, dict):
                        for k, v in item.items():
                            result.setdefault(k, v)
                continue
            key = self._scalar(key_node, loc) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                self.problems.append(Problem(self.source.file, *_mark(key_node),
                                             "a key must be a plain word, expected a name such as 'title'"))
                continue
            if key in result:
                self.problems.append(Problem(self.source.file, *_mark(key_node),
                                             f"duplicate key {key!r}, expected each key once per mapping"))
                continue
            self.source.keys[loc + (key,)] = (self.source.file, *_mark(key_node))
            result[key] = self.convert(value_node, loc + (key,))
        return result


def _read_text(path: Path) -> str:
    """The file's text; its size is checked before it is read, and reading stops past the limit (a file that
    grows meanwhile), so a huge file never reaches memory."""
    shown = display_path(path)

    def too_large(size: int) -> ContentError:
        return ContentError([Problem(shown, 1, 1, f"the file is {size:,} bytes, expected at most {MAX_FILE_BYTES:,}")])

    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise too_large(size)
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ContentError([Problem(shown, 1, 1, f"cannot read the file: {error.strerror}")]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise too_large(max(len(raw), size))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise ContentError([Problem(shown, line, column, "the file is not UTF-8 text, "
                                    "expected UTF-8 (save it again as UTF-8)")]) from None
    if not text.strip():
        raise ContentError([Problem(shown, 1, 1, "the file is empty, expected an activity")])
    return text


def read_yaml(path: Path) -> tuple[Any, SourceMap]:
    """Parse one YAML file into plain data and its source map; syntax errors become ContentError.

    Parsed once per process and file version (the result must not be modified).
    """
    try:
        stat = path.stat()
    except OSError:
        return _read_yaml(path, (0, 0, 0, -1))
    return _read_yaml(path, (stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size))


@lru_cache(maxsize=256)
def _read_yaml(path: Path, version: tuple[int, int, int, int]) -> tuple[Any, SourceMap]:
    shown = display_path(path)
    text = _read_text(path)
    source = SourceMap(shown)
    try:
        node = yaml.compose(text, Loader=LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = (error.problem or "invalid YAML").strip()
        lines = text.splitlines()
        if "tab" in what.lower() or (0 < line <= len(lines) and "\t" in lines[line - 1]):
            what += " (tabs cannot indent YAML, use spaces)"
        context = f" {error.context}" if error.context else ""
        if error.context_mark and error.problem_mark and error.context_mark.line != error.problem_mark.line:
            context += f" that starts at line {error.context_mark.line + 1}, column {error.context_mark.column + 1}"
        raise ContentError([Problem(shown, line, column,
                                    f"YAML syntax: {what}{context}; expected well-formed YAML")]) from None
    except yaml.YAMLError as error:
        raise ContentError([Problem(shown, 1, 1, f"YAML syntax: {error}")]) from None
    if node is None:
        raise ContentError([Problem(shown, 1, 1, "the file holds no YAML document, expected an activity")])
    converter = _Converter(source)
    try:
        data = converter.convert(node, ())
    except yaml.constructor.ConstructorError as error:
        mark = error.problem_mark
        raise ContentError([Problem(shown, mark.line + 1 if mark else 1, mark.column + 1 if mark else 1,
                                    f"{error.problem}; expected plain YAML values")]) from None
    if converter.problems:
        raise ContentError(converter.problems)
    return data, source
