"""Where points run: a local process pool (the default) or a Ray cluster (`ray_cluster`).
Both take the points' tasks and yield rows as points finish, in whatever order they finish;
a row is the same whichever backend produced it, because the worker builds it
(`point.run_point`). Both stop at once when interrupted, and the rows of points already
finished stay written."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Iterator, Mapping

from xlssd import signals
from xlssd.sweep.point import failed_row, run_point

Task = Mapping[str, Any]

#: multiprocessing's resource tracker, a process of its own, warns at its end about the
#: semaphores of a pool whose workers were killed (a stop) and unlinks them; its warnings
#: would land on the terminal after the command's own last line. It takes the parent's -W
#: options when it starts, so this one silences exactly those warnings.
QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group, and a batch scheduler's SIGTERM often does
    # too; the parent decides what happens to the workers (it kills them), so they must
    # neither die with a traceback of their own nor fail their points before it does.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


class LocalPool:
    """`jobs` worker processes on this machine (default: one per core)."""

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def describe(self) -> str:
        return f"local pool of {self.jobs} process{'es' if self.jobs > 1 else ''}"

    def run(self, tasks: list[Task]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        # spawn, not fork: the parent may hold threads (the progress bar's), and a forked
        # child must not inherit their locks.
        ctx = multiprocessing.get_context("spawn")
        if QUIET_TRACKER not in sys.warnoptions:
            sys.warnoptions.append(QUIET_TRACKER)
        pool = ProcessPoolExecutor(min(self.jobs, len(tasks)), mp_context=ctx, initializer=_ignore_interrupts)
        finished = False
        try:
            pending = {pool.submit(run_point, t): t for t in tasks}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    task = pending.pop(fut)
                    try:
                        yield fut.result()
                    except Exception as e:  # noqa: BLE001 - a worker that died fails its point only
                        yield failed_row(task, f"{type(e).__name__}: {e}")
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                # Interrupted: drop what has not started and stop what is running now,
                # rather than waiting for long simulations whose rows would be thrown away.
                # (Killed: the workers ignore SIGTERM.) A second signal must not cut this
                # short, or workers would go on running their points.
                with signals.held():
                    pool.shutdown(wait=False, cancel_futures=True)
                    for child in multiprocessing.active_children():
                        child.kill()
