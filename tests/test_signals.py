"""Ctrl-C and SIGTERM stop every long command within a second, whatever it is doing: a
quiet run whose standard error is not a terminal, a sweep on the local pool and on Ray, a
reproduction, and a run blocked reading a pipe that never delivers. Each command runs in a
session of its own; SIGINT goes to its whole process group, as a terminal's Ctrl-C does,
and SIGTERM to the process alone, as `kill` does. Each must exit with 128 + the signal's
number within a second of the signal, print one line saying so and no traceback, leave no
partial or temporary file and no process of its own behind; a sweep must keep the points
it finished, and a rerun must run only the others. The Python API raises what a progress
callback raised, as itself."""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import xlssd

#: The longest a command may take to exit after the signal.
STOP_WITHIN_S = 1.0
#: Long enough for the interpreter and the simulator to start; the workloads below could
#: not finish in many times this.
START_UP_S = 2.0
SIGNALS = [pytest.param(signal.SIGINT, id="sigint"), pytest.param(signal.SIGTERM, id="sigterm")]
LONG_RUN = ("--workload", "rw=randwrite,n=1000000000,iodepth=16")


@dataclass
class Stopped:
    code: int
    seconds: float
    stderr: str


def start(args: list[str], folder: Path) -> subprocess.Popen:
    """`xlssd ARGS` in `folder`, in a session of its own, its output in files (a pipe
    nobody reads could hold it up)."""
    out = open(folder.parent / f"{folder.name}.stdout", "wb")
    err = open(folder.parent / f"{folder.name}.stderr", "wb")
    with out, err:
        return subprocess.Popen([sys.executable, "-m", "xlssd", *args], cwd=folder, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)


def stop(proc: subprocess.Popen, signum: int, folder: Path) -> Stopped:
    """Sends `signum` (SIGINT to the process group, SIGTERM to the process) and times the
    command's exit; then waits for its process group to be gone."""
    assert proc.poll() is None, "the command ended before the signal"
    sent = time.monotonic()
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"the command was still running 30 s after {signal.Signals(signum).name}")
    seconds = time.monotonic() - sent
    deadline = time.monotonic() + 5
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _group_alive(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, "processes of the command outlived it"
    stderr = (folder.parent / f"{folder.name}.stderr").read_text(errors="replace")
    return Stopped(proc.returncode, seconds, stderr)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # Zombies waiting for their reaper count as gone.
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def assert_stopped(s: Stopped, signum: int) -> None:
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert s.code == 128 + signum, f"exit {s.code}, expected {128 + signum}\n{s.stderr}"
    assert s.seconds < STOP_WITHIN_S, f"exited {s.seconds:.2f} s after the signal\n{s.stderr}"
    assert "Traceback" not in s.stderr, s.stderr
    assert s.stderr.strip().splitlines()[-1] == f"xlssd: {word}", s.stderr


def temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob(".*") if p.is_file()]


def wait_for(condition, proc: subprocess.Popen, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            pytest.fail(f"the command ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"no {what} within {timeout:.0f} s")
        time.sleep(0.02)


def case_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "case"
    folder.mkdir()
    return folder


# -- one run ----------------------------------------------------------------------------


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_quiet_run_without_a_terminal_stops(signum, tmp_path):
    folder = case_folder(tmp_path)
    proc = start(["run", "--quiet", *LONG_RUN, "--json", "report.json"], folder)
    time.sleep(START_UP_S)
    assert_stopped(stop(proc, signum, folder), signum)
    assert list(folder.iterdir()) == [], "an interrupted run wrote a file"


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("detect", [True, False], ids=["format-detected", "format-given"])
def test_a_run_blocked_on_a_silent_pipe_stops(signum, detect, tmp_path):
    # Detecting the format reads the pipe on the simulation's thread; with the format given
    # the reader thread blocks and the simulation waits for its first chunk.
    folder = case_folder(tmp_path)
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a writer that opened the pipe and writes nothing
    try:
        proc = start(["run", "--quiet", "--trace", str(fifo), *([] if detect else ["--format", "mqsim"]),
                      "--json", "report.json"], folder)
        time.sleep(START_UP_S)
        assert_stopped(stop(proc, signum, folder), signum)
    finally:
        os.close(writer)
    assert list(folder.iterdir()) == [], "an interrupted run wrote a file"


# -- sweeps and reproductions -----------------------------------------------------------

# Two quick points, then two long ones (a few seconds each): once the quick ones are
# written, the long ones are running and far from done.
SWEEP = """\
name = "stop"
preset = "tiny"
seeds = [1, 2]

[workloads]
quick = "rw=randwrite,n=2000"
long = "rw=randwrite,n=1000000,iodepth=16"
"""


def rows(out: Path) -> dict[Path, tuple[int, int]]:
    return {f: (f.stat().st_ino, f.stat().st_mtime_ns) for f in (out / "results").glob("*.parquet")}


def interrupted_sweep(tmp_path: Path, signum: int, backend: list[str]) -> None:
    folder = case_folder(tmp_path)
    (folder / "stop.toml").write_text(SWEEP)
    command = ["sweep", "stop.toml", "--out", "out", "--jobs", "2", "--quiet", *backend]
    proc = start(command, folder)
    out = folder / "out"
    try:
        wait_for(lambda: len(rows(out)) >= 2, proc, "finished point")
    except pytest.fail.Exception:
        err = (tmp_path / "case.stderr").read_text(errors="replace")
        if backend and proc.returncode not in (None, 0) and "ray" in err.lower():
            pytest.skip(f"Ray cannot start on this machine: {err.strip().splitlines()[-1]}")
        raise
    s = stop(proc, signum, folder)
    assert_stopped(s, signum)
    finished = rows(out)
    assert len(finished) == 2, "the long points could not have finished: only the quick ones are written"
    assert not temporaries(out), f"temporary files left: {temporaries(out)}"

    # The same command, printing its summary.
    rerun = [a for a in command if a != "--quiet"]
    again = subprocess.run([sys.executable, "-m", "xlssd", *rerun], cwd=folder, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert "4 points: 2 run, 2 already done, 0 failed" in again.stdout, again.stdout
    for f, stamp in finished.items():
        assert rows(out).get(f) == stamp, f"{f.name} was run again"
    assert len(rows(out)) == 4


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_sweep_on_the_local_pool_stops_and_resumes(signum, tmp_path):
    interrupted_sweep(tmp_path, signum, [])


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_sweep_on_ray_stops_and_resumes(signum, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed")
    interrupted_sweep(tmp_path, signum, ["--ray"])


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_reproduction_stops(signum, tmp_path):
    # The full tecs15-ecc reproduction: 195 points, several seconds after its first.
    folder = case_folder(tmp_path)
    proc = start(["reproduce", "tecs15-ecc", "--out", "out", "--jobs", "2", "--quiet"], folder)
    out = folder / "out"
    wait_for(lambda: len(rows(out)) >= 1, proc, "finished point")
    assert_stopped(stop(proc, signum, folder), signum)
    assert 1 <= len(rows(out)) < 195
    # Its results so far and the workloads it generated (written whole before any point
    # that needs them), but no table, figure or report.
    written = sorted(p.name for p in out.iterdir())
    assert written in (["experiment.json", "results"], ["experiment.json", "results", "traces"]), \
        f"an interrupted reproduction wrote {written}"
    assert not temporaries(out), f"temporary files left: {temporaries(out)}"


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_stop_that_arrives_in_a_destructor_still_stops_the_command(signum, monkeypatch, capsys):
    # Python ignores an exception raised while an object is finalised (it prints "Exception
    # ignored in" and a traceback, and goes on): a stop arriving in a library's destructor
    # at the very end of a command (pyarrow's Parquet writer, closing a reproduction's
    # results) let the command finish and exit 0. It is reported as any other stop.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    import argparse
    from xlssd import cli

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signum)
            time.sleep(0.2)  # the handler runs here, inside the destructor

    finished = []

    def command(args) -> int:
        Finalised()  # dropped at once
        finished.append(True)
        return 0

    monkeypatch.setitem(cli.COMMANDS, "run", command)
    code = cli._execute(argparse.Namespace(command="run"))
    assert finished, "the destructor's stop was expected to be swallowed by Python, not raised"
    assert code == 128 + signum
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert capsys.readouterr().err == f"xlssd: {word}\n"


# -- the Python API ---------------------------------------------------------------------


def _signal_set(pid: int, field: str) -> set[int]:
    mask = next(int(line.split()[1], 16) for line in open(f"/proc/{pid}/status") if line.startswith(f"{field}:"))
    return {n for n in range(1, 65) if mask >> (n - 1) & 1}


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("threads", [0, 1], ids=["alone", "beside-a-thread"])
def test_processes_started_for_a_pool_cannot_be_stopped_from_their_start(signum, threads):
    # A pool worker still importing when Ctrl-C reaches the process group would die with a
    # traceback of its own before it could ignore the signal; started with it blocked, it
    # cannot. The stop itself waits for the block's end and is then raised, not lost, also
    # when another thread of the process (one that blocks nothing) is the one it reaches.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    from xlssd import signals
    ctx = multiprocessing.get_context("spawn")
    idle = threading.Event()
    others = [threading.Thread(target=idle.wait) for _ in range(threads)]
    for t in others:
        t.start()
    reached_the_end = False
    try:
        with signals.handled():
            handlers = [signal.getsignal(s) for s in signals.HANDLED]
            with pytest.raises(KeyboardInterrupt) as stopped:
                with signals.shielded_children():
                    child = ctx.Process(target=time.sleep, args=(30,))
                    child.start()
                    try:
                        blocked = _signal_set(child.pid, "SigBlk")
                    finally:
                        child.kill()
                        child.join()
                    os.kill(os.getpid(), signum)
                    time.sleep(0.05)
                    reached_the_end = True
            after = [signal.getsignal(s) for s in signals.HANDLED]
    finally:
        idle.set()
        for t in others:
            t.join()
    assert {signal.SIGINT, signal.SIGTERM} <= blocked
    assert reached_the_end
    assert signals.exit_code(stopped.value) == 128 + signum
    assert after == handlers, "the process's own handlers were not put back"
    assert not {signal.SIGINT, signal.SIGTERM} & _signal_set(os.getpid(), "SigBlk")


def _sweep_tasks(tmp_path: Path) -> list[dict]:
    from xlssd.sweep.spec import load_spec
    (tmp_path / "stop.toml").write_text(SWEEP)
    return [p.task() for p in load_spec(tmp_path / "stop.toml").expand()]


def test_a_stopped_local_pool_leaves_nothing_of_itself_running(tmp_path):
    # After a stop the command prints its last line and exits at once; a thread of the pool
    # still at work then (failing the points it was told to cancel, or waiting for the rest
    # of a row a killed worker was sending) would print after that line or never end.
    from xlssd.sweep.backends import LocalPool
    threads = set(threading.enumerate())
    rows = LocalPool(2).run(_sweep_tasks(tmp_path))
    assert next(rows)["status"] == "ok"
    assert len(multiprocessing.active_children()) == 2
    rows.close()
    assert set(threading.enumerate()) == threads
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_fails_its_point_only(tmp_path):
    # One quick point, then three long ones: when the quick one's row arrives both workers
    # are on long points (a worker is given its next point before its row is passed on),
    # so the worker killed then dies under a point.
    from xlssd.sweep.backends import LocalPool
    tasks = _sweep_tasks(tmp_path)
    quick = [t for t in tasks if t["workload_name"] == "quick"]
    long = [t for t in tasks if t["workload_name"] == "long"]
    tasks = quick[:1] + long + long[:1]
    tasks[-1] = {**tasks[-1], "point_id": "long-again"}
    rows = LocalPool(2).run(tasks)
    got = [next(rows)]
    assert got[0]["point_id"] == quick[0]["point_id"]
    os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)
    got += list(rows)
    assert sorted(r["point_id"] for r in got) == sorted(t["point_id"] for t in tasks)
    failed = [r for r in got if r["status"] != "ok"]
    assert len(failed) == 1, failed
    assert failed[0]["point_id"] != quick[0]["point_id"]
    assert failed[0]["error"] == f"its worker process ended (exit code {-signal.SIGKILL})"
    assert multiprocessing.active_children() == []


class Refused(Exception):
    pass


def test_an_exception_of_the_progress_callback_is_raised_as_itself():
    def progress(done, simulated_ns):
        raise Refused(f"stop at {done}")

    with pytest.raises(Refused, match=r"stop at \d+"):
        xlssd.simulate("tiny", "rw=randwrite,n=1000000", progress=progress)

    class SetUp:
        def __call__(self, done, simulated_ns):
            return True

        def setup(self, stage, done, total):
            raise Refused(stage)

    with pytest.raises(Refused, match="preconditioning"):
        xlssd.simulate({"base": "tiny", "precondition": {"occupancy": 0.5}}, "n=100", progress=SetUp())

    def interrupting(done, simulated_ns):
        raise KeyboardInterrupt("from the callback")

    with pytest.raises(KeyboardInterrupt, match="from the callback"):
        xlssd.simulate("tiny", "rw=randwrite,n=1000000", progress=interrupting)
    # Returning False stops the run as Ctrl-C would.
    with pytest.raises(KeyboardInterrupt):
        xlssd.simulate("tiny", "rw=randwrite,n=1000000", progress=lambda done, ns: False)


def test_ctrl_c_stops_an_api_run_without_a_progress_callback():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # Ctrl-C as an interactive interpreter handles it. A shell starts a background command
    # (`make test &`) with SIGINT ignored, and Python then leaves it ignored: the signal
    # would be lost and the run go on for hours. So the test sets Python's handler itself
    # and puts back what it found.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    # Should the run still go on after the signal, the stacks of every thread are printed
    # and the suite ends at once instead of hanging for hours (the run would take them).
    faulthandler.dump_traceback_later(120, exit=True)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            xlssd.simulate("tiny", "rw=randwrite,n=1000000000,iodepth=16")
    finally:
        timer.cancel()
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGINT, inherited)
    assert time.monotonic() - started < 0.5 + STOP_WITHIN_S


# -- a stop while a file is being written -----------------------------------------------


def signalled_after(real, signum):
    """`real`, then `signum` sent to this process: the stop arrives the moment `real` returns."""
    def call(*args, **kwargs):
        result = real(*args, **kwargs)
        os.kill(os.getpid(), signum)
        return result
    return call


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("moment", ["created", "renamed"])
def test_a_stop_as_a_file_is_created_or_renamed_leaves_no_temporary(signum, moment, tmp_path, monkeypatch):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    from xlssd import atomic, signals
    if moment == "created":
        monkeypatch.setattr(atomic, "_create_temporary", signalled_after(atomic._create_temporary, signum))
    else:
        monkeypatch.setattr(atomic.os, "replace", signalled_after(atomic.os.replace, signum))
    target = tmp_path / "row.parquet"
    with pytest.raises(KeyboardInterrupt):
        with signals.handled():
            atomic.write_text(target, "row\n")
    # Stopped before the block ran, nothing is written; stopped once it was renamed, the file is whole.
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if moment == "created" else ["row.parquet"])
    if moment == "renamed":
        assert target.read_text() == "row\n"


def test_a_stop_at_any_moment_of_a_write_leaves_the_file_whole_or_absent(tmp_path):
    # Python runs a signal handler at a function call; a stop can therefore raise at any
    # call made while the command's own handler is in place (not while `signals.held`
    # defers it). Each round raises KeyboardInterrupt at the next such call of one write,
    # then runs what the process runs as it exits.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    from xlssd import atomic, signals
    target = tmp_path / "row.txt"
    rounds = 0
    while True:
        calls = 0

        def tracer(frame, event, arg):
            nonlocal calls
            if event == "call" and signal.getsignal(signal.SIGINT) is signals._stop:
                calls += 1
                if calls == rounds + 1:
                    raise KeyboardInterrupt(f"{frame.f_code.co_name}, line {frame.f_lineno}")
            return None

        stopped = False
        with signals.handled():
            sys.settrace(tracer)
            try:
                atomic.write_text(target, "row\n")
            except KeyboardInterrupt as e:
                stopped = str(e) or True
            finally:
                sys.settrace(None)
        atomic._remove_pending()
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left in ([], ["row.txt"]), f"stopped at call {rounds + 1} ({stopped}): {left}"
        if left:
            assert target.read_text() == "row\n"
            target.unlink()
        if not stopped:
            break
        rounds += 1
    assert rounds >= 4, "too few moments to stop at: the test no longer sees the write"
