"""The drawing behind `xlssd.progress`: rich's bars and the columns they show. Imported only
when a bar is drawn, so that a quiet run does not pay for loading rich."""

from __future__ import annotations

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


def run_bar(total: int | None) -> tuple[Progress, Callable[[int, int], bool]]:
    """A bar for one run (and its set-up) and the callback feeding it."""
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


def points_bar(total: int, title: str) -> tuple[Progress, object]:
    """A bar counting points done and failed, and its task."""
    bar = Progress(
        TextColumn(title),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("done  {task.fields[failed]} failed"),
        _Rate("points"),
        TimeRemainingColumn(),
        transient=True,
        console=_console(),
    )
    return bar, bar.add_task(title, total=total, failed=0)
