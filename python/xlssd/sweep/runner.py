"""Running a spec's points into a results folder, skipping those already there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from xlssd import __version__
from xlssd.progress import PointsBar
from xlssd.results.store import Store
from xlssd.sweep.backends import LocalPool
from xlssd.sweep.point import FAILED
from xlssd.sweep.spec import Point, Spec


@dataclass(frozen=True)
class Outcome:
    total: int
    already_done: int
    ran: int
    failed: list[tuple[Point, str]]

    def summary(self) -> str:
        text = f"{self.total} points: {self.ran} run, {self.already_done} already done, {len(self.failed)} failed"
        for point, error in self.failed:
            text += f"\n  failed: {point.label()}: {error}"
        return text


def metadata(kind: str, spec: Spec, points: list[Point], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": spec.name,
        "description": spec.description,
        "xlssd_version": __version__,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "spec": spec.describe(),
        "points": [
            {"id": p.id, "label": p.label(), "scheme": p.scheme, "workload_name": p.workload_name,
             "seed": p.seed, "params": p.params}
            for p in points
        ],
        **(extra or {}),
    }


def run_points(points: list[Point], store: Store, backend=None, quiet: bool = False, title: str = "points") -> Outcome:
    """Runs the points not yet finished in `store`; writes each row as it arrives."""
    backend = backend or LocalPool()
    done = store.finished_ids()
    todo = [p for p in points if p.id not in done]
    by_id = {p.id: p for p in todo}
    failed: list[tuple[Point, str]] = []
    with PointsBar(len(todo), quiet, title) as bar:
        for row in backend.run([p.task() for p in todo]):
            store.write_row(row)
            bad = row["status"] == FAILED
            if bad:
                failed.append((by_id[row["point_id"]], row["error"]))
            bar.advance(bad)
    order = {p.id: i for i, p in enumerate(points)}
    failed.sort(key=lambda f: order[f[0].id])
    return Outcome(len(points), len(points) - len(todo), len(todo), failed)


def run_sweep(spec: Spec, out: str | Path, backend=None, quiet: bool = False,
              points: list[Point] | None = None) -> Outcome:
    """Expands and checks the whole spec (unless given its points) before writing
    anything, then runs it."""
    points = spec.expand() if points is None else points
    store = Store(out)
    store.prepare()
    store.write_meta(metadata("sweep", spec, points))
    return run_points(points, store, backend, quiet)
