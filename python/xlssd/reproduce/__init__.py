"""Reproductions of published results. Each module declares one `Experiment`; this registry
is what `xlssd reproduce` lists and runs."""

from __future__ import annotations

from xlssd.reproduce import aero, approxftl, ascache, redftl, rif, separation, tecs15_ecc
from xlssd.reproduce.experiment import Experiment

REGISTRY: dict[str, Experiment] = {e.name: e for e in (aero.EXPERIMENT, approxftl.EXPERIMENT, ascache.EXPERIMENT, redftl.EXPERIMENT, rif.EXPERIMENT, separation.EXPERIMENT, tecs15_ecc.EXPERIMENT)}

#: Other names an experiment answers to.
ALIASES: dict[str, str] = {tecs15_ecc.ALIAS: tecs15_ecc.NAME}


def lookup(name: str) -> Experiment | None:
    """The experiment called `name` (or one of its aliases)."""
    return REGISTRY.get(ALIASES.get(name, name))
