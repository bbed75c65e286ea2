"""How the command line stops on a signal.

Ctrl-C (SIGINT) raises KeyboardInterrupt where Python next runs its signal handlers; the
simulator core asks for them every few tens of milliseconds of a run, so a run stops
within a fraction of a second whatever it is doing. SIGTERM (`kill`, a batch scheduler's
time limit) would end the process on the spot, leaving a sweep's workers and a local Ray
instance behind; here it raises `Terminated`, a KeyboardInterrupt, so that it stops a run
the same way and every clean-up written for Ctrl-C runs for it too. Either way the command
exits with the shell's code for a death by that signal, 128 + its number."""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""

    signum = signal.SIGTERM


def _terminate(signum, frame) -> None:
    raise Terminated()


def exit_code(stop: KeyboardInterrupt) -> int:
    """128 + the number of the signal that stopped the command (130 for Ctrl-C)."""
    return 128 + int(getattr(stop, "signum", signal.SIGINT))


def message(stop: KeyboardInterrupt) -> str:
    return "terminated" if isinstance(stop, Terminated) else "interrupted"


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """SIGTERM raises `Terminated` inside the block (in the main thread only, where Python
    runs signal handlers; elsewhere, as in a test calling the command line from a thread,
    nothing changes)."""
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
