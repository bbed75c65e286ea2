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


def pack(blobs: Sequence[bytes], page_size: int) -> tuple[bytes, list[int]]:
    """The blobs laid out one after another, each from a page boundary, and where each
    starts: no page holds two blobs, so each blob's errors are its own pages'."""
    if not blobs or any(len(b) == 0 for b in blobs):
        raise ValueError("a payload needs at least one blob, and no empty one")
    offsets, payload = [], bytearray()
    for blob in blobs:
        offsets.append(len(payload))
        payload += blob
        payload += bytes(-len(payload) % page_size)
    return bytes(payload), offsets


def unpack(blobs: Sequence[bytes], offsets: Sequence[int], returned: bytes) -> list[Stored]:
    return [Stored(blob, returned[at : at + len(blob)]) for at, blob in zip(offsets, blobs)]


def round_trip_many(blobs: Sequence[bytes], config: Any, *, seed: int = 1) -> tuple[list[Stored], Report]:
    """Stores every blob on one device (`pack`) and reads each of their pages back once, in
    order, from logical page 0.

    One run for all of them, so that they share one device state, like the files of one
    application. `seed` is the run's top-level seed: it fixes the bit flips.
    """
    cfg = _config_of(config)
    cfg["seed"] = seed
    size = int(cfg["geometry"]["page_size"])
    payload, offsets = pack(blobs, size)
    workload = {"rw": "read", "bs": size, "n": len(payload) // size}
    report = simulate(cfg, workload, payload=payload, payload_lba=0)
    return unpack(blobs, offsets, report.payload), report


def stored_in_run(blobs: Sequence[bytes], config: Any, workload: Any, *, lba: int,
                  read_after_h: float) -> tuple[list[Stored], Report]:
    """Carries the blobs (`pack`) from sector `lba` through a run of `workload`, whose writes
    to those sectors are taken to rewrite them, and reads them back once after the run,
    `read_after_h` hours after its end (the report's `payload.final_read.*`)."""
    cfg = _config_of(config)
    payload, offsets = pack(blobs, int(cfg["geometry"]["page_size"]))
    report = simulate(cfg, workload, payload=payload, payload_lba=lba, payload_final_read_after_h=read_after_h)
    return unpack(blobs, offsets, report.payload), report


def round_trip(data: bytes, config: Any, *, seed: int = 1) -> tuple[bytes, Report]:
    """`data` as the host reads it back after storing it on the device `config` describes."""
    (stored,), report = round_trip_many([data], config, seed=seed)
    return stored.returned, report
