"""The runs a profile-guided build learns from (tools/pgo_build.sh).

The compiler lays out and inlines the simulator's code by how often each part ran here, so
these runs cover what users run: the default devices with synthetic random and mixed
workloads, physics and decoders on and off, trace replays, cleaning under pressure,
steady-state preconditioning, and every scheme. None of them is a benchmark's workload: the
benchmarks replay their own trace (benches/make_bench_trace.py), which is not used here.

Run with the instrumented build installed; each run is an `xlssd run` in its own process,
so each writes its own profile when it exits.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PHYSICS = ["--set", 'physics.model="power-law"', "--set", 'ecc.scheme="ldpc"',
           "--set", "aging.initial_pe=2000", "--set", "aging.data_age_h=2000"]
SMALL = ["--set", "geometry.blocks_per_plane=64", "--set", "ftl.overprovisioning=0.2"]


def runs(trace: Path, random_trace: Path) -> list[list[str]]:
    mixed = "rw=randrw,bs=4k,n=100000,iodepth=32,rwmixread=60"
    out = [
        ["--preset", "mqsim-default", "--workload", mixed],
        ["--preset", "mqsim-default", *PHYSICS, "--workload", "rw=randrw,bs=4k,n=40000,iodepth=32,rwmixread=60"],
        ["--preset", "mqsim-default", "--trace", str(trace)],
        ["--preset", "mqsim-default", "--trace", str(random_trace)],
        ["--preset", "mqsim-default", *PHYSICS, "--trace", str(random_trace)],
        ["--preset", "tiny", "--workload", "rw=randwrite,bs=4k,n=60000,iodepth=16"],
        ["--preset", "tiny", "--set", "physics.model=vth", "--set", "ecc.scheme=bch",
         "--workload", "rw=randrw,bs=16k,n=20000,iodepth=8"],
        ["--preset", "mqsim-default", *SMALL, "--set", "precondition.occupancy=0.8",
         "--set", "precondition.steady_state=true", "--workload", "rw=randwrite,bs=4k,n=20000,iodepth=16"],
        ["--preset", "ulc-61t-qlc", "--set", "geometry.blocks_per_plane=32", "--set", "ftl.overprovisioning=0.3",
         "--set", "precondition.occupancy=0.5",
         "--workload", "rw=randrw,bs=4k,n=20000,iodepth=32"],
    ]
    for scheme in schemes():
        out.append(["--preset", "tiny", "--set", f"scheme.name={scheme}", "--set", "ftl.overprovisioning=0.3",
                    "--set", "physics.model=vth", "--set", "ecc.scheme=ldpc", "--set", "precondition.occupancy=0.5",
                    *SCHEME_EXTRAS.get(scheme, []), "--workload", "rw=randrw,bs=4k,n=8000,iodepth=8,approx=0.3"])
    return out


#: What a scheme needs beyond the common set-up to run at all.
SCHEME_EXTRAS = {
    **{s: ["--set", "physics.read_retry.enabled=true"] for s in ("retry", "ideal", "senc", "swr", "rif")},
    **{s: ["--set", "ecc.scheme=bch"] for s in ("access-modes", "fixed-t")},
    "ids": ["--set", "ftl.overprovisioning=0.45"],
}


def schemes() -> list[str]:
    text = subprocess.run([sys.executable, "-m", "xlssd", "schemes", "--json"], check=True,
                          capture_output=True, text=True).stdout
    return [s["name"] for s in json.loads(text)]


def write_trace(path: Path) -> None:
    """A trace in MQSim's format: bursts of sequential writes among random reads."""
    rng = random.Random(7)
    t = 0
    lines = []
    for _ in range(40_000):
        t += rng.randint(2_000, 40_000)
        if rng.random() < 0.3:
            lines.append(f"{t} 0 {rng.randrange(1 << 20) * 8} {rng.choice((8, 16, 64))} 0\n")
        else:
            lines.append(f"{t} 0 {rng.randrange(1 << 24) * 8} 8 1\n")
    path.write_text("".join(lines))


def write_random_trace(path: Path) -> None:
    """A trace in MQSim's format of the kind most replays are: single 4 KiB requests at
    random addresses, 60% of them reads, arriving at random (Poisson, 20 us apart on
    average). A replay spends its time differently from a synthetic workload of fixed queue
    depth: requests come from the trace reader at their own times."""
    rng = random.Random(11)
    t = 0
    lines = []
    for _ in range(200_000):
        t += int(rng.expovariate(1 / 20_000))
        op = 1 if rng.random() < 0.6 else 0
        lines.append(f"{t} 0 {rng.randrange(1 << 24) * 8} 8 {op}\n")
    path.write_text("".join(lines))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        trace, random_trace = Path(tmp) / "train.trace", Path(tmp) / "random.trace"
        write_trace(trace)
        write_random_trace(random_trace)
        commands = [[sys.executable, "-m", "xlssd", "run", "--quiet", "--json", str(Path(tmp) / f"report-{i}.json"), *args]
                    for i, args in enumerate(runs(trace, random_trace))]
        # Each run is a process of its own, writing its own profile: two at a time keep both
        # of a two-core machine's cores busy. The merged profile is the same in any order.
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda cmd: subprocess.run(cmd, capture_output=True, text=True), commands))
        failed = 0
        for cmd, result in zip(commands, results):
            if result.returncode != 0:
                failed += 1
                print(f"training run failed: {' '.join(cmd)}\n{result.stderr[-2000:]}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
