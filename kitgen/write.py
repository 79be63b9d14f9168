"""Write stage: every output file is written atomically, and a manifest records what kitgen made."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

MANIFEST = "manifest.json"


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_outputs(folder: Path, files: dict[str, bytes], record: dict) -> list[Path]:
    """Write every file (all rendered before anything is written), then the manifest last."""
    written = []
    for name, data in files.items():
        write_atomic(folder / name, data)
        written.append(folder / name)
    manifest = dict(record, files={name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                                   for name, data in files.items()})
    write_atomic(folder / MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    return written
