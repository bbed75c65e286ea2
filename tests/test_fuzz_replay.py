"""Replays the kept corpora of the Python fuzz targets (fuzz/corpus/sweep_spec,
fuzz/corpus/py_config; docs/testing.md) through the entry functions the atheris targets
call: every input the fuzzer kept, and every crash it found, is checked on each run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fuzz" / "python"))

import targets  # noqa: E402

TARGETS = ("sweep_spec", "py_config")


def _files(target: str) -> list[Path]:
    return sorted(p for p in (ROOT / "fuzz" / "corpus" / target).iterdir() if p.is_file())


@pytest.mark.parametrize("target", TARGETS)
def test_corpus_replays(target):
    files = _files(target)
    assert files, f"fuzz/corpus/{target} is empty"
    entry = getattr(targets, target)
    for path in files:
        try:
            entry(path.read_bytes())
        except BaseException as e:  # noqa: BLE001 - name the file, whatever failed
            raise AssertionError(f"fuzz/corpus/{target}/{path.name}: {type(e).__name__}: {e}") from e
