"""The Python API: `xlssd.simulate(config, workload) -> Report`."""

import subprocess
import sys
from pathlib import Path

import pytest

import xlssd


def test_simulate_with_preset_and_spec():
    r = xlssd.simulate("tiny", "rw=randread,n=1000,iodepth=4")
    assert r["host.read.count"] == 1000
    assert r["host.read.latency_us.p50"] > 0
    assert "host.read.latency_us.p99_99" in r


def test_simulate_with_dict_config_and_dict_workload():
    cfg = {"geometry": {"channels": 1}, "cache": {"capacity_bytes": 0}}
    r = xlssd.simulate(cfg, {"rw": "randwrite", "n": 500, "iodepth": 1})
    assert r["config.geometry.channels"] == 1
    assert r["host.write.count"] == 500
    # Without a buffer, every write waits for its program.
    assert r["host.write.latency_us.p50"] >= r["config.timing.program_us"]


def test_report_flattening_and_missing_keys():
    r = xlssd.simulate("tiny", "n=100")
    flat = dict(r.flat())
    assert flat["host.all.count"] == 100
    with pytest.raises(KeyError):
        r["host.nothing"]


def test_placement_handles_flatten_to_a_column_per_handle():
    cfg = {"base": "tiny", "ftl": {"placement_handles": 3}, "cache": {"capacity_bytes": 0}}
    r = xlssd.simulate(cfg, "rw=randwrite,n=3000,iodepth=4,contexts=6,handles=3")
    flat = dict(r.flat())
    hosts = [flat[f"ftl.placement.per_handle.{h}.host_pages"] for h in range(3)]
    assert sum(hosts) == r["ftl.host_pages_written"] == 3000
    # Contexts 1 and 4 write under handle 0; the Zipf law makes context 1 the busiest.
    assert hosts[0] > hosts[1] > hosts[2] > 0
    assert all(f"ftl.placement.per_handle.{h}.waf" in flat for h in range(3))


def test_bad_config_raises_config_error():
    with pytest.raises(xlssd.ConfigError, match="gc.threshold"):
        xlssd.simulate({"gc": {"threshold": 2.0}}, "n=10")


def test_progress_callback_can_stop_the_run():
    calls = []

    def stop(done, sim_ns):
        calls.append(done)
        return False

    with pytest.raises(KeyboardInterrupt):
        xlssd.simulate("tiny", "n=400000,rw=randread", progress=stop)
    assert calls


class _SetupRecorder:
    def __init__(self, stop_setup=False):
        self.setup_calls = []
        self.run_calls = 0
        self.stop_setup = stop_setup

    def setup(self, stage, done, total):
        self.setup_calls.append((stage, done, total))
        return not self.stop_setup

    def __call__(self, done, sim_ns):
        self.run_calls += 1
        return True


def test_progress_object_hears_preconditioning_then_the_run():
    cfg = {"base": "tiny", "precondition": {"occupancy": 0.6, "steady_state": True}}
    p = _SetupRecorder()
    r = xlssd.simulate(cfg, "n=200000,rw=randread", progress=p)
    stages = {s for s, _, _ in p.setup_calls}
    assert stages == {"preconditioning"}
    done = [d for _, d, _ in p.setup_calls]
    totals = {t for _, _, t in p.setup_calls}
    # Every logical page preconditioned is counted once, in steps that only go up.
    (total,) = totals
    assert done == sorted(done) and done[-1] == total
    assert total == round(0.6 * r["ftl.logical_pages"])
    assert p.run_calls > 0


def test_progress_setup_returning_false_stops_before_the_run():
    cfg = {"base": "tiny", "precondition": {"occupancy": 0.6}}
    p = _SetupRecorder(stop_setup=True)
    with pytest.raises(KeyboardInterrupt):
        xlssd.simulate(cfg, "n=1000", progress=p)
    assert len(p.setup_calls) == 1 and p.run_calls == 0


@pytest.mark.parametrize("preset", xlssd.preset_names())
def test_every_preset_is_valid_and_runs(preset):
    r = xlssd.simulate(preset, "rw=randrw,n=200,iodepth=4", check=True)
    assert r["host.all.count"] == 200


def test_a_trace_is_an_immutable_value():
    t = xlssd.Trace("a.trace", "mqsim")
    assert t == xlssd.Trace("a.trace", "mqsim") and hash(t) == hash(xlssd.Trace("a.trace", "mqsim"))
    assert t != xlssd.Trace("a.trace") and t != xlssd.Trace("a.trace", "mqsim", True) and t != ("a.trace", "mqsim", False)
    assert len({t, xlssd.Trace("a.trace", "mqsim"), xlssd.Trace("b.trace")}) == 2
    assert repr(t) == "Trace(path='a.trace', format='mqsim', skip_bad_lines=False)"
    with pytest.raises(AttributeError, match="immutable"):
        t.path = "b.trace"
    with pytest.raises(AttributeError, match="immutable"):
        del t.format
    assert t.as_workload() == {"kind": "trace", "path": "a.trace", "format": "mqsim", "skip_bad_lines": False}


def test_importing_the_package_leaves_out_what_a_run_does_not_need():
    # Each of these costs several milliseconds of every command's start.
    import subprocess
    import sys

    code = "import sys, xlssd.cli; print(' '.join(m for m in ('dataclasses', 'inspect', 'rich') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
    # Nor does a whole run, report written, load what writing a file or parsing the command
    # line would pull in through the standard library's own helpers, nor pathlib and typing
    # (about 3 ms each, with what they load).
    unwanted = ("dataclasses", "inspect", "rich", "tempfile", "shutil", "random", "xlssd.quality.command", "tomllib",
                "pathlib", "typing")
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(' '.join(m for m in {unwanted!r} if m in sys.modules)))\n"
        "sys.argv = ['xlssd', 'run', '--workload', 'n=10', '--quiet', '--json', sys.argv[1]]\n"
        "from xlssd.cli import command\n"
        "command()\n"
    )
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", code, f"{tmp}/r.json"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", out.stdout


SET_VALUES = [
    # What --set is given most: numbers, booleans, quoted and bare strings.
    "3000", "-2", "+7", "0", "-0", "1_000", "0x1F", "0o17", "0b101", "0.25", "-2.5e-7", "1e3", "1E+3", "6.02e23",
    "true", "false", '"power-law"', "'lit'", '"x\\u00e5"', '""', "fifo", "approxftl", "power-law", "a b", "",
    "  42  ", "True", "yes", "none", "null",
    # Arrays and inline tables.
    "[1, 2]", "[]", '["a", "b"]', "[1, [2, 3]]", "{a = 1, b = 'x'}", "{}", "[1, 2,]",
    # What the core's reading cannot carry into JSON, or not at all: tomllib reads them.
    "nan", "inf", "-inf", "+nan", "1e400", "[1.0, nan]", "{x = inf}", "1979-05-27", "1979-05-27T07:32:00Z",
    "07:32:00", "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
    "[" * 200 + "]" * 200, "{a = " * 150 + "1" + "}" * 150, "[" * 5000 + "]" * 5000,
    # Not TOML: bare strings either way.
    "1.2.3", "01", "1__0", "_1", "1_", "0x", '"unterminated', "[1,", "{a = 1,}", "true_", "1 2", "v = 1",
    "3000 # a comment", "'a\nb'", "\"quoted\"",
    # What a later TOML (1.1) allows and TOML 1.0, tomllib's, does not: bare strings as before.
    '"\\x41"', '"\\e"', "{a = 1,\n b = 2}", "07:32", "1979-05-27 07:32", ".5", "5.", "+0x10", "00",
]


@pytest.mark.parametrize("text", SET_VALUES)
def test_a_set_value_reads_as_tomllib_reads_it(text):
    # `--set` values are read by the core's TOML parser and fall back to tomllib where that
    # reading cannot carry the value; the reference is the tomllib reading --set had before.
    import math
    import tomllib

    from xlssd.config import parse_value

    try:
        want = tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):  # too deep for tomllib: not TOML to it
        want = text
    got = parse_value(text)
    assert type(got) is type(want), (text, got, want)
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
    elif isinstance(want, list) and any(isinstance(x, float) and math.isnan(x) for x in want):
        assert repr(got) == repr(want)
    else:
        assert got == want, text


TOML_DOCUMENTS = [
    # Valid TOML 1.0: tables, arrays of tables, dotted and quoted keys, every kind of string.
    "", "# only a comment\n", "a = 1\nb = 'x'\n[t]\nc = [1, 2.5, \"s\", [true]]\n",
    "[[runs]]\nn = 1\n[[runs]]\nn = 2\n[runs.sub]\nx = 1\n", "a.b.c = 1\na.d = 2\n\"q k\" = 3\n'' = 4\n",
    's = """\nline one \\\n   still one\nline two"""\n', "s = '''\nraw \\n stays'''\n",
    's = "tab\there \\u00e5 \\U0001F600"\n', "a = 1\r\nb = 2\r\n",
    "x = -0.0\ny = 6.02e23\nz = 1_000\nh = 0xdead_beef\no = 0o17\nb = 0b101\n",
    "i = 9223372036854775807\nj = -9223372036854775808\n", "t = {a = 1, b = {c = [1, {d = 2}]}}\n",
    "[a]\n[a.b]\n[c]\nx = 1\n[a.d]\ny = 2\n", "arr = [\n  1,\n  2, # two\n]\n",
    # What the core's reading cannot carry into JSON: tomllib reads them.
    "x = nan\n", "x = [1.0, -inf]\n", "x = 1e400\n", "d = 1979-05-27\n", "t = {when = 07:32:00}\n",
    "i = 9223372036854775808\n", "a = " + "[" * 300 + "]" * 300 + "\n",
    # Not TOML 1.0: both refuse.
    "a = 1\na = 2\n", "[t]\n[t]\n", "a = 01\n", 'a = "unterminated\n', "a = {b = 1,}\n", "a = 1 b = 2\n",
    "a.b = 1\n[a]\nb = 2\n", 's = "bad \\q escape"\n', 's = "ctrl \x01 char"\n',
    # A byte-order mark (some editors write one): tomllib refuses it, the core reads the rest.
    "\ufeffa = 1\n",
    "= 1\n", "[a\n", "x = [1\n", "x = .5\n", "x = +0x10\n", "x = 1979-05-27 07:32\n",
    # What TOML 1.1 allows and 1.0 does not: refused as before.
    's = "\\x41"\n', 's = "\\e"\n', "t = {a = 1,\n b = 2}\n", "t = 07:32\n",
]


def _repo_toml_files():
    root = Path(__file__).resolve().parent.parent
    names = subprocess.run(["git", "ls-files", "*.toml"], cwd=root, capture_output=True, text=True).stdout.split()
    return [(root / n).read_text(encoding="utf-8") for n in names]


@pytest.mark.parametrize("text", TOML_DOCUMENTS + _repo_toml_files())
def test_a_toml_document_reads_as_tomllib_reads_it(text):
    # Config files and sweep specs are read by the core's TOML parser, falling back to
    # tomllib for what that reading cannot carry and for what the core refuses; the
    # reference is tomllib's reading, which they had before, and its error where it refuses.
    import tomllib

    from xlssd.config import load_toml

    if text.startswith("\ufeff"):
        assert load_toml(text) == tomllib.loads(text[1:])
        return
    try:
        want = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        with pytest.raises(tomllib.TOMLDecodeError):
            load_toml(text)
        return
    got = load_toml(text)
    # repr keeps int and float apart, and NaN, infinities and dates as they are.
    assert repr(got) == repr(want), text


def test_a_run_with_a_config_file_loads_no_toml_parser(tmp_path):
    # tomllib costs about 12 ms of start-up; a config file is read by the core.
    config = tmp_path / "c.toml"
    config.write_text('base = "tiny"\n[gc]\npolicy = "fifo"\n')
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('tomllib' in sys.modules))\n"
        "sys.argv = ['xlssd', 'run', '--config', sys.argv[1], '--workload', 'n=10', '--quiet', '--json', sys.argv[2]]\n"
        "from xlssd.cli import command\n"
        "command()\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(config), str(tmp_path / "r.json")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def test_merging_and_setting_keys_leave_their_inputs_alone():
    from xlssd.config import apply_sets, merge

    base = {"gc": {"policy": "greedy", "list": [1, [2]]}, "seed": 1}
    over = {"gc": {"threshold": 0.1, "extra": {"x": [3]}}}
    merged = merge(base, over)
    assert merged == {"gc": {"policy": "greedy", "list": [1, [2]], "threshold": 0.1, "extra": {"x": [3]}}, "seed": 1}
    merged["gc"]["list"][1].append(9)
    merged["gc"]["extra"]["x"].append(9)
    assert base == {"gc": {"policy": "greedy", "list": [1, [2]]}, "seed": 1}
    assert over == {"gc": {"threshold": 0.1, "extra": {"x": [3]}}}
    set_ = apply_sets(base, ["gc.policy=fifo", "host.queue_depth=4"])
    assert set_["gc"]["policy"] == "fifo" and set_["host"] == {"queue_depth": 4}
    set_["gc"]["list"][1].append(9)
    assert base == {"gc": {"policy": "greedy", "list": [1, [2]]}, "seed": 1}


def test_a_run_with_set_values_loads_no_toml_parser():
    # tomllib costs about 15 ms of start-up; a preset and --set values are read by the core.
    import subprocess
    import sys
    import tempfile

    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('tomllib' in sys.modules))\n"
        "sys.argv = ['xlssd', 'run', '--preset', 'tiny', '--set', 'physics.model=\"power-law\"', '--set',\n"
        "            'aging.initial_pe=3000', '--set', 'gc.policy=fifo', '--workload', 'n=10', '--quiet', '--json', sys.argv[1]]\n"
        "from xlssd.cli import command\n"
        "command()\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", code, f"{tmp}/r.json"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def test_the_core_reads_every_preset_as_tomllib_does():
    # A run from a preset reads it with the core's TOML parser; Python's own is the reference,
    # key order included (json.dumps keeps it).
    import json
    import tomllib

    from xlssd import _core
    from xlssd.config import _read_preset, load_preset, preset_names

    names = preset_names()
    assert len(names) >= 10
    for name in names:
        text = _read_preset(name)
        reference = tomllib.loads(text)
        assert json.dumps(json.loads(_core.toml_to_json(text))) == json.dumps(reference), name
        assert json.dumps(load_preset(name)) == json.dumps(reference), name
    # Every kind of value and table a TOML document can hold, but dates.
    text = 'a = 1\nb = -2.5e-7\nc = "x\\u00e5"\nd = [1, [2, 3]]\ne = { f = true, g = \'lit\' }\n[z.y]\nh = 0x1F\n[[arr]]\ni = 1\n[[arr]]\ni = 2\n'
    assert json.dumps(json.loads(_core.toml_to_json(text))) == json.dumps(tomllib.loads(text))
    with pytest.raises(_core.ConfigError, match="line 2"):
        _core.toml_to_json("a = 1\n[b\n")
