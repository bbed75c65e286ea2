"""Workloads: traces on disk and the synthetic generator, in the tagged form the core
takes."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from xlssd import _core

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("mqsim", "msr", "blkparse", "spc", "alibaba", "systor")


class Trace:
    """A trace file; `format` is one of mqsim, msr, blkparse, spc, alibaba, systor, or None to
    detect it. Immutable, compared and hashed by its fields."""

    # A plain class rather than a dataclass: importing dataclasses (and inspect with it)
    # would add several milliseconds to every `xlssd` command's start.
    __slots__ = ("path", "format", "skip_bad_lines")
    path: str
    format: str | None
    skip_bad_lines: bool

    def __init__(self, path: str, format: str | None = None, skip_bad_lines: bool = False) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "skip_bad_lines", skip_bad_lines)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Trace is immutable: cannot set `{name}`")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Trace is immutable: cannot delete `{name}`")

    def _fields(self) -> tuple[Any, ...]:
        return (self.path, self.format, self.skip_bad_lines)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, Trace) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Trace(path={self.path!r}, format={self.format!r}, skip_bad_lines={self.skip_bad_lines!r})"

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
