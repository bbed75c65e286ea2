"""`xlssd sweep` and `xlssd results`: specs, the local pool and Ray, resuming, failures."""

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from experiments_helpers import GC_OP_SPEC, canonical, parquet_rows, write_spec


@pytest.fixture(scope="module")
def gc_op(tmp_path_factory, request):
    """The 4-point sweep, run once on the local pool."""
    from conftest import run_cli

    folder = tmp_path_factory.mktemp("gc-op")
    spec = write_spec(folder, GC_OP_SPEC)
    out = folder / "pool"
    p = run_cli("sweep", str(spec), "--out", str(out), "--jobs", "2")
    return spec, out, p


def test_sweep_over_gc_policy_and_overprovisioning(gc_op, cli):
    spec, out, p = gc_op
    assert p.returncode == 0, p.stderr
    assert "local pool of 2 processes" in p.stdout
    assert "4 points: 4 run, 0 already done, 0 failed" in p.stdout
    assert len(list((out / "results").glob("*.parquet"))) == 4
    rows = parquet_rows(out)
    assert [r["status"] for r in rows] == ["ok"] * 4
    waf = {(r["config.gc.policy"], r["config.ftl.overprovisioning"]): r["ftl.waf"] for r in rows}
    assert set(waf) == {("greedy", 0.07), ("greedy", 0.25), ("fifo", 0.07), ("fifo", 0.25)}
    for r in rows:
        assert r["host.write.count"] == 20000 and r["host.read.count"] == 0
        assert r["ftl.waf"] >= 1.0
    # More spare space means less cleaning; greedy never picks a fuller victim than FIFO.
    for policy in ("greedy", "fifo"):
        assert waf[(policy, 0.25)] < waf[(policy, 0.07)]
    for op in (0.07, 0.25):
        assert waf[("greedy", op)] <= waf[("fifo", op)]
    # The wall-clock fields are left out, so rows depend on the inputs alone.
    assert "sim.wall_s" not in rows[0] and "sim.events" in rows[0]

    q = cli("results", "query", str(out),
            'SELECT "config.gc.policy" AS policy, "config.ftl.overprovisioning" AS op, "ftl.waf" '
            "FROM results ORDER BY policy, op")
    assert q.returncode == 0, q.stderr
    lines = q.stdout.splitlines()
    assert lines[0].split() == ["policy", "op", "ftl.waf"]
    assert [ln.split()[:2] for ln in lines[2:6]] == [["fifo", "0.07"], ["fifo", "0.25"], ["greedy", "0.07"], ["greedy", "0.25"]]
    assert float(lines[4].split()[2]) == pytest.approx(waf[("greedy", 0.07)], rel=1e-5)
    assert lines[-1] == "(4 rows)"

    again = cli("sweep", str(spec), "--out", str(out), "--jobs", "2")
    assert again.returncode == 0 and "4 points: 0 run, 4 already done, 0 failed" in again.stdout


def test_pool_and_ray_give_identical_rows(gc_op, cli):
    spec, pool_out, p = gc_op
    assert p.returncode == 0, p.stderr
    ray_out = pool_out.parent / "ray"
    r = cli("sweep", str(spec), "--out", str(ray_out), "--ray", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "local Ray instance" in r.stdout and "4 points: 4 run" in r.stdout
    pool_rows, ray_rows = parquet_rows(pool_out), parquet_rows(ray_out)
    assert len(ray_rows) == 4
    assert canonical(ray_rows) == canonical(pool_rows)


SLOW_SPEC = """\
name = "slow"
preset = "tiny"

[grid]
gc.policy = ["greedy", "fifo", "cost-benefit", "random-greedy"]

[workloads]
randwrite = "rw=randwrite,n=1000000,iodepth=16"
"""


def test_interrupted_sweep_resumes_only_the_missing_points(tmp_path, cli):
    spec = write_spec(tmp_path, SLOW_SPEC)
    out = tmp_path / "out"
    rows_dir = out / "results"
    proc = subprocess.Popen([sys.executable, "-m", "xlssd", "sweep", str(spec), "--out", str(out), "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(rows_dir.glob("*.parquet"))) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err

    finished = {f: (os.stat(f).st_ino, os.stat(f).st_mtime_ns) for f in rows_dir.glob("*.parquet")}
    assert 2 <= len(finished) < 4
    assert not list(rows_dir.glob(".*")), "an interrupted run left a temporary file behind"

    again = cli("sweep", str(spec), "--out", str(out), "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert f"4 points: {4 - len(finished)} run, {len(finished)} already done, 0 failed" in again.stdout
    for f, stamp in finished.items():
        assert (os.stat(f).st_ino, os.stat(f).st_mtime_ns) == stamp, f"{f.name} was run again"
    rows = parquet_rows(out)
    assert sorted(r["config.gc.policy"] for r in rows) == ["cost-benefit", "fifo", "greedy", "random-greedy"]
    assert all(r["status"] == "ok" and r["host.write.count"] == 1_000_000 for r in rows)


FAILING_SPEC = """\
name = "far"
preset = "tiny"

[workloads]
near = "rw=randwrite,n=2000"
far = { trace = "far.trace" }
"""


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path, cli):
    # The trace's one request lies beyond the device: only running it can tell.
    (tmp_path / "far.trace").write_text("0 0 999999999 8 1\n")
    spec = write_spec(tmp_path, FAILING_SPEC)
    out = tmp_path / "out"
    p = cli("sweep", str(spec), "--out", str(out), "--jobs", "2")
    assert p.returncode == 1, p.stderr
    assert "2 points: 2 run, 0 already done, 1 failed" in p.stdout
    assert "failed: default / far / seed 1: WorkloadError" in p.stdout
    rows = {r["workload_name"]: r for r in parquet_rows(out)}
    assert rows["near"]["status"] == "ok" and rows["near"]["error"] is None
    assert rows["near"]["host.write.count"] == 2000
    assert rows["far"]["status"] == "failed" and "beyond the logical capacity" in rows["far"]["error"]
    assert rows["far"]["workload.kind"] == "trace"
    q = cli("results", "query", str(out), "SELECT count(*) AS n FROM results", "--format", "csv")
    assert q.stdout == "n\n1\n"
    q = cli("results", "query", str(out), "SELECT workload_name, error FROM failures", "--format", "json")
    assert '"workload_name": "far"' in q.stdout and "beyond the logical capacity" in q.stdout
    # A re-run tries the failed point again and skips the finished one.
    again = cli("sweep", str(spec), "--out", str(out), "--jobs", "2")
    assert again.returncode == 1
    assert "2 points: 1 run, 1 already done, 1 failed" in again.stdout


@pytest.mark.parametrize(
    "text, expected",
    [
        ('preset = "tiny"\n\n[grid]\ngc.policy = ["greedy"]\ngc.polcy = ["fifo"]\n', [":5: [grid] gc.polcy", "unknown field `polcy`"]),
        ('preset = "tiny"\n[grid\ngc.policy = ["greedy"]\n', ["invalid TOML", "line 2"]),
        ('preset = "tiny"\nsedes = [1]\n', [":2: unknown key `sedes`"]),
        ('preset = "tiny"\n[schemes]\nfast = { gc.policy = "fastest" }\n', [":3: [schemes] fast", "gc.policy"]),
        ('preset = "tiny"\n[workloads]\nw = "rw=sideways"\n', [":3: [workloads] w", "sideways"]),
        ('preset = "tiny"\n[workloads]\nt = { trace = "missing.trace" }\n', ["[workloads] t", "missing.trace: no such trace file"]),
        ('preset = "tiny"\nbaseline = "nope"\n', ["baseline `nope` is not one of the schemes"]),
        ('preset = "huge"\n', ["unknown preset `huge`"]),
    ],
)
def test_bad_specs_are_named_and_write_nothing(tmp_path, cli, text, expected):
    spec = write_spec(tmp_path, text)
    out = tmp_path / "out"
    p = cli("sweep", str(spec), "--out", str(out))
    assert p.returncode == 2, p.stdout + p.stderr
    assert str(spec) in p.stderr or "unknown preset" in p.stderr
    for part in expected:
        assert part in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_results_commands_name_their_errors(gc_op, cli, tmp_path):
    _, out, _ = gc_op
    empty = tmp_path / "empty"
    empty.mkdir()
    p = cli("results", "query", str(empty), "SELECT 1")
    assert p.returncode == 2 and "no results" in p.stderr
    p = cli("report", str(empty))
    assert p.returncode == 2 and "no results" in p.stderr and not (empty / "report.html").exists()
    p = cli("results", "query", str(out), "SELEC nothing")
    assert p.returncode == 2 and "SQL" in p.stderr and "Traceback" not in p.stderr
    p = cli("results", "plot", str(out), "line", "--x", "ftl.overprovisoning", "--metric", "ftl.waf")
    assert p.returncode == 2 and "ftl.overprovisoning" in p.stderr  # suggested


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_results_plots(gc_op, cli, tmp_path):
    _, out, _ = gc_op
    cases = {
        "line.png": ["line", "--x", "ftl.overprovisioning", "--metric", "ftl.waf", "--by", "gc.policy"],
        "bars.png": ["bars", "--metric", "ftl.waf", "--by", "gc.policy", "--baseline", "greedy",
                     "--group", "ftl.overprovisioning"],
        "cdf.png": ["cdf", "--op", "write", "--by", "gc.policy", "--where", '"config.ftl.overprovisioning" = 0.07'],
    }
    for name, args in cases.items():
        target = tmp_path / name
        p = cli("results", "plot", str(out), *args, "--out", str(target))
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == str(target)
        w, h = _png_size(target)
        assert w > 300 and h > 200
    p = cli("results", "plot", str(out), "bars", "--metric", "ftl.waf", "--by", "gc.policy", "--baseline", "lru")
    assert p.returncode == 2 and "baseline `lru`" in p.stderr


def _through_a_terminal(args: list[str]) -> bytes:
    """Runs the CLI with standard error on a pseudo-terminal; returns what it drew there."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "xlssd", *args], stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "COLUMNS": "160", "TERM": "xterm"})
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    return seen


def test_progress_only_on_a_terminal_and_never_with_quiet(tmp_path):
    spec = write_spec(tmp_path, SLOW_SPEC.replace("n=1000000", "n=300000"))
    drawn = _through_a_terminal(["sweep", str(spec), "--out", str(tmp_path / "a"), "--jobs", "2"])
    assert b"points" in drawn and b"failed" in drawn and b"/4" in drawn
    drawn = _through_a_terminal(["sweep", str(spec), "--out", str(tmp_path / "b"), "--jobs", "2", "--quiet"])
    assert drawn == b""
    drawn = _through_a_terminal(["run", "--workload", "n=2000000,rw=randread", "--quiet"])
    assert drawn == b""
    drawn = _through_a_terminal(["run", "--workload", "n=2000000,rw=randread", "--json", str(tmp_path / "r.json")])
    assert b"requests" in drawn and b"simulated" in drawn


def test_a_run_without_a_bar_does_not_load_the_drawing_library(tmp_path):
    # Loading rich is a third of the interpreter's start-up; a quiet run must not pay it.
    code = (
        "import sys\n"
        "from xlssd import cli\n"
        "try:\n"
        "    cli.main(['run', '--workload', 'n=100', '--quiet', '--json', sys.argv[1]])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))\n"
    )
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "r.json")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
    assert (tmp_path / "r.json").is_file()


def test_cdf_plot_draws_the_reports_sampled_distribution():
    import xlssd
    from xlssd.results import plots

    r = xlssd.simulate("tiny", "rw=randwrite,n=2000")
    row = {**dict(r.flat()), "scheme": "tiny"}
    cdf = r["host.write.latency_us.cdf"]
    fig = plots.latency_cdf([row], op="write")
    (line,) = fig.axes[0].get_lines()
    # Every sampled point strictly inside (0, 1), at the report's latencies.
    inner = [(x, q) for x, q in cdf if 0 < q < 1]
    assert list(line.get_ydata()) == [q for _, q in inner]
    assert list(line.get_xdata()) == [x for x, _ in inner]
    # A row without a CDF (an older report) falls back to its percentiles.
    del row["host.write.latency_us.cdf"]
    (line,) = plots.latency_cdf([row], op="write").axes[0].get_lines()
    assert list(line.get_xdata())[0] == r["host.write.latency_us.p50"]


def test_shares_plot_stacks_each_part_as_its_share_of_the_sum():
    from xlssd.results import plots

    rows = [{"workload_name": "a", "x": 1, "y": 3}, {"workload_name": "b", "x": 2, "y": 2},
            {"workload_name": "c", "x": 0, "y": 0}]
    ax = plots.shares(rows, ["x", "y"]).axes[0]
    xs, ys = ax.containers
    assert [p.get_height() for p in xs] == [0.25, 0.5, 0.0]
    assert [p.get_height() for p in ys] == [0.75, 0.5, 0.0]
    # Each part starts where the one below ends.
    assert [p.get_y() for p in ys] == [0.25, 0.5, 0.0]


def test_grouped_values_plot_draws_a_bar_per_series_and_category():
    from xlssd.results import plots
    from xlssd.results.errors import ResultsError

    fig = plots.grouped_values({"s1": {"k": 1.0, "m": 0.5}, "s2": {"k": 0.9}})
    s1, s2 = fig.axes[0].containers
    assert [p.get_height() for p in s1] == [1.0, 0.5]
    heights = [p.get_height() for p in s2]
    assert heights[0] == 0.9 and math.isnan(heights[1])
    with pytest.raises(ResultsError):
        plots.grouped_values({})


def test_a_point_is_another_when_its_trace_file_or_the_simulator_build_changes(tmp_path, monkeypatch):
    from xlssd.config import load_preset
    from xlssd.sweep import spec as spec_mod
    from xlssd.sweep.spec import Spec

    trace = tmp_path / "t.trace"
    trace.write_text("0 0 0 8 0\n")

    def ids():
        spec = Spec(name="s", base=load_preset("tiny"), workloads={"t": {"trace": str(trace)}})
        return [p.id for p in spec.expand()]

    first = ids()
    assert ids() == first, "the same inputs give the same point"
    # The same file rewritten (new content, new time stamp) is another point.
    trace.write_text("0 0 0 8 0\n1000 0 8 8 0\n")
    os.utime(trace, ns=(1_000_000_000, 1_000_000_000))
    rewritten = ids()
    assert rewritten != first
    # Another build of the simulator: another point, so a resumed sweep reruns it.
    monkeypatch.setattr(spec_mod, "engine_id", lambda: "another-build")
    assert ids() != rewritten


@pytest.mark.parametrize(
    "quality, expected",
    [
        ("{ lba = -8, read_after_h = 0 }", "quality: lba: value -8 is not a sector number >= 0"),
        ("{ lba = 0, read_after_h = -1.0 }", "quality: read_after_h: value -1.0 is not a number of hours >= 0"),
        ("{ lba = 0 }", "quality: expected a table with exactly lba, read_after_h"),
    ],
)
def test_a_bad_quality_table_is_named_and_writes_nothing(tmp_path, cli, quality, expected):
    (tmp_path / "t.trace").write_text("0 0 0 16 0\n")
    spec = write_spec(tmp_path, f'preset = "tiny"\n[workloads]\nt = {{ trace = "t.trace", quality = {quality} }}\n')
    out = tmp_path / "out"
    p = cli("sweep", str(spec), "--out", str(out))
    assert p.returncode == 2, p.stdout + p.stderr
    assert "[workloads] t" in p.stderr and expected in p.stderr, p.stderr
    assert not out.exists()


def test_a_trace_point_with_quality_measures_it_on_the_data_the_trace_wrote(tmp_path, cli):
    # The tiny device, every page programmed approximately, worn and read 1,000 h later:
    # the trace writes the data set (the quality tasks' data, 53 pages of 8 KB) and the
    # applications score what came back.
    from xlssd.quality.device import pack
    from xlssd.quality.evaluation import application_data

    size = 4096
    pages = len(pack(application_data(), size)[0]) // size
    (tmp_path / "t.trace").write_text("".join(f"0 0 {i * 8} 8 0\n" for i in range(pages)))
    spec = write_spec(tmp_path, 'preset = "tiny"\n'
                      'set = { physics.model = "vth", physics.program_mode = "approx-vmax", aging.initial_pe = 10000, '
                      'ecc.scheme = "ldpc", ecc.skip_approximate = true, geometry.page_size = 4096 }\n'
                      '[workloads]\nt = { trace = "t.trace", quality = { lba = 0, read_after_h = 1000 } }\n')
    out = tmp_path / "out"
    p = cli("sweep", str(spec), "--out", str(out))
    assert p.returncode == 0, p.stderr
    (row,) = parquet_rows(out)
    assert row["payload.final_read.pages"] == row["payload.final_read.host_written"] == pages
    assert row["payload.final_read.approximate"] == pages and row["payload.final_read.after_h"] == 1000
    assert row["quality.bits_flipped"] > 0
    assert 0 < row["quality.mean"] <= 1
    tasks = [k for k in row if k.startswith("quality.") and k not in ("quality.mean", "quality.bits", "quality.bits_flipped")]
    assert sorted(tasks) == ["quality.decision_tree_breast_cancer", "quality.image_camera", "quality.k_nn_iris",
                             "quality.mlp_digits", "quality.svm_digits"]
    assert row["quality.mean"] == pytest.approx(sum(row[k] for k in tasks) / len(tasks))
