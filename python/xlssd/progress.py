"""Progress on a terminal for anything that can take more than a moment: one simulation
(requests done, simulated time, rate, time left) or a batch of simulations (points done,
failures, rate, time left). Nothing is drawn with `--quiet` or when standard error is not a
terminal, so logs and pipes stay clean."""

from __future__ import annotations

import sys
from collections.abc import Callable

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any


def wanted(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def simulation_bar(total: int | None, quiet: bool) -> tuple[Any, Callable[[int, int], bool] | None]:
    """A bar for one run (and its set-up) and the callback feeding it: called as
    `progress(requests_done, simulated_ns)`, with a `setup(stage, done, total)` method;
    (None, None) when no bar is wanted."""
    if not wanted(quiet):
        return None, None
    from xlssd.bars import run_bar

    return run_bar(total)


class PointsBar:
    """Points done out of a total, with failures counted apart. A no-op when not wanted."""

    def __init__(self, total: int, quiet: bool, title: str = "points"):
        self.failed = 0
        self._bar = None
        if wanted(quiet) and total:
            from xlssd.bars import points_bar

            self._bar, self._task = points_bar(total, title)

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
