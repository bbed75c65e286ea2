#!/usr/bin/env python3
"""`make bench`: xlssd's speed and memory on fixed workloads.

1. replay: the 1,000,000-request trace of make_bench_trace.py (70% reads, random 4 KiB over
   64 GiB, arrivals 2-20 us apart, seed 42) on the `mqsim-default` preset;
2. replay with physics: the same with the power-law RBER model and the LDPC read path on a
   device aged to 3,000 P/E cycles holding year-old data; its cost against the plain replay
   as medians of five alternated runs of each, and (when valgrind is installed; skipped with
   `XLSSD_BENCH_SKIP_INSTRUCTIONS=1`) as the instructions of each on the first 200,000
   requests, which do not vary from run to run as wall times do;
3. bursts: 1,000 random 16 MiB reads of unwritten data served as zeros from DRAM on the
   `tiny` preset, each 4,096 page completions due at one time, for the event queue's
   crowded buckets (a queue whose cost grows with the events due together shows here);
4. precondition: bringing `mqsim-default` (512 GiB raw) to 70% occupancy in steady state,
   then one request, to measure preconditioning speed per TiB;
5. ultra-large capacity: `ulc-61t-qlc` (64 TiB raw) preconditioned to 90% in steady state,
   then 1,000,000 random mixed 4 KiB requests (about a minute and 8 GiB of memory; skipped
   with `XLSSD_BENCH_SKIP_ULC=1` or on a machine with less than 12 GiB).

Each case runs the `xlssd` command in a child process (so the figures include start-up and
trace parsing) and reports wall time, requests per wall second and the child's peak
resident memory. Results are printed; docs/benchmarks.md records them with the machine.
Benchmarks are never part of the test suite's pass or fail.
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TRACE = OUT / "bench-1m.trace"


def run_child(args: list[str]) -> tuple[float, int, dict]:
    """Runs `xlssd ARGS --json FILE --quiet`; returns wall s, peak RSS bytes, report."""
    report_path = OUT / "report.json"
    cmd = [sys.executable, "-m", "xlssd", *args, "--json", str(report_path), "--quiet"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"benchmark run failed: {' '.join(cmd)}")
    return wall, usage.ru_maxrss * 1024, json.loads(report_path.read_text())


def main() -> None:
    OUT.mkdir(exist_ok=True)
    if not TRACE.exists():
        subprocess.run([sys.executable, str(HERE / "make_bench_trace.py"), str(TRACE)], check=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()} {platform.release()}")

    replay = ["run", "--preset", "mqsim-default", "--trace", str(TRACE)]
    wall, rss, r = run_child(replay)
    n = r["sim"]["requests"]
    print(f"replay   1M requests on mqsim-default: {wall:.2f} s wall ({n / wall:,.0f} requests/s), "
          f"simulation loop {r['sim']['wall_s']:.2f} s ({r['sim']['requests_per_s']:,.0f} requests/s, "
          f"{r['sim']['events_per_s']:,.0f} events/s), peak RSS {rss / 2**20:,.0f} MiB")

    physics = ["--set", 'physics.model="power-law"', "--set", 'ecc.scheme="ldpc"',
               "--set", "aging.initial_pe=3000", "--set", "aging.data_age_h=8760"]
    wall, rss, r = physics_on_against_off(replay, physics)
    print(f"replay   1M requests, physics and LDPC on:   {wall:.2f} s wall ({n / wall:,.0f} requests/s), "
          f"simulation loop {r['sim']['wall_s']:.2f} s, peak RSS {rss / 2**20:,.0f} MiB")

    wall, rss, r = run_child(["run", "--preset", "tiny", "--set", 'host.unmapped_reads="zero"',
                              "--workload", "rw=randread,bs=16m,n=1000"])
    print(f"bursts   1,000 reads of 16 MiB from DRAM on tiny: {wall:.2f} s wall, {r['sim']['events']:,} events "
          f"({r['sim']['events_per_s']:,.0f} events/s in the simulation loop)")

    wall, rss, r = run_child(["run", "--preset", "mqsim-default", "--set", "precondition.occupancy=0.7",
                              "--set", "precondition.steady_state=true", "--workload", "n=1,iodepth=1"])
    raw_tib = r["ftl"]["physical_pages"] * r["config"]["geometry"]["page_size"] / 2**40
    print(f"precondition mqsim-default to 70% steady state ({raw_tib:.2f} TiB raw): {wall:.2f} s wall "
          f"({wall / raw_tib:.2f} s per TiB), peak RSS {rss / 2**20:,.0f} MiB")

    if os.environ.get("XLSSD_BENCH_SKIP_ULC") == "1" or _memory_bytes() < 12 * 2**30:
        print("ulc-61t-qlc: skipped (XLSSD_BENCH_SKIP_ULC=1 or less than 12 GiB of memory)")
        return
    wall, rss, r = run_child(["run", "--preset", "ulc-61t-qlc", "--set", "precondition.occupancy=0.9",
                              "--set", "precondition.steady_state=true",
                              "--workload", "rw=randrw,bs=4k,n=1000000,iodepth=64"])
    sim = r["sim"]
    print(f"ulc-61t-qlc at 90% steady state, then 1M random mixed requests: {wall:.2f} s wall, set-up "
          f"{sim['setup_s']:.1f} s, then {sim['requests_per_s']:,.0f} requests per wall second, "
          f"peak RSS {rss / 2**30:.2f} GiB")


PAIRS = 5
"""Alternated runs of each side when the physics' cost is measured (the median of five)."""
PREFIX = 200_000
"""Requests of the trace whose instructions are counted (callgrind runs about 50x slower)."""


def physics_on_against_off(replay: list[str], physics: list[str]) -> tuple[float, int, dict]:
    """The physics' cost: the replay with physics off and on, alternated PAIRS times, wall
    medians and their ratio; then, when valgrind is installed, the instructions each side runs
    on the trace's first PREFIX requests, which do not vary from run to run as wall times do.
    Returns the last physics-on run (wall s, peak RSS bytes, report)."""
    off, on = [], []
    for _ in range(PAIRS):
        off.append(run_child(replay)[0])
        last_on = run_child([*replay, *physics])
        on.append(last_on[0])
    pairs = sorted(b / a for a, b in zip(off, on))
    print(f"physics  on/off, {PAIRS} alternated runs each: off {statistics.median(off):.3f} s, "
          f"on {statistics.median(on):.3f} s (medians), on/off {statistics.median(on) / statistics.median(off):.3f} "
          f"(pairs {pairs[0]:.3f} - {pairs[-1]:.3f})")
    if os.environ.get("XLSSD_BENCH_SKIP_INSTRUCTIONS") == "1" or shutil.which("valgrind") is None:
        print("physics  instructions: skipped (no valgrind on PATH, or XLSSD_BENCH_SKIP_INSTRUCTIONS=1)")
        return last_on
    prefix = OUT / "bench-200k.trace"
    if not prefix.exists():
        with TRACE.open() as src, prefix.open("w") as dst:
            dst.writelines(itertools.islice(src, PREFIX))
    args = ["run", "--preset", "mqsim-default", "--trace", str(prefix)]
    off_i, on_i = instructions(args), instructions([*args, *physics])
    print(f"physics  instructions on the first {PREFIX:,} requests (callgrind, whole process): "
          f"off {off_i / 1e9:.3f} G, on {on_i / 1e9:.3f} G, on/off {on_i / off_i:.3f}")
    return last_on


def instructions(args: list[str]) -> int:
    """Instructions the whole `xlssd ARGS` process runs, counted by callgrind."""
    out = OUT / "callgrind.out"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m", "xlssd",
           *args, "--json", str(OUT / "report.json"), "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    out.unlink(missing_ok=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"instruction count failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def _memory_bytes() -> int:
    """The machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


if __name__ == "__main__":
    main()
