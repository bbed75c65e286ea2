"""Running one point of a sweep and turning its report into a row.

This is what a worker process or a Ray task executes. The row is built here, in the
worker, from the point's data alone, so it cannot depend on where or by whom it was run."""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from xlssd.report import WALL_CLOCK_KEYS, Report
from xlssd.run import simulate

OK = "ok"
FAILED = "failed"
#: The columns every row has, before the flattened config and report.
ID_COLUMNS = ("point_id", "status", "error", "scheme", "workload_name", "seed")


def _cell(value: Any) -> Any:
    # Lists (per-page-type latencies, per-die busy times, soft-decode levels) become JSON
    # text, so every row has the same flat, scalar columns whatever the device's shape.
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return value


def _columns(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    return {k: _cell(v) for k, v in pairs if k not in WALL_CLOCK_KEYS}


def _identity(task: Mapping[str, Any], status: str, error: str | None) -> dict[str, Any]:
    return {
        "point_id": task["point_id"],
        "status": status,
        "error": error,
        "scheme": task["scheme"],
        "workload_name": task["workload_name"],
        "seed": task["seed"],
    }


def failed_row(task: Mapping[str, Any], error: str) -> dict[str, Any]:
    """The row of a point that did not finish: its identity, config and workload, and why."""
    inputs = Report({"config": task["config"], "workload": task["workload"]})
    return {**_identity(task, FAILED, error), **_columns(inputs.flat())}


def run_point(task: Mapping[str, Any]) -> dict[str, Any]:
    """Simulates one point; a simulator error becomes a failed row rather than an exception,
    so one bad point never stops a sweep."""
    quality: dict[str, Any] = {}
    try:
        if task.get("quality"):
            # Imported here: scikit-learn takes a second, and only these points need it.
            from xlssd.quality.evaluation import in_run

            q = task["quality"]
            report, quality = in_run(task["config"], task["workload"], lba=q["lba"], read_after_h=q["read_after_h"])
        else:
            report = simulate(task["config"], task["workload"])
    except Exception as e:  # noqa: BLE001 - any failure of one point is that point's result
        return failed_row(task, f"{type(e).__name__}: {e}")
    return {**_identity(task, OK, None), **_columns(report.flat()), **quality}
