"""Atomic file writes: a reader, or a run that is interrupted, sees either the old file or
the whole new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

TEMP_SUFFIX = ".tmp"


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yields a temporary path beside `path`; once the block has written it, renames it
    over `path`. The temporary file is in the same folder so that the rename is atomic."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=folder)
    os.close(fd)
    # mkstemp makes the file private; results are meant to be shared like any other file.
    os.chmod(tmp, 0o644)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def remove_stale_temporaries(folder: Path) -> None:
    """Deletes temporary files an earlier run left when it was killed mid-write."""
    for p in folder.glob(f".*{TEMP_SUFFIX}"):
        p.unlink(missing_ok=True)
