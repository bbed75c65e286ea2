"""Where points run: a local process pool (the default) or a Ray cluster (`ray_cluster`).
Both take the points' tasks and yield rows as points finish, in whatever order they finish;
a row is the same whichever backend produced it, because the worker builds it
(`point.run_point`). Both stop at once when interrupted, and the rows of points already
finished stay written."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Iterator, Mapping

from xlssd import signals
from xlssd.sweep.point import failed_row, run_point

Task = Mapping[str, Any]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group, and a batch scheduler's SIGTERM often does
    # too; the parent decides what happens to the workers (it kills them), so they must
    # neither die with a traceback of their own nor fail their points before it does.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _serve(conn: Connection) -> None:
    """A worker process: runs the points it is sent, one at a time, until its pipe closes."""
    _ignore_interrupts()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        conn.send(run_point(task))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    task: Task | None = None


class LocalPool:
    """`jobs` worker processes on this machine (default: one per core)."""

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def describe(self) -> str:
        return f"local pool of {self.jobs} process{'es' if self.jobs > 1 else ''}"

    def run(self, tasks: list[Task]) -> Iterator[dict[str, Any]]:
        # A pool of our own rather than concurrent.futures': a stop kills the workers and
        # is done. That pool's threads, interrupted so, either fail points it was asked to
        # cancel (and die with a traceback) or, had a worker been killed in the middle of
        # sending a row, wait forever for the rest of it.
        todo = deque(tasks)
        workers: list[_Worker] = []
        finished = False
        try:
            for _ in range(min(self.jobs, len(todo))):
                workers.append(_Worker(*self._spawn()))
            for w in workers:
                self._give(w, todo)
            while any(w.task is not None for w in workers):
                busy = [w for w in workers if w.task is not None]
                ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
                for w in busy:
                    if w.conn not in ready and w.process.sentinel not in ready:
                        continue
                    task, w.task = w.task, None
                    try:
                        row = w.conn.recv()
                    except (EOFError, OSError):
                        w.process.join()
                        row = failed_row(task, f"its worker process ended (exit code {w.process.exitcode})")
                        self._restart(w)
                    # The worker goes on to its next point while the row is written.
                    self._give(w, todo)
                    yield row
            finished = True
        finally:
            # Finished, the workers see their pipes close and end. Interrupted: stop what
            # is running now, rather than wait for long simulations whose rows would be
            # thrown away (killed: the workers ignore SIGTERM). A second signal must not cut
            # this short, or workers would go on running their points.
            with signals.held():
                for w in workers:
                    if not finished:
                        w.process.kill()
                    w.conn.close()
                for w in workers:
                    w.process.join()

    @staticmethod
    def _spawn() -> tuple[BaseProcess, Connection]:
        # spawn, not fork: the parent may hold threads (the progress bar's), and a forked
        # child must not inherit their locks. Started with SIGINT and SIGTERM blocked, so
        # that a stop reaching the process group while it is still importing cannot end it
        # with a traceback before `_ignore_interrupts` runs.
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        with signals.shielded_children():
            process = ctx.Process(target=_serve, args=(child,), daemon=True)
            process.start()
        child.close()
        return process, parent

    def _restart(self, w: _Worker) -> None:
        w.conn.close()
        w.process.join()
        w.process, w.conn = self._spawn()

    def _give(self, w: _Worker, todo: deque) -> None:
        """Sends `w` the next point, if any; a worker that died idle is replaced first."""
        if not todo:
            return
        task = todo.popleft()
        try:
            w.conn.send(task)
        except OSError:
            self._restart(w)
            w.conn.send(task)
        w.task = task
