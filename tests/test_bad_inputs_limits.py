"""Bad inputs that would cost memory or time without bound, refused before anything is
allocated or run: a device whose structures outgrow the memory (or `limits.max_memory_bytes`),
a threshold-voltage grid too fine for its distributions, ages and wear beyond what the
threshold-voltage model covers, a sweep that expands to millions of points, and a Ray
cluster address nothing answers (see badinput.py for what each case asserts)."""

from __future__ import annotations

from pathlib import Path

import xlssd
from badinput import Bad, BadApi, corpus_tests, spec_case
from xlssd import ConfigError

RUN = ("run", "--quiet", "--workload", "n=20")
VTH = ("--set", "physics.model=vth")
# A QLC drive of 64 TiB raw with a map entry per 16 KiB page and the page physics on:
# about 62 GiB by the estimate.
HUGE = ("run", "--quiet", "--preset", "ulc-61t-qlc", "--set", "mapping.unit_bytes=0", *VTH, "--workload", "n=20")
HUGE_ESTIMATE = 62 << 30
GEOMETRY = r"config key `geometry`: channels 16 x chips_per_channel 3 x dies_per_chip 8 x planes_per_die 4 x " \
           r"blocks_per_plane 910 x pages_per_block 3072 = 4293918720 pages of 16384 bytes need an estimated 62\.\d GiB"
SPEC = 'preset = "tiny"\n[workloads]\nw = "n=100"\n'
VALUES = ", ".join(str(i) for i in range(2500))


def _meminfo(field: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _overcommit() -> str:
    try:
        return Path("/proc/sys/vm/overcommit_memory").read_text().strip()
    except OSError:
        return "?"


def run(*sets: str) -> tuple[str, ...]:
    return (*RUN, *(a for s in sets for a in ("--set", s)))


CASES = [
    # -- memory ---------------------------------------------------------------------------
    Bad("memory-over-the-limit", run("limits.max_memory_bytes=100000"),
        r"config key `geometry`: channels 2 x chips_per_channel 2 x dies_per_chip 1 x planes_per_die 2 x "
        r"blocks_per_plane 128 x pages_per_block 64 = 65536 pages of 4096 bytes need an estimated 0\.\d+ GiB of memory "
        r"\(.*\), more than limits\.max_memory_bytes \(0\.0001 GiB\); .*set limits\.max_memory_bytes to allow it"),
    Bad("memory-limit-negative", run("limits.max_memory_bytes=-1"), r"config key `limits\.max_memory_bytes`"),
    Bad("memory-limit-string", run("limits.max_memory_bytes=lots"), r"config key `limits\.max_memory_bytes`: invalid type"),
    Bad("memory-unknown-limit", run("limits.max_cpu=1"), r"config key `limits\.max_cpu`: unknown field"),
    Bad("memory-of-a-huge-drive-against-a-small-limit", (*HUGE, "--set", "limits.max_memory_bytes=8000000000"),
        GEOMETRY + r" of memory \(page physics 32\.0 GiB, physical-to-logical map 16\.0 GiB, logical-to-physical map "
        r"14\.0 GiB\), more than limits\.max_memory_bytes \(7\.45 GiB\)"),
    # -- the threshold-voltage model ------------------------------------------------------
    Bad("vth-grid-too-fine", run("physics.model=vth", "physics.vth.grid_step_v=0.00001"),
        r"config key `physics\.vth\.grid_step_v`: value 0\.00001: the model's distributions would reach [0-9.e]+ cells "
        r"and a table of it [0-9.e]+ multiply-adds .*expected a step of at least 0\.00044 V"),
    Bad("vth-grid-fine-even-unused", run("physics.vth.grid_step_v=1e-9"), r"`physics\.vth\.grid_step_v`: value 0\.000000001: .*a step of at least"),
    Bad("vth-noise-too-wide", run("physics.model=vth", "physics.vth.lambda_v=1000"),
        r"`physics\.vth\.grid_step_v`: value 0\.002: .*expected narrower distributions \(physics\.vth: .*lambda_v"),
    Bad("vth-retention-too-wide", run("physics.model=vth", "physics.vth.retention_loss=1000"),
        r"`physics\.vth\.grid_step_v`: .*expected narrower distributions"),
    Bad("vth-initial-pe-beyond-the-tables", run("physics.model=vth", "aging.initial_pe=200000"),
        r"config key `aging\.initial_pe`: value 200000 is out of range: expected at most 100000 cycles with "
        r"physics\.model = \"vth\""),
    Bad("vth-initial-pe-spread-beyond-the-tables",
        run("physics.model=vth", "aging.initial_pe=90000", "aging.initial_pe_spread=20000"),
        r"config key `aging\.initial_pe_spread`: value 20000 is out of range: expected at most 10000 cycles"),
    Bad("vth-data-age-beyond-the-tables", run("physics.model=vth", "aging.data_age_h=1e6"),
        r"config key `aging\.data_age_h`: value 1000000 is out of range: expected at most 100000 hours"),
    Bad("physics-vth-pe-huge", ("physics", "rber", "--model", "vth", "--pe", "1e308"),
        r"--pe: value 1e308 is out of range: expected 0 to 100000 cycles for --model vth"),
    Bad("physics-vth-retention-huge", ("physics", "rber", "--model", "vth", "--retention", "1e6"),
        r"--retention: value 1000000 is out of range: expected 0 to 100000 hours for --model vth"),
    Bad("physics-vth-pe-just-beyond", ("physics", "rber", "--model", "vth", "--pe", "100001"),
        r"--pe: value 100001 is out of range"),
    # -- sweeps ---------------------------------------------------------------------------
    spec_case("sweep-grid-of-millions", f'preset = "tiny"\n\n[grid]\nseed = [{VALUES}]\ncache.capacity_bytes = [{VALUES}]\n',
              r"s\.toml:3: the spec expands to 6,250,000 points \(1 workload\(s\) x 1 scheme\(s\) x 2500 seed x 2500 "
              r"cache\.capacity_bytes\), more than the limit of 100,000; expected fewer values, or `max_points = 6250000`"),
    spec_case("sweep-seeds-and-workloads-over-the-limit",
              "max_points = 3\nseeds = [1, 2]\n" + SPEC + 'v = "n=200"\n',
              r"s\.toml: the spec expands to 4 points \(2 workload\(s\) x 1 scheme\(s\) x no grid x 2 seed\(s\)\), more "
              r"than the limit of 3 its max_points sets"),
    spec_case("sweep-max-points-zero", "max_points = 0\n" + SPEC, r"s\.toml:1: `max_points`: expected a positive integer"),
    spec_case("sweep-max-points-boolean", "max_points = true\n" + SPEC, r"s\.toml:1: `max_points`: expected a positive integer"),
    spec_case("sweep-max-points-float", "max_points = 1e6\n" + SPEC, r"s\.toml:1: `max_points`: expected a positive integer"),
    # -- a Ray cluster nothing answers ----------------------------------------------------
    Bad("sweep-ray-address-refused", ("sweep", "{dir}/s.toml", "--out", "{dir}/out", "--ray", "127.0.0.1:1"),
        r"--ray 127\.0\.0\.1:1: cannot reach a Ray cluster there \(Connection refused\)", files={"s.toml": SPEC},
        timeout=20),
    Bad("sweep-ray-port-out-of-range", ("sweep", "{dir}/s.toml", "--out", "{dir}/out", "--ray", "localhost:99999"),
        r"--ray localhost:99999: `99999` is not a port number", files={"s.toml": SPEC}, timeout=20),
    Bad("reproduce-ray-address-refused", ("reproduce", "tecs15-ecc", "--out", "{dir}/out", "--ray", "127.0.0.1:1"),
        r"--ray 127\.0\.0\.1:1: cannot reach a Ray cluster there", timeout=20),
]

# What the machine has decides these two, so each is in the corpus where its outcome is
# known: the estimate above the machine's memory, and a system that refuses an allocation
# larger than its memory (overcommit 0 or 2) for the page physics alone.
if 0 < _meminfo("MemAvailable") < HUGE_ESTIMATE:
    CASES.append(Bad("memory-of-a-huge-drive-against-the-machine", HUGE,
                     GEOMETRY + r" of memory \(.*\), more than the [0-9.]+ GiB this machine has available \(MemAvailable\)"))
if _overcommit() in ("0", "2") and 0 < _meminfo("MemTotal") + _meminfo("SwapTotal") < 32 << 30:
    CASES.append(Bad("memory-refused-by-the-system", (*HUGE, "--set", "limits.max_memory_bytes=1000000000000000"),
                     r"config key `geometry`: the system refused the 31\.99 GiB of the page physics \(4293918720 entries "
                     r"of 8 bytes\)"))


def _spec(**kw):
    from xlssd.config import load_preset
    from xlssd.sweep.spec import Spec

    return Spec(**{"name": "s", "base": load_preset("tiny"), "workloads": {"w": "n=100"}, **kw})


API_CASES = [
    BadApi("simulate-over-the-memory-limit",
           lambda d: xlssd.simulate({"base": "tiny", "limits": {"max_memory_bytes": 1000}}, "n=10"), ConfigError,
           r"config key `geometry`: .* need an estimated .* GiB of memory .* more than limits\.max_memory_bytes"),
    BadApi("simulate-vth-grid-too-fine",
           lambda d: xlssd.simulate({"base": "tiny", "physics": {"model": "vth", "vth": {"grid_step_v": 1e-5}}}, "n=10"),
           ConfigError, r"`physics\.vth\.grid_step_v`: .*a step of at least"),
    BadApi("resolve-vth-aging-beyond-the-tables",
           lambda d: xlssd.resolve({"physics": {"model": "vth"}, "aging": {"data_age_h": 200000.0}}), ConfigError,
           r"`aging\.data_age_h`: value 200000 is out of range"),
    BadApi("physics-rber-vth-pe-huge", lambda d: xlssd._core.physics_rber("vth", 1e308), ConfigError,
           r"--pe: value 1e308 is out of range"),
    BadApi("spec-grid-of-millions", lambda d: _spec(grid={"seed": list(range(2500)), "cache.capacity_bytes": list(range(2500))}).expand(),
           ConfigError, r"sweep `s`.*: the spec expands to 6,250,000 points .*more than the limit of 100,000"),
    BadApi("spec-max-points-zero", lambda d: _spec(max_points=0), TypeError, r"`max_points` must be a positive integer"),
    BadApi("spec-max-points-string", lambda d: _spec(max_points="10"), TypeError, r"`max_points` must be a positive integer"),
    BadApi("ray-cluster-refused", lambda d: __import__("xlssd.sweep.ray_cluster").sweep.ray_cluster.RayCluster("127.0.0.1:1").check(),
           ConfigError, r"--ray 127\.0\.0\.1:1: cannot reach a Ray cluster there"),
]


test_bad_input, test_bad_api_call = corpus_tests(CASES, API_CASES)
