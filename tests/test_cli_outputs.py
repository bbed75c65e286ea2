"""What the command line writes and where: a reader that goes away, a write that fails
half-way, a refused target left as it was, plot labels taken literally, and sweep points
that are reused only while their inputs stay the same."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlssd import atomic
from xlssd.atomic import FileError


@pytest.mark.parametrize(
    "args",
    [
        ["presets"],
        ["schemes", "--json"],
        ["run", "--workload", "n=2000", "--json", "-", "--quiet"],
        ["run", "--workload", "n=2000"],
    ],
    ids=["presets", "schemes", "run-json-stdout", "run-summary"],
)
def test_a_closed_pipe_ends_the_command_quietly(args):
    # The reading end is closed before the command writes anything, as `| head -1` does
    # once it has its line.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        p = subprocess.run([sys.executable, "-m", "xlssd", *args], stdout=write_end, stderr=subprocess.PIPE,
                           timeout=120)
    finally:
        os.close(write_end)
    err = p.stderr.decode()
    assert p.returncode == 141, err
    assert err == "", err


def test_a_pipe_closed_after_some_lines_ends_the_command_quietly():
    p = subprocess.run(f"{sys.executable} -m xlssd run --workload n=2000 --json - --quiet | head -3",
                       shell=True, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 3
    assert "Traceback" not in p.stderr and "Exception" not in p.stderr, p.stderr


@pytest.mark.parametrize("kind", ["symlink", "directory", "fifo"])
def test_a_refused_target_is_left_as_it_was(tmp_path, cli, kind):
    real = tmp_path / "real.json"
    real.write_text("precious\n")
    target = tmp_path / "target"
    if kind == "symlink":
        target.symlink_to(real)
    elif kind == "directory":
        target.mkdir()
        (target / "inside").write_text("kept\n")
    else:
        os.mkfifo(target)
    p = cli("run", "--workload", "n=100", "--quiet", "--json", str(target))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert real.read_text() == "precious\n"
    if kind == "symlink":
        assert target.is_symlink() and os.readlink(target) == str(real)
    elif kind == "directory":
        assert sorted(x.name for x in target.iterdir()) == ["inside"]
    else:
        assert not target.is_file() and target.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["real.json", "target"]


def test_an_existing_regular_file_is_replaced_whole(tmp_path, cli):
    target = tmp_path / "r.json"
    target.write_text("old\n")
    p = cli("run", "--workload", "n=100", "--quiet", "--json", str(target))
    assert p.returncode == 0, p.stderr
    assert target.read_text().startswith("{")


def test_a_full_disk_is_named_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old\n")

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(FileError, match=r"--json: .*r.json: cannot write: No space left on device"):
        atomic.write_text(target, "new\n", "--json")
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert [x.name for x in tmp_path.iterdir()] == ["r.json"]


def test_a_file_error_is_a_config_error_and_an_os_error(tmp_path):
    import xlssd

    with pytest.raises(OSError):
        atomic.write_text(tmp_path / "no" / "r.json", "x")
    with pytest.raises(xlssd.ConfigError):
        atomic.write_text(tmp_path / "no" / "r.json", "x")


def test_a_dollar_in_a_scheme_name_is_drawn_as_written(tmp_path, cli):
    spec = tmp_path / "s.toml"
    spec.write_text('preset = "tiny"\n[schemes]\n"a$^$" = {}\n"b" = { gc.policy = "fifo" }\n[workloads]\nw = "n=100"\n')
    out = tmp_path / "out"
    assert cli("sweep", str(spec), "--out", str(out), "--quiet", "--jobs", "1").returncode == 0
    p = cli("results", "plot", str(out), "bars", "--metric", "ftl.waf", "--baseline", "b", "--title", "cost in $")
    assert p.returncode == 0, p.stderr
    assert Path(p.stdout.strip()).read_bytes()[:4] == b"\x89PNG"
    p = cli("report", str(out))
    assert p.returncode == 0, p.stderr


def _sweep(cli, spec: Path, out: Path) -> str:
    p = cli("sweep", str(spec), "--out", str(out), "--jobs", "1")
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()[-1]


def test_a_sweep_point_is_rerun_when_an_input_file_changes_and_only_then(tmp_path, cli):
    trace = tmp_path / "t.trace"
    trace.write_text("0 0 0 8 1\n1000 0 8 8 1\n")
    ranges = tmp_path / "ranges.txt"
    ranges.write_text("0 64\n")
    (tmp_path / "c.toml").write_text('base = "tiny"\n[ftl]\noverprovisioning = 0.25\n[scheme]\nname = "approxftl"\n'
                                     f'[scheme.approxftl]\nlba_ranges_file = "{ranges}"\n')
    spec = tmp_path / "s.toml"
    spec.write_text('config = "c.toml"\n[workloads]\nt = { trace = "t.trace" }\n')
    out = tmp_path / "out"
    assert _sweep(cli, spec, out) == "1 points: 1 run, 0 already done, 0 failed"
    assert _sweep(cli, spec, out) == "1 points: 0 run, 1 already done, 0 failed"
    # Touched, not changed: the same point.
    os.utime(trace, ns=(2_000_000_000, 2_000_000_000))
    assert _sweep(cli, spec, out) == "1 points: 0 run, 1 already done, 0 failed"
    # The same size and time stamp, another content: another point.
    st = trace.stat()
    trace.write_text("0 0 0 8 0\n1000 0 8 8 0\n")
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _sweep(cli, spec, out) == "1 points: 1 run, 0 already done, 0 failed"
    # A file the config names is an input too.
    ranges.write_text("0 128\n")
    assert _sweep(cli, spec, out) == "1 points: 1 run, 0 already done, 0 failed"
    assert _sweep(cli, spec, out) == "1 points: 0 run, 1 already done, 0 failed"


def test_a_point_names_the_simulator_version_and_build(monkeypatch):
    from xlssd.config import load_preset
    from xlssd.sweep import spec as spec_mod
    from xlssd.sweep.spec import Spec

    import xlssd

    assert spec_mod.engine_id().startswith(xlssd.__version__ + "+")
    first = [p.id for p in Spec(name="s", base=load_preset("tiny")).expand()]
    monkeypatch.setattr(spec_mod, "engine_id", lambda: "0.0.0+another-build")
    assert [p.id for p in Spec(name="s", base=load_preset("tiny")).expand()] != first
