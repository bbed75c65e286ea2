"""How the command line stops on a signal, and work that a signal must not cut short.

Ctrl-C (SIGINT) raises KeyboardInterrupt where Python next runs its signal handlers; the
simulator core asks for them every few tens of milliseconds of a run, so a run stops
within a fraction of a second whatever it is doing. SIGTERM (`kill`, a batch scheduler's
time limit) would end the process on the spot, leaving a sweep's workers and a local Ray
instance behind; here it raises `Terminated`, a KeyboardInterrupt, so that it stops a run
the same way and every clean-up written for Ctrl-C runs for it too. Either way the command
exits with the shell's code for a death by that signal, 128 + its number.

The signal is also recorded when it arrives: a library the stop passes through may turn
the exception into a plain KeyboardInterrupt (Ray does), and the exit code must still
say which signal it was.

Some work must not be cut short, whoever handles the signals: the clean-up after a stop
(a second Ctrl-C in the middle would leave a pool's workers running their points) or Ray's
start-up (cut, it leaves processes behind). `held()` makes the signals that arrive during
such work wait for its end. And a process started for a pool must not die of a stop before it
can ignore it: `shielded_children()` starts processes with both signals blocked."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

HANDLED = (signal.SIGINT, signal.SIGTERM)
#: The exit statuses of a command stopped by one of them.
STOPPED = frozenset(128 + int(s) for s in HANDLED)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""


#: The first of HANDLED received inside `handled()`.
_received: list[int] = []


def _stop_for(signum: int) -> KeyboardInterrupt:
    """The exception a stop by `signum` raises."""
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _stop(signum: int, frame) -> None:
    if not _received:
        _received.append(signum)
    raise _stop_for(signum)


def raise_if_received() -> None:
    """Raises the stop a signal received inside `handled()` asked for, if one was asked for.
    Python ignores an exception raised in a destructor (it prints "Exception ignored in" and
    goes on), so a stop arriving while an object is being finalised would be lost, and the
    command would run to its end and exit 0 as if no one had asked it to stop."""
    if _received:
        raise _stop_for(_received[0])


def _signum(stop: KeyboardInterrupt) -> int:
    if _received:
        return _received[0]
    return signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT


def exit_code(stop: KeyboardInterrupt) -> int:
    """128 + the number of the signal that stopped the command (130 for Ctrl-C)."""
    return 128 + int(_signum(stop))


def message(stop: KeyboardInterrupt) -> str:
    return "terminated" if _signum(stop) == signal.SIGTERM else "interrupted"


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """SIGINT and SIGTERM raise inside the block, and are recorded; one raised in a
    destructor, which Python would report as ignored, is left for `raise_if_received`. In
    the main thread only, where Python runs signal handlers; elsewhere (a test calling the
    command line from a thread) nothing changes."""
    _received.clear()
    try:
        previous = {s: signal.signal(s, _stop) for s in HANDLED}
    except ValueError:
        yield
        return
    unraisable = sys.unraisablehook

    def quiet_stop(u) -> None:
        # A stop raised in a destructor: recorded, and raised again by raise_if_received;
        # Python's own report of it would be a traceback after which the command goes on.
        if not (isinstance(u.exc_value, KeyboardInterrupt) and _received):
            unraisable(u)

    sys.unraisablehook = quiet_stop
    try:
        yield
    finally:
        sys.unraisablehook = unraisable
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive inside the block wait for its end and are then
    handled (the first of them) as the process would have handled them; the block's own
    exception, if it raises one, goes first. The process also gets back the handlers it had,
    should the block have replaced them (Ray installs its own for SIGTERM). In the main
    thread only, where Python runs signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: arrived.append(signum)) for s in HANDLED}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if arrived:
        _deliver(arrived[0], previous[arrived[0]])


@contextlib.contextmanager
def shielded_children() -> Iterator[None]:
    """Processes started inside the block start with SIGINT and SIGTERM blocked, and a
    process keeps what it inherits blocked until it unblocks it: a stop cannot reach them
    (the parent decides their end). This thread blocks both meanwhile, and the signals that
    reach the process wait for the block's end, as in `held()`. In the main thread only,
    where Python runs signal handlers."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing starts its resource tracker with the first process it starts, and
    # then unblocks both signals in the calling thread; running already, it is left alone.
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    with held():
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _deliver(signum: int, handler) -> None:
    """Handles `signum` as `handler`, the process's handler for it, would have."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        if signum == signal.SIGINT:
            raise KeyboardInterrupt()
        os.kill(os.getpid(), signum)
