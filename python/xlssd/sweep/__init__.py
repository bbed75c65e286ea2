"""Sweeps: many simulations over config keys, workloads, schemes and seeds, run on a local
process pool or a Ray cluster into a resumable Parquet dataset.

Names are loaded on first use, so that a worker importing `xlssd.sweep.point` does not
pull in the runner (and the results store it depends on)."""

from __future__ import annotations

import importlib

_EXPORTS = {
    "LocalPool": "backends",
    "RayCluster": "ray_cluster",
    "Outcome": "runner",
    "run_points": "runner",
    "run_sweep": "runner",
    "Point": "spec",
    "Spec": "spec",
    "load_spec": "spec",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'xlssd.sweep' has no attribute {name!r}")
    return getattr(importlib.import_module(f"xlssd.sweep.{_EXPORTS[name]}"), name)
