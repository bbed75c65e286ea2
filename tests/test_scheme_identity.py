"""The engine gives the same results whatever the layout of its scheme code: reports for
every preset and for the four approximate-write schemes (with and without steady-state
preconditioning, physics off and on) equal the ones recorded before techniques became
schemes behind hooks (golden/schemes/README.md)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "schemes"

SMALL_3D = ["--preset", "approxftl-3d-128g", "--set", "geometry.channels=2", "--set", "geometry.chips_per_channel=2",
            "--set", "geometry.blocks_per_plane=128", "--set", "geometry.pages_per_block=128",
            "--set", "ftl.overprovisioning=0.25"]


def cases() -> dict[str, list[str]]:
    out = {}
    for preset in ("tiny", "mqsim-default", "tecs15-mlc-2g", "approxftl-3d-128g"):
        small = [] if preset == "tiny" else ["--set", "geometry.blocks_per_plane=64", "--set", "ftl.overprovisioning=0.2"]
        out[f"preset-{preset}"] = ["--preset", preset, *small, "--workload", "rw=randrw,bs=8k,n=4000,iodepth=8"]
    for scheme in ("baseline", "delta_b", "vth_b", "approxftl"):
        for steady in ("true", "false"):
            for physics in ("none", "vth"):
                extra = ["--set", "physics.model=vth", "--set", "ecc.scheme=ldpc"] if physics == "vth" else []
                out[f"aftl-{scheme}-ss{steady}-{physics}"] = [
                    *SMALL_3D, "--set", f"scheme.name={scheme}", "--set", "precondition.occupancy=0.6",
                    "--set", f"precondition.steady_state={steady}", *extra,
                    "--workload", "rw=randrw,bs=4k,n=30000,iodepth=8,approx=0.5,rwmixread=30"]
    return out


def report(args: list[str], path: Path) -> str:
    subprocess.run([sys.executable, "-m", "xlssd", "run", "--quiet", "--no-wall-clock", "--check", "--json", str(path),
                    *args], check=True)
    data = json.loads(path.read_text())
    data.pop("config")
    return json.dumps(data, indent=1) + "\n"


@pytest.mark.parametrize("name", sorted(cases()))
def test_report_equals_the_recorded_one(name, tmp_path):
    got = report(cases()[name], tmp_path / "r.json")
    want = (GOLDEN / f"{name}.json").read_text()
    assert got == want, f"{name}: the report differs from golden/schemes/{name}.json"


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for name, args in cases().items():
            (GOLDEN / f"{name}.json").write_text(report(args, Path(d) / "r.json"))
