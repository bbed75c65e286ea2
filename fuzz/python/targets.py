"""Entry points of the Python fuzz targets (docs/testing.md), one per target. The atheris
scripts beside this file call them with the fuzzer's bytes, and tests/test_fuzz_replay.py
with every file of the kept corpus (fuzz/corpus/<target>/).

Each takes any bytes. The contract checked: an input either loads or is refused with a
`ConfigError` (a `FileError` is one) whose message is not empty; any other exception,
which the command line would show as a traceback, is a finding. What loads is checked
further: a sweep spec's points are expanded and each is a resolved config, a config
resolves again to itself."""

from __future__ import annotations

import atexit
import json
import math
import shutil
import tempfile
from pathlib import Path

from xlssd._core import ConfigError
from xlssd.config import load_config, resolve
from xlssd.sweep.spec import load_spec

#: A sweep spec whose points outnumber this is loaded and checked, but not expanded.
MAX_POINTS = 32
#: `--set` items taken from a config input's lines.
MAX_SETS = 8

_FOLDER: Path | None = None


def folder() -> Path:
    """A scratch folder for this process, holding a config file (`base.toml`) and a trace
    (`t.trace`) that specs may name; the input goes to a file beside them."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="xlssd-fuzz-"))
        atexit.register(shutil.rmtree, _FOLDER, True)
        (_FOLDER / "base.toml").write_text('base = "tiny"\n[gc]\npolicy = "fifo"\n')
        (_FOLDER / "t.trace").write_text("0 0 0 8 0\n1000 0 8 8 1\n")
    return _FOLDER


def _refused(e: ConfigError) -> None:
    assert str(e).strip(), f"{type(e).__name__} with an empty message"


def sweep_spec(data: bytes) -> None:
    """`data` as a sweep spec file (`xlssd sweep SPEC`): loaded, and when it loads, checked
    part by part and expanded into its points."""
    path = folder() / "spec.toml"
    path.write_bytes(data)
    try:
        spec = load_spec(path)
        n = len(spec.workloads) * len(spec.schemes) * len(spec.seeds or [0])
        n *= max(len(spec.points), 1) * math.prod(len(v) if isinstance(v, list) else 1 for v in spec.grid.values())
        if n > MAX_POINTS:
            spec._check_parts()
            return
        points = spec.expand()
    except ConfigError as e:
        _refused(e)
        return
    assert points, "a spec that expands has points"
    assert len({p.id for p in points}) == len(points), "two points share an id"
    for p in points:
        assert isinstance(p.config, dict) and p.workload.get("kind") in ("synthetic", "trace"), p
        json.dumps(p.task())  # what a worker is sent is plain data


def py_config(data: bytes) -> None:
    """`data` as a config file (`--config FILE`), and its first line as a preset name
    (`--preset NAME`) with its next lines holding `=` as `--set` items."""
    path = folder() / "config.toml"
    path.write_bytes(data)
    try:
        cfg = load_config(file=path)
    except ConfigError as e:
        _refused(e)
    else:
        assert resolve(cfg) == cfg, "a resolved config resolves to itself"
    lines = data.decode("utf-8", "replace").splitlines() or [""]
    sets = [line for line in lines[1:] if "=" in line][:MAX_SETS]
    try:
        cfg = load_config(preset=lines[0].strip(), sets=sets)
    except ConfigError as e:
        _refused(e)
    else:
        assert resolve(cfg) == cfg, "a resolved config resolves to itself"
