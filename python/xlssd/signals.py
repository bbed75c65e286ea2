"""How the command line stops on a signal.

Ctrl-C (SIGINT) raises KeyboardInterrupt where Python next runs its signal handlers; the
simulator core asks for them every few tens of milliseconds of a run, so a run stops
within a fraction of a second whatever it is doing. SIGTERM (`kill`, a batch scheduler's
time limit) would end the process on the spot, leaving a sweep's workers and a local Ray
instance behind; here it raises `Terminated`, a KeyboardInterrupt, so that it stops a run
the same way and every clean-up written for Ctrl-C runs for it too. Either way the command
exits with the shell's code for a death by that signal, 128 + its number.

The signal is also recorded when it arrives: a library the stop passes through may turn
the exception into a plain KeyboardInterrupt (Ray does), and the exit code must still
say which signal it was."""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""


#: The first of HANDLED received inside `handled()`.
_received: list[int] = []


def _stop(signum: int, frame) -> None:
    if not _received:
        _received.append(signum)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


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
    """SIGINT and SIGTERM raise inside the block, and are recorded. In the main thread
    only, where Python runs signal handlers; elsewhere (a test calling the command line
    from a thread) nothing changes."""
    _received.clear()
    try:
        previous = {s: signal.signal(s, _stop) for s in HANDLED}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
