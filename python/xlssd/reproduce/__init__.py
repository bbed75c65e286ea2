"""Reproductions of published results: each module registers one experiment that prints
its figures beside the paper's."""

from __future__ import annotations

from typing import Callable

from xlssd.reproduce import tecs15_ecc

#: name -> (one-line description, function(quick) -> exit code)
REGISTRY: dict[str, tuple[str, Callable[[bool], int]]] = {
    tecs15_ecc.NAME: (tecs15_ecc.DESCRIPTION, tecs15_ecc.run),
}
