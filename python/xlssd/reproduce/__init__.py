"""Reproductions of published results. Each module declares one `Experiment`; this registry
is what `xlssd reproduce` lists and runs."""

from __future__ import annotations

from xlssd.reproduce import aero, approxftl, ascache, redftl, rif, separation, tecs15_ecc
from xlssd.reproduce.experiment import Experiment

REGISTRY: dict[str, Experiment] = {e.name: e for e in (aero.EXPERIMENT, approxftl.EXPERIMENT, ascache.EXPERIMENT, redftl.EXPERIMENT, rif.EXPERIMENT, separation.EXPERIMENT, tecs15_ecc.EXPERIMENT)}
