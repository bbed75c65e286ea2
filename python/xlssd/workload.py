"""Workloads: traces on disk and the synthetic generator, in the tagged form the core
takes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Mapping

from xlssd import _core

FORMATS = ("mqsim", "msr", "blkparse", "spc", "alibaba", "systor")


@dataclass(frozen=True)
class Trace:
    """A trace file; `format` is one of mqsim, msr, blkparse, spc, alibaba, systor, or None to
    detect it."""

    path: str
    format: str | None = None
    skip_bad_lines: bool = False

    def as_workload(self) -> dict[str, Any]:
        if not isinstance(self.path, (str, os.PathLike)):
            raise TypeError(f"Trace: `path` must be a str or a path, not {type(self.path).__name__}")
        if self.format is not None and self.format not in FORMATS:
            raise _core.ConfigError(f"unknown trace format `{self.format}`; formats are: {', '.join(FORMATS)}")
        return {
            "kind": "trace",
            "path": os.fspath(self.path),
            "format": self.format,
            "skip_bad_lines": self.skip_bad_lines,
        }


def synthetic(spec: str | Mapping[str, Any] | None, config: Mapping[str, Any]) -> dict[str, Any]:
    """A synthetic workload: the config's `[workload]` section, with a fio-like spec string
    (`rw=randread,bs=4k,n=1000`) or a dict of fields on top."""
    if not isinstance(config, Mapping):
        raise TypeError(f"synthetic(): `config` must be a dict (a resolved config), not {type(config).__name__}")
    base = dict(config.get("workload", {}))
    if spec is None:
        fields = base
    elif isinstance(spec, str):
        fields = json.loads(_core.parse_workload_spec(spec, json.dumps(base)))
    elif not isinstance(spec, Mapping):
        raise TypeError(f"synthetic(): `spec` must be a spec string, a dict or None, not {type(spec).__name__}")
    else:
        merged = {**base, **dict(spec)}
        fields = json.loads(_core.parse_workload_spec("", json.dumps(merged)))
    return {"kind": "synthetic", **fields}


def as_workload(workload: Any, config: Mapping[str, Any]) -> dict[str, Any]:
    """Turns what a user passes as a workload into the core's form."""
    if workload is None or isinstance(workload, (str, Mapping)) and not _is_tagged(workload):
        return synthetic(workload, config)
    if isinstance(workload, Trace):
        return workload.as_workload()
    if isinstance(workload, os.PathLike):
        return Trace(os.fspath(workload)).as_workload()
    if isinstance(workload, Mapping):
        return dict(workload)
    raise TypeError(f"workload must be a spec string, a dict, a Trace or a path, not {type(workload).__name__}")


def _is_tagged(w: Any) -> bool:
    return isinstance(w, Mapping) and "kind" in w
