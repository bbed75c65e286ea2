"""Where points run: a local process pool (the default) or a Ray cluster. Both take the
points' tasks and yield rows as points finish, in whatever order they finish; a row is the
same whichever backend produced it, because the worker builds it (`point.run_point`)."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Iterator, Mapping

from xlssd._core import ConfigError
from xlssd.sweep.point import failed_row, run_point

Task = Mapping[str, Any]

#: A local Ray instance started for one sweep holds only small rows in its object store.
LOCAL_RAY_OBJECT_STORE_BYTES = 128 * 1024 * 1024


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; the parent decides what happens to the
    # workers, so they must not die with a traceback of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
                pool.shutdown(wait=False, cancel_futures=True)
                for child in multiprocessing.active_children():
                    child.terminate()


class RayCluster:
    """One Ray task per point, on the cluster at `address`, or on a local Ray instance
    started for this run (and stopped after it) when no address is given."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None,
                 object_store_memory: int = LOCAL_RAY_OBJECT_STORE_BYTES):
        self.address = address
        self.num_cpus = num_cpus
        self.object_store_memory = object_store_memory

    def describe(self) -> str:
        return f"Ray cluster at {self.address}" if self.address else "local Ray instance"

    def _init(self):
        if not self.address:
            # A single-machine instance needs no network: keep Ray on the loopback interface
            # (as it does on macOS) instead of listening on every interface. Read at import.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        import ray

        if ray.is_initialized():
            return ray, False
        # Ray's own start-up chatter would bury the sweep's output; its errors still show.
        common = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        if self.address:
            try:
                ray.init(address=self.address, **common)
            except ConnectionError as e:
                raise ConfigError(f"--ray {self.address}: {e}") from None
        else:
            ray.init(num_cpus=self.num_cpus, object_store_memory=self.object_store_memory, **common)
        return ray, True

    def run(self, tasks: list[Task]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        ray, started = self._init()
        try:
            remote = ray.remote(run_point)
            pending = {remote.remote(t): t for t in tasks}
            try:
                while pending:
                    done, _ = ray.wait(list(pending), num_returns=1)
                    for ref in done:
                        task = pending.pop(ref)
                        try:
                            yield ray.get(ref)
                        except Exception as e:  # noqa: BLE001 - a lost task fails its point only
                            yield failed_row(task, f"{type(e).__name__}: {e}")
            finally:
                for ref in pending:
                    ray.cancel(ref, force=True)
        finally:
            if started:
                ray.shutdown()
