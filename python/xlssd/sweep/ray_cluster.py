"""Running points on Ray: one Ray task per point, on a running cluster or on a local Ray
instance started for the run.

Two things here are about not keeping a researcher waiting. A cluster address that nothing
answers is refused within seconds, where Ray itself would retry for minutes. And an
interrupted run (Ctrl-C, SIGTERM) stops within a second: the driver waits for results a
fraction of a second at a time, so that Python's signal handlers run; pending tasks are
cancelled (their workers killed); and a local instance is stopped without the second of
grace Ray gives its autoscaler monitor, which answers SIGTERM by trying to report to a GCS
Ray has already stopped. Only Ray's start-up (a few seconds) is not cut short: a stop that
arrives during it takes effect when it is over (`_signals_held`)."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import Any, Iterator, Mapping

from xlssd import signals
from xlssd._core import ConfigError
from xlssd.sweep.point import failed_row, run_point

Task = Mapping[str, Any]

#: A local Ray instance started for one sweep holds only small rows in its object store.
LOCAL_RAY_OBJECT_STORE_BYTES = 128 * 1024 * 1024
#: How long the cluster's address is given to accept a connection.
CONNECT_TIMEOUT_S = 3.0
#: Ray's port for a bare host (its GCS), and for a `ray://` client address.
DEFAULT_PORTS = {"": 6379, "ray://": 10001}
#: The longest the driver waits for a result before Python may run its signal handlers.
WAIT_SLICE_S = 0.05


def _host_port(address: str) -> tuple[str, int] | None:
    """Where `address` (`HOST:PORT`, `HOST`, `[IPv6]:PORT`, `ray://HOST:PORT`) says the
    cluster listens; None for the addresses Ray resolves itself (`auto`, `local`)."""
    scheme = "ray://" if address.startswith("ray://") else ""
    rest = address[len(scheme):]
    if rest in ("auto", "local") or not rest:
        return None
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else ""
    elif rest.count(":") == 1:
        host, port_text = rest.split(":")
    else:
        host, port_text = rest, ""
    if not port_text:
        return host, DEFAULT_PORTS[scheme]
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ConfigError(f"--ray {address}: `{port_text}` is not a port number (1 to 65535)")
    return host, int(port_text)


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuses, naming the address and the reason, a cluster that does not accept a TCP
    connection within `timeout_s`."""
    where = _host_port(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=timeout_s):
            pass
    except OSError as e:
        reason = f"no answer within {timeout_s:g} s" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise ConfigError(f"--ray {address}: cannot reach a Ray cluster there ({reason}); start one with "
                          "`ray start --head`, or give the address of a running one") from None


@contextlib.contextmanager
def _start_held(ray) -> Iterator[None]:
    """Ray starts with signals held (`signals.held`): stopped half-way, it leaves processes
    behind that nothing stops (its agents outlive a raylet killed while they start). Ray
    also takes SIGTERM for itself as it starts (handlers that exit at once, or after a
    graceful stop of a second or more) and after (its core's handler logs a stack and exits
    1), where the command line's stops a run as Ctrl-C does: its Python-level installer is
    kept from running meanwhile (a private part of Ray, hence the care), and the core's is
    replaced when the held signals' handlers come back."""
    utils = getattr(getattr(ray, "_private", None), "utils", None)
    installer = getattr(utils, "set_sigterm_handler", None)
    if installer is not None:
        utils.set_sigterm_handler = lambda handler: None
    try:
        with signals.held():
            yield
    finally:
        if installer is not None:
            utils.set_sigterm_handler = installer


def _stop(ray) -> None:
    """Disconnects, and stops a local instance's processes. The autoscaler monitor is
    killed first (a private part of Ray, hence the care): stopped as Ray stops it, it would
    hold the shutdown for a second."""
    node = getattr(getattr(ray, "_private", None), "worker", None)
    node = getattr(node, "_global_node", None)
    for info in (getattr(node, "all_processes", None) or {}).get("monitor", []):
        process = getattr(info, "process", None)
        if process is not None and process.poll() is None:
            process.kill()
    ray.shutdown()


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

    def check(self) -> None:
        """Refuses an address nothing answers at, before anything is written."""
        if self.address:
            check_reachable(self.address)

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
        self.check()
        try:
            with _start_held(ray):
                try:
                    if self.address:
                        ray.init(address=self.address, **common)
                    else:
                        ray.init(num_cpus=self.num_cpus, object_store_memory=self.object_store_memory, **common)
                except ConnectionError as e:
                    if not self.address:
                        raise
                    raise ConfigError(f"--ray {self.address}: {e}") from None
        except BaseException:
            # A failed start, or a stop held while Ray started: stop what it started.
            with signals.held():
                _stop(ray)
            raise
        return ray, True

    def run(self, tasks: list[Task]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        ray, started = self._init()
        pending: dict[Any, Task] = {}
        try:
            remote = ray.remote(run_point)
            pending = {remote.remote(t): t for t in tasks}
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_SLICE_S)
                for ref in done:
                    task = pending.pop(ref)
                    try:
                        yield ray.get(ref)
                    except Exception as e:  # noqa: BLE001 - a lost task fails its point only
                        yield failed_row(task, f"{type(e).__name__}: {e}")
        finally:
            # Cut short, the clean-up would leave tasks running or Ray's processes behind.
            with signals.held():
                for ref in pending:
                    ray.cancel(ref, force=True)
                if started:
                    _stop(ray)
