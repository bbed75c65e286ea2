"""Application data through the simulated device: written as a payload, read back once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from xlssd.report import Report
from xlssd.run import _config_of, simulate


@dataclass(frozen=True)
class Stored:
    """What the host read back, beside what it wrote."""

    written: bytes
    returned: bytes

    @property
    def bits(self) -> int:
        return 8 * len(self.written)

    @property
    def bits_flipped(self) -> int:
        diff = np.bitwise_xor(np.frombuffer(self.written, np.uint8), np.frombuffer(self.returned, np.uint8))
        return int(np.unpackbits(diff).sum())


def round_trip_many(blobs: Sequence[bytes], config: Any, *, seed: int = 1) -> tuple[list[Stored], Report]:
    """Stores every blob on one device, each from a page boundary, and reads each of their
    pages back once, in order, from logical page 0.

    One run for all of them, so that they share one device state, like the files of one
    application; page-aligned, so that no page holds two blobs and each blob's errors are
    its own pages'. `seed` is the run's top-level seed: it fixes the bit flips.
    """
    if not blobs or any(len(b) == 0 for b in blobs):
        raise ValueError("round_trip_many needs at least one blob, and no empty one")
    cfg = _config_of(config)
    cfg["seed"] = seed
    size = int(cfg["geometry"]["page_size"])
    offsets, payload = [], bytearray()
    for blob in blobs:
        offsets.append(len(payload))
        payload += blob
        payload += bytes(-len(payload) % size)
    pages = len(payload) // size
    workload = {"rw": "read", "bs": size, "n": pages}
    report = simulate(cfg, workload, payload=bytes(payload), payload_lba=0)
    back = report.payload
    stored = [Stored(blob, back[at : at + len(blob)]) for at, blob in zip(offsets, blobs)]
    return stored, report


def round_trip(data: bytes, config: Any, *, seed: int = 1) -> tuple[bytes, Report]:
    """`data` as the host reads it back after storing it on the device `config` describes."""
    (stored,), report = round_trip_many([data], config, seed=seed)
    return stored.returned, report

