"""Progress on a terminal for anything that can take more than a moment: one simulation
(requests done, simulated time, rate, time left) or a batch of simulations (points done,
failures, rate, time left). Nothing is drawn with `--quiet` or when standard error is not a
terminal, so logs and pipes stay clean."""

from __future__ import annotations

import sys
from typing import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


def wanted(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def _console() -> Console:
    # Standard error: standard output may be carrying a report (`xlssd run --json -`).
    return Console(stderr=True)


class _Rate(ProgressColumn):
    """Completed units per second, as rich estimates it over the last few seconds."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("")
        return Text(f"{speed:,.1f} {self.unit}/s" if speed < 100 else f"{speed:,.0f} {self.unit}/s")


class _RunProgress:
    """The callback `_core.run` calls: `progress(requests_done, simulated_ns)` during the run
    and `progress.setup(stage, done, total)` while the device is set up (preconditioning)."""

    def __init__(self, bar: Progress, total: int | None):
        self._bar = bar
        self._total = total
        self._run = None
        self._stages: dict[str, object] = {}

    def setup(self, stage: str, done: int, total: int) -> bool:
        task = self._stages.get(stage)
        if task is None:
            task = self._stages[stage] = self._bar.add_task(stage, total=total, sim="", unit="pages")
        self._bar.update(task, completed=done, total=total)
        return True

    def __call__(self, done: int, sim_ns: int) -> bool:
        if self._run is None:
            for task in self._stages.values():
                self._bar.update(task, visible=False)
            self._run = self._bar.add_task("simulating", total=self._total, sim="", unit="requests")
        self._bar.update(self._run, completed=done, sim=f"{sim_ns / 1e9:.3f} s simulated")
        return True


class _Unit(ProgressColumn):
    """What a task counts (requests, pages), after its counts."""

    def render(self, task) -> Text:
        sim = task.fields.get("sim", "")
        return Text(f"{task.fields.get('unit', '')}  {sim}".rstrip())


class _TaskRate(ProgressColumn):
    """Completed units per second, in the task's own unit."""

    def render(self, task) -> Text:
        return _Rate(task.fields.get("unit", "")).render(task)


def simulation_bar(total: int | None, quiet: bool) -> tuple[Progress | None, Callable[[int, int], bool] | None]:
    """A bar for one run (and its set-up) and the callback feeding it: called as
    `progress(requests_done, simulated_ns)`, with a `setup(stage, done, total)` method;
    (None, None) when no bar is wanted."""
    if not wanted(quiet):
        return None, None
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Unit(),
        _TaskRate(),
        TimeRemainingColumn(),
        transient=True,
        console=_console(),
    )
    return bar, _RunProgress(bar, total)


class PointsBar:
    """Points done out of a total, with failures counted apart. A no-op when not wanted."""

    def __init__(self, total: int, quiet: bool, title: str = "points"):
        self.failed = 0
        self._bar = None
        if wanted(quiet) and total:
            self._bar = Progress(
                TextColumn(title),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("done  {task.fields[failed]} failed"),
                _Rate("points"),
                TimeRemainingColumn(),
                transient=True,
                console=_console(),
            )
            self._task = self._bar.add_task(title, total=total, failed=0)

    def __enter__(self) -> "PointsBar":
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, failed: bool) -> None:
        self.failed += failed
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failed)
