"""The real traces some reproductions run besides their stand-ins (aero, approxftl, redftl).

They are not bundled: a reproduction looks for each in the folder the environment variable
`XLSSD_TRACES` names, else in `shared/traces` beside the checkout. A trace it does not find
leaves out the points (and so the rows) that would run it; an experiment names the traces
it runs (`Experiment.real_traces`), so that its results say which were missing and where
they were looked for, instead of only counting rows without points.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

ENV = "XLSSD_TRACES"
BESIDE_CHECKOUT = Path(__file__).resolve().parents[3].parent / "shared" / "traces"

def folder() -> Path:
    """Where the real traces are looked for."""
    named = os.environ.get(ENV)
    return Path(named) if named else BESIDE_CHECKOUT


def find(name: str) -> Path | None:
    """The trace `name` (`NAME.trace` in `folder()`), or None."""
    path = folder() / f"{name}.trace"
    return path if path.is_file() else None


def missing(names: Iterable[str]) -> list[str]:
    """Those of `names` not found, sorted."""
    return sorted(n for n in set(names) if find(n) is None)


def missed_note(names: list[str]) -> str:
    """One line saying which traces were not found and how to point at them."""
    return (f"real traces not found in {folder()}: {', '.join(names)}; the points on them were left out "
            f"(set {ENV} to the folder holding them)")
