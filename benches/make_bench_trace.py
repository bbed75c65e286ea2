#!/usr/bin/env python3
"""Generate the benchmark workload of ``make bench`` as an MQSim ASCII trace.

The trace is the fixed workload used to measure xlssd's speed and memory and to
compare them with MQSim (the FAST'18 simulator) on the same input. By default
it holds 1,000,000 random 4 KiB requests, 70% reads, spread uniformly over the
first 64 GiB of the logical address space, with inter-arrival gaps drawn
uniformly between 2 and 20 us. Both simulators replay the very same file, so
wall time, peak memory and the reported statistics can be compared side by
side (MQSim, default device, needs tens of seconds and several GiB for it on a
2-core machine).

Format (one request a line, MQSim ASCII trace format)::

    arrival_time_ns device_id start_lba_in_512B_sectors size_in_sectors type

with ``device_id`` always 0, ``size_in_sectors`` 8 (4 KiB), ``start_lba``
aligned to 8 sectors, and ``type`` 0 = write, 1 = read. The first request
arrives after one gap (not at time 0).

The output is fully determined by the arguments: all randomness comes from a
single ``random.Random(seed)``, drawn in a fixed order per request (gap, then
read/write, then address). Only the standard library is used.

Usage::

    python3 benches/make_bench_trace.py OUT.trace [--requests N] [--read-pct P]
                                                  [--span-gib G] [--seed S]
"""

import argparse
import random
import sys

SECTOR_BYTES = 512
REQ_SECTORS = 8  # 4 KiB requests, aligned to 4 KiB
GAP_MIN_NS = 2_000
GAP_MAX_NS = 20_000
CHUNK_LINES = 65_536


def generate(path, requests, read_pct, span_gib, seed):
    """Write ``requests`` lines to ``path``; return (reads, writes, last_ns)."""
    if requests < 0:
        raise ValueError("--requests must be >= 0")
    if not 0.0 <= read_pct <= 100.0:
        raise ValueError("--read-pct must be within 0..100")
    span_sectors = int(span_gib * (1 << 30)) // SECTOR_BYTES
    slots = span_sectors // REQ_SECTORS
    if slots < 1:
        raise ValueError("--span-gib too small for one 4 KiB request")

    rng = random.Random(seed)
    gap = rng.randint
    rand = rng.random
    slot = rng.randrange
    read_frac = read_pct / 100.0

    t = 0
    reads = 0
    buf = []
    append = buf.append
    with open(path, "w", encoding="ascii", newline="\n") as out:
        for _ in range(requests):
            t += gap(GAP_MIN_NS, GAP_MAX_NS)
            is_read = rand() < read_frac
            lba = slot(slots) * REQ_SECTORS
            if is_read:
                reads += 1
                append(f"{t} 0 {lba} {REQ_SECTORS} 1\n")
            else:
                append(f"{t} 0 {lba} {REQ_SECTORS} 0\n")
            if len(buf) >= CHUNK_LINES:
                out.write("".join(buf))
                buf.clear()
        if buf:
            out.write("".join(buf))
    return reads, requests - reads, t


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Write the deterministic `make bench` trace (MQSim ASCII format)."
    )
    p.add_argument("output", help="path of the trace file to write")
    p.add_argument("--requests", type=int, default=1_000_000,
                   help="number of requests (default 1,000,000)")
    p.add_argument("--read-pct", type=float, default=70.0,
                   help="percentage of reads (default 70)")
    p.add_argument("--span-gib", type=float, default=64.0,
                   help="address span in GiB, starting at LBA 0 (default 64)")
    p.add_argument("--seed", type=int, default=42,
                   help="seed for random.Random (default 42)")
    a = p.parse_args(argv)
    try:
        reads, writes, last = generate(a.output, a.requests, a.read_pct,
                                       a.span_gib, a.seed)
    except ValueError as e:
        p.error(str(e))
    print(f"{a.output}: {a.requests} requests ({reads} reads, {writes} writes), "
          f"last arrival {last} ns", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
