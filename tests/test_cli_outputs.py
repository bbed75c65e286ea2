"""What the command line writes and where: a reader that goes away, a write that fails
half-way, a refused target left as it was, plot labels taken literally, and sweep points
that are reused only while their inputs stay the same."""

from __future__ import annotations

import argparse
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlssd import atomic
from xlssd.atomic import FileError
from xlssd.report import Report


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

    class Full:
        """A file on a full disk: opened, and every write refused."""

        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # The writer opens the temporary file with the built-in `open`, looked up in its module.
    monkeypatch.setattr(atomic, "open", lambda path, mode="r", **kw: Full(open(path, mode, **kw)), raising=False)
    with pytest.raises(FileError, match=r"--json: .*r.json: cannot write: No space left on device"):
        atomic.write_text(target, "new\n", "--json")
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert [x.name for x in tmp_path.iterdir()] == ["r.json"]


def test_a_written_file_is_readable_by_all_whatever_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        atomic.write_text(tmp_path / "r.json", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644
    assert [x.name for x in tmp_path.iterdir()] == ["r.json"]


def test_temporary_names_never_collide_and_running_out_of_them_is_a_file_error(tmp_path, monkeypatch):
    names = {atomic._create_temporary(tmp_path / "r.json") for _ in range(50)}
    assert len(names) == 50 and all(Path(n).parent == tmp_path for n in names)
    assert all(Path(n).name.startswith(".r.json.") and n.endswith(atomic.TEMP_SUFFIX) for n in names)
    for n in names:
        os.unlink(n)
    # A name already taken is skipped; when every name tried is taken, the write fails
    # with the target named and nothing left behind.
    monkeypatch.setattr(atomic.os, "urandom", lambda n: b"\x00" * n)
    first = atomic._create_temporary(tmp_path / "r.json")
    with pytest.raises(FileError, match=r"--json: .*r\.json: cannot write: .*no unused temporary name"):
        atomic.write_text(tmp_path / "r.json", "new\n", "--json")
    os.unlink(first)
    assert list(tmp_path.iterdir()) == []


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


@pytest.mark.parametrize("workload, code", [("n=100", 0), ("n=bad", 2)])
def test_a_run_exits_through_every_exit_function_and_writes_everything(tmp_path, workload, code):
    # `xlssd run` leaves its objects out of the interpreter's last collection; the exit is
    # otherwise the usual one: Python's exit functions and C's (which flush C's own output
    # buffers, and where a profiling runtime writes its profile) all run, and the command's
    # status is the exit status.
    target = tmp_path / "r.json"
    program = (
        "import atexit, ctypes, sys\n"
        "atexit.register(lambda: print('exit function ran', flush=True))\n"
        "ctypes.CDLL(None).printf(b'left in the C buffer ')\n"
        "from xlssd.cli import command\n"
        f"sys.argv = ['xlssd', 'run', '--workload', {workload!r}, '--quiet', '--json', {str(target)!r}]\n"
        "command()\n"
    )
    # Without PYTHONUNBUFFERED, which makes C's standard output unbuffered too.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    p = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == code, p.stderr
    # (CPython flushes C's buffers first; a process ended by `os._exit` loses them.)
    assert p.stdout in ("left in the C buffer exit function ran\n", "exit function ran\nleft in the C buffer ")
    if code == 0:
        assert target.read_text().startswith("{")
    else:
        assert "xlssd: error:" in p.stderr and not target.exists()


def test_the_run_only_parser_reads_and_documents_run_as_the_whole_parser_does(monkeypatch):
    from xlssd import cli

    monkeypatch.setenv("COLUMNS", "72")
    argv = ["run", "--preset", "tiny", "--set", "seed=3", "--set", "gc.policy=fifo", "--workload", "n=5",
            "--quiet", "--json", "r.json", "--check"]
    whole, only_run = cli._parser(), cli._parser(argv)
    assert whole.parse_args(argv) == only_run.parse_args(argv)

    def run_help(parser):
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["run"].format_help()

    text = run_help(only_run)
    assert text == run_help(whole) and text.startswith("usage: xlssd run [-h]")
    # Wrapped to the terminal's width, as argparse's own formatter wraps it.
    assert max(len(line) for line in text.splitlines()) <= 72 and "--payload-out FILE" in text
    assert set(next(a for a in whole._actions if isinstance(a, argparse._SubParsersAction)).choices) == set(cli.COMMANDS)


@pytest.mark.parametrize("argv", [["run", "--bogus"], ["run", "--help"], ["--help"]])
def test_help_and_errors_of_the_command_line_are_those_of_the_whole_parser(argv, cli):
    p = cli(*argv)
    if argv == ["--help"]:
        assert p.returncode == 0 and all(c in p.stdout for c in ("run", "sweep", "quality", "reproduce"))
    elif argv == ["run", "--help"]:
        assert p.returncode == 0 and p.stdout.startswith("usage: xlssd run")
    else:
        assert p.returncode == 2 and p.stderr.endswith("xlssd: error: unrecognized arguments: --bogus\n")


@pytest.mark.parametrize("physics", [False, True], ids=["physics-off", "physics-on"])
def test_the_report_file_is_the_text_python_writes_for_it(tmp_path, cli, physics):
    # The command line writes the core's text as it comes; it must be what
    # `json.dumps(report, indent=2)` writes (the format of every report written before),
    # floats, escapes and all. The trace's name, echoed in the report, is not ASCII.
    trace = tmp_path / "tr\u00e5ce \u00e9\x7f.trace"
    # MQSim's format: arrival (ns), device, first sector, sectors, 1 for a read.
    trace.write_text("".join(f"{i * 20000} 0 {(i * 7919) % 4096 * 8} 8 {int(i % 3 > 0)}\n" for i in range(3000)))
    extra = ["--set", 'physics.model="power-law"', "--set", 'ecc.scheme="ldpc"', "--set", "aging.initial_pe=2000",
             "--set", "aging.data_age_h=2000"] if physics else []
    out = tmp_path / "r.json"
    p = cli("run", "--preset", "tiny", "--trace", str(trace), *extra, "--quiet", "--json", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text(encoding="ascii")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2) + "\n"
    assert "\\u00e5" in text and "\\u007f" in text
    if physics:
        # Bit error rates are among the floats, so Python's scientific form is checked too.
        assert any("e-" in repr(v) for _, v in Report(data).flat() if isinstance(v, float))
