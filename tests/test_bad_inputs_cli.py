"""Bad inputs of the command line's own layer: output paths, names that must not be paths,
files that are not text, results folders with stray files, sweep specs of the wrong types,
and the Python API's parameters (see badinput.py for what each case asserts)."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import xlssd
from badinput import NO_ESC, Bad, BadApi, corpus_tests, spec_case
from xlssd import ConfigError
from xlssd.atomic import FileError
from xlssd.results.errors import ResultsError

RUN = ("run", "--workload", "n=100", "--quiet")
SPEC = 'preset = "tiny"\n[workloads]\nw = "n=100"\n'
NOT_UTF8 = b'name = "x"\n# caf\xe9\n'


def _parquet(row: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([row]), buf)
    return buf.getvalue()


#: A results folder with one finished row, as `xlssd sweep` leaves it.
ROW = _parquet({"point_id": "p1", "status": "ok", "error": None, "scheme": "a$^$", "workload_name": "w",
                "seed": 1, "ftl.waf": 1.5})
RESULTS = {"res/results/p1.parquet": ROW, "res/experiment.json": '{"kind": "sweep", "points": [{"id": "p1"}]}\n'}


def fifo(name: str):
    return lambda d: os.mkfifo(d / name)


def link(name: str, to: str):
    return lambda d: os.symlink(to, d / name)


def device(name: str, major: int, minor: int):
    """A character device inside the case's folder (never the machine's own /dev/null: a
    writer that regressed would replace it for everyone)."""

    def make(d: Path) -> None:
        try:
            os.mknod(d / name, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        except PermissionError:
            pytest.skip("making a device node needs root")

    return make


def folder(name: str):
    return lambda d: (d / name).mkdir(parents=True)


CASES = [
    # -- outputs: every option that writes a file refuses what is not a regular file -----
    Bad("run-json-directory", (*RUN, "--json", "{dir}/sub"), r"--json: .*sub: is a directory", prepare=folder("sub")),
    Bad("run-json-missing-folder", (*RUN, "--json", "{dir}/nope/r.json"),
        r"--json: .*nope/r.json: cannot write: the folder .*nope does not exist"),
    Bad("run-json-folder-is-a-file", (*RUN, "--json", "{dir}/f.txt/r.json"),
        r"--json: .*: the folder .*f.txt is not a directory", files={"f.txt": "x"}),
    Bad("run-json-symlink", (*RUN, "--json", "{dir}/r.json"), r"--json: .*r.json: is a symbolic link",
        files={"real.json": "{}"}, prepare=link("r.json", "real.json")),
    Bad("run-json-link-to-stdout", (*RUN, "--json", "{dir}/out"), r"--json: .*out: is a symbolic link.*--json -",
        prepare=link("out", "/dev/stdout")),
    Bad("run-json-dangling-symlink", (*RUN, "--json", "{dir}/r.json"), r"is a symbolic link",
        prepare=link("r.json", "elsewhere/r.json")),
    Bad("run-json-fifo", (*RUN, "--json", "{dir}/p"), r"--json: .*p: is not a regular file", prepare=fifo("p")),
    Bad("run-json-device", (*RUN, "--json", "{dir}/null"), r"--json: .*null: is not a regular file.*--json -",
        prepare=device("null", 1, 3)),
    Bad("run-payload-out-full-device", (*RUN, "--payload", "{dir}/p.bin", "--payload-out", "{dir}/full"),
        r"--payload-out: .*full: is not a regular file", files={"p.bin": b"x" * 4096}, prepare=device("full", 1, 7)),
    Bad("run-json-empty", (*RUN, "--json", ""), r"--json: the path is empty"),
    Bad("run-json-proc", (*RUN, "--json", "/proc/xlssd-report.json"), r"--json: /proc/xlssd-report.json: cannot write"),
    Bad("run-payload-out-directory", (*RUN, "--payload", "{dir}/p.bin", "--payload-out", "{dir}/sub"),
        r"--payload-out: .*sub: is a directory", files={"p.bin": b"x" * 4096}, prepare=folder("sub")),
    Bad("run-payload-out-symlink", (*RUN, "--payload", "{dir}/p.bin", "--payload-out", "{dir}/back"),
        r"--payload-out: .*back: is a symbolic link", files={"p.bin": b"x" * 4096}, prepare=link("back", "p.bin")),
    Bad("run-payload-out-fifo", (*RUN, "--payload", "{dir}/p.bin", "--payload-out", "{dir}/back"),
        r"--payload-out: .*back: is not a regular file", files={"p.bin": b"x" * 4096}, prepare=fifo("back")),
    Bad("run-payload-out-missing-folder", (*RUN, "--payload", "{dir}/p.bin", "--payload-out", "{dir}/no/back"),
        r"--payload-out: .*does not exist", files={"p.bin": b"x" * 4096}),
    Bad("report-out-directory", ("report", "{dir}/res", "--out", "{dir}/res"), r"--out: .*res: is a directory",
        files=RESULTS),
    Bad("report-out-symlink", ("report", "{dir}/res", "--out", "{dir}/r.html"), r"--out: .*r.html: is a symbolic link",
        files=RESULTS, prepare=link("r.html", "res/experiment.json")),
    Bad("report-out-missing-folder", ("report", "{dir}/res", "--out", "{dir}/no/r.html"), r"does not exist",
        files=RESULTS),
    Bad("report-out-empty", ("report", "{dir}/res", "--out", ""), r"--out: the path is empty", files=RESULTS),
    Bad("report-default-is-a-symlink", ("report", "{dir}/res"), r"report.html: is a symbolic link",
        files=RESULTS, prepare=link("res/report.html", "experiment.json")),
    Bad("plot-out-directory", ("results", "plot", "{dir}/res", "bars", "--metric", "ftl.waf", "--baseline", "a$^$",
                               "--out", "{dir}/res"), r"--out: .*res: is a directory", files=RESULTS),
    Bad("plot-out-fifo", ("results", "plot", "{dir}/res", "bars", "--metric", "ftl.waf", "--baseline", "a$^$",
                          "--out", "{dir}/p"), r"--out: .*p: is not a regular file", files=RESULTS, prepare=fifo("p")),
    Bad("quality-json-directory", ("quality", "--json", "{dir}/sub", "--quiet"), r"--json: .*sub: is a directory",
        prepare=folder("sub")),
    Bad("quality-out-is-a-file", ("quality", "--out", "{dir}/f.txt", "--quiet"),
        r"--out: .*f.txt: exists and is not a directory", files={"f.txt": "x"}),
    Bad("sweep-out-is-a-file", ("sweep", "{dir}/s.toml", "--out", "{dir}/f.txt", "--quiet"),
        r"--out: .*f.txt: exists and is not a directory", files={"s.toml": SPEC, "f.txt": "x"}),
    Bad("reproduce-out-is-a-file", ("reproduce", "tecs15-ecc", "--quick", "--out", "{dir}/f.txt", "--quiet"),
        r"--out: .*f.txt: exists and is not a directory", files={"f.txt": "x"}),
    # -- names are never paths ---------------------------------------------------------
    Bad("preset-parent-path", (*RUN, "--preset", "../../../pyproject"), r"preset '../../../pyproject' is not a plain name.*presets are: .*tiny"),
    Bad("preset-absolute-path", (*RUN, "--preset", "/etc/hostname"), r"is not a plain name"),
    Bad("preset-hidden-name", (*RUN, "--preset", ".tiny"), r"preset '.tiny' is not a plain name"),
    Bad("preset-unknown", (*RUN, "--preset", "tiny2"), r"unknown preset `tiny2`; presets are: .*tiny"),
    Bad("preset-empty", (*RUN, "--preset", ""), r"preset '' is not a plain name"),
    Bad("config-base-path", (*RUN, "--config", "{dir}/c.toml"), r"preset '../presets/tiny' is not a plain name",
        files={"c.toml": 'base = "../presets/tiny"\n'}),
    Bad("quality-preset-path", ("quality", "--preset", "../tiny", "--quiet"), r"is not a plain name"),
    spec_case("sweep-name-escapes", 'name = "../../escaped"\n' + SPEC, r"s.toml:1: `name`: sweep name '../../escaped' is not a plain name"),
    spec_case("sweep-nested-too-deeply", "x = " + "[" * 5000 + "\n" + SPEC, r"s.toml: invalid TOML: arrays or inline tables nested too deeply"),
    spec_case("sweep-name-absolute", 'name = "/tmp/escaped"\n' + SPEC, r"`name`: sweep name '/tmp/escaped' is not a plain name"),
    spec_case("sweep-name-dot-dot", 'name = ".."\n' + SPEC, r"`name`: sweep name '..' is not a plain name"),
    Bad("sweep-name-from-file-name", ("sweep", "{dir}/...toml", "--quiet"), r"taken from the file name",
        files={"...toml": SPEC}),
    spec_case("sweep-preset-path", 'preset = "../presets/tiny"\n', r"preset '../presets/tiny' is not a plain name"),
    # Control characters a spec quotes reach the terminal escaped.
    spec_case("sweep-unknown-key-escape-sequence", '"\\u001b[2J\\u0007" = 1\n',
              NO_ESC + r".*s\.toml: unknown key `\\x1b\[2J\\x07`; a sweep spec has"),
    # -- files that are not UTF-8 text -------------------------------------------------
    Bad("config-not-utf8", (*RUN, "--config", "{dir}/c.toml"), r"c.toml:2: cannot read config file: not UTF-8",
        files={"c.toml": NOT_UTF8}),
    Bad("sweep-spec-not-utf8", ("sweep", "{dir}/s.toml", "--quiet"), r"s.toml:2: cannot read sweep spec: not UTF-8",
        files={"s.toml": NOT_UTF8}),
    Bad("config-is-a-directory", (*RUN, "--config", "{dir}/sub"), r"sub: cannot read config file: Is a directory",
        prepare=folder("sub")),
    # -- results folders with stray or broken files -------------------------------------
    Bad("results-junk-parquet", ("results", "query", "{dir}/res", "SELECT 1"),
        r"res/results/zz.parquet: not a results file \(Parquet\)", files={**RESULTS, "res/results/zz.parquet": "hello"}),
    Bad("results-parquet-without-identity", ("results", "query", "{dir}/res", "SELECT 1"),
        r"zz.parquet: not a results file: no column point_id, status",
        files={**RESULTS, "res/results/zz.parquet": _parquet({"a": 1})}),
    Bad("results-fifo-parquet", ("results", "query", "{dir}/res", "SELECT 1"), r"zz.parquet: not a results file \(not a regular",
        files=RESULTS, prepare=fifo("res/results/zz.parquet")),
    Bad("report-junk-parquet", ("report", "{dir}/res"), r"zz.parquet: not a results file",
        files={**RESULTS, "res/results/zz.parquet": b"PAR1"}),
    Bad("sweep-resume-into-junk", ("sweep", "{dir}/s.toml", "--out", "{dir}/res", "--quiet"), r"zz.parquet: not a results file",
        files={**RESULTS, "s.toml": SPEC, "res/results/zz.parquet": "x"}),
    Bad("results-meta-not-json", ("results", "query", "{dir}/res", "SELECT 1"),
        r"experiment.json:1: not the metadata of a results folder: invalid JSON",
        files={**RESULTS, "res/experiment.json": "{points"}),
    Bad("results-meta-not-utf8", ("results", "query", "{dir}/res", "SELECT 1"), r"experiment.json:1: .*not UTF-8",
        files={**RESULTS, "res/experiment.json": b'{"kind": "\xff"}'}),
    Bad("results-meta-not-an-object", ("report", "{dir}/res"), r"experiment.json: .*expected a JSON object",
        files={**RESULTS, "res/experiment.json": "[1, 2]"}),
    Bad("results-meta-points-without-ids", ("results", "query", "{dir}/res", "SELECT 1"),
        r"experiment.json: `points` must be a list of objects with id",
        files={**RESULTS, "res/experiment.json": '{"points": [1]}'}),
    Bad("report-figure-outside-the-folder", ("report", "{dir}/res"),
        r"experiment.json: figure `../secret.png` is outside the folder",
        files={**RESULTS, "secret.png": "x", "res/experiment.json": '{"figures": [{"file": "../secret.png", "title": "t"}]}'}),
    Bad("report-figure-is-a-fifo", ("report", "{dir}/res"), r"figures/f.png: not a figure \(not a regular file\)",
        files=RESULTS, prepare=lambda d: ((d / "res/figures").mkdir(), os.mkfifo(d / "res/figures/f.png"))),
    Bad("report-figure-links-outside", ("report", "{dir}/res"), r"figures/f.png: not a figure",
        files={**RESULTS, "secret.png": "x"}, prepare=lambda d: ((d / "res/figures").mkdir(),
                                                                  os.symlink(d / "secret.png", d / "res/figures/f.png"))),
    Bad("report-comparison-not-json", ("report", "{dir}/res"), r"comparison.json:1: invalid JSON",
        files={**RESULTS, "res/comparison.json": "[{"}),
    Bad("results-empty-sql", ("results", "query", "{dir}/res", ""), r"SQL: the query is empty", files=RESULTS),
    Bad("results-blank-sql", ("results", "query", "{dir}/res", " ; "), r"SQL: the query is empty", files=RESULTS),
    Bad("plot-metric-not-numeric", ("results", "plot", "{dir}/res", "line", "--x", "seed", "--metric", "scheme",
                                    "--out", "{dir}/p.png"), r"column scheme is not a number", files=RESULTS),
    # -- sweep specs with keys of the wrong type ----------------------------------------
    spec_case("sweep-name-integer", "name = 5\n" + SPEC, r"s.toml:1: `name`: expected a string, not integer 5"),
    spec_case("sweep-description-array", SPEC.replace("\n", '\ndescription = [1]\n', 1),
              r"s.toml:2: `description`: expected a string, not array"),
    spec_case("sweep-preset-integer", "preset = 5\n", r"s.toml:1: `preset`: expected a string, not integer 5"),
    spec_case("sweep-config-boolean", "config = true\n", r"s.toml:1: `config`: expected a string, not boolean true"),
    spec_case("sweep-seeds-string", 'seeds = "1,2"\n' + SPEC, r"s.toml:1: `seeds`: expected an array of integers"),
    spec_case("sweep-seeds-booleans", "seeds = [true]\n" + SPEC, r"s.toml:1: `seeds`: expected an array of integers"),
    spec_case("sweep-seeds-floats", "seeds = [1.5]\n" + SPEC, r"s.toml:1: `seeds`: expected an array of integers"),
    spec_case("sweep-baseline-integer", "baseline = 5\n" + SPEC, r"s.toml:1: `baseline`: expected a string"),
    spec_case("sweep-grid-integer", "grid = 5\n" + SPEC, r"s.toml:1: `grid`: expected a table"),
    spec_case("sweep-points-table", SPEC + "[points]\na = 1\n", r"s.toml:4: `points`: expected an array of tables"),
    # A scheme's needs are part of the config: refused with the spec, before any point runs.
    spec_case("sweep-scheme-needs-a-physics-model",
              SPEC + '[schemes]\nplain = {}\ncache = { "scheme.name" = "ascache", "ftl.overprovisioning" = 0.25 }\n',
              r"s.toml:6: \[schemes\] cache: config key `physics.model`: scheme `ascache` measures blocks' RBER"),
    spec_case("sweep-set-array", "set = [1]\n" + SPEC, r"s.toml:1: `set`: expected a table"),
    spec_case("sweep-workload-integer", SPEC + "v = 5\n", r"s.toml:2: `workloads`: v: expected a workload spec string"),
    spec_case("sweep-trace-integer", SPEC + "t = { trace = 5 }\n", r"s.toml:4: \[workloads\] t: trace: expected a path, not int 5"),
    spec_case("sweep-trace-empty", SPEC + 't = { trace = "" }\n', r"\[workloads\] t: trace: the path is empty"),
    spec_case("sweep-skip-bad-lines-string", SPEC + 't = { trace = "s.toml", skip_bad_lines = "yes" }\n',
              r"\[workloads\] t: skip_bad_lines: expected true or false, not str 'yes'"),
    spec_case("sweep-config-empty", 'config = ""\n', r"s.toml:1: `config`: expected the path of a config file"),
    spec_case("sweep-set-date", SPEC + "[set]\nseed = 1979-05-27\n",
              r"\[set\] seed: config key `seed`: datetime.date\(1979, 5, 27\) \(date\) is not a config value"),
    # -- empty paths and names ----------------------------------------------------------
    Bad("run-trace-empty", ("run", "--trace", "", "--quiet"), r"argument --trace: the path is empty"),
    Bad("run-payload-empty", (*RUN, "--payload", ""), r"argument --payload: the path is empty"),
    Bad("run-config-empty", (*RUN, "--config", ""), r"argument --config: the path is empty"),
    Bad("sweep-spec-empty", ("sweep", ""), r"argument SPEC.toml: the path is empty"),
    Bad("results-dir-empty", ("results", "query", "", "SELECT 1"), r"argument DIR: the path is empty"),
    Bad("reproduce-name-empty", ("reproduce", ""), r"unknown experiment ``; experiments are: "),
    Bad("run-set-toml-date", (*RUN, "--set", "seed=1979-05-27"), r"config key `seed`: .* is not a config value"),
    # Found by fuzzing: Python's TOML parser recurses once per level, and ran out of stack.
    Bad("run-set-nested-too-deeply", (*RUN, "--set", "seed=" + "[" * 5000), r"config key `seed`"),
    Bad("config-nested-too-deeply", (*RUN, "--config", "{dir}/c.toml"), r"c.toml: invalid TOML: arrays or inline tables nested too deeply",
        files={"c.toml": "seed = " + "[" * 5000 + "\n"}),
    # -- integer options the core cannot hold -------------------------------------------
    Bad("run-payload-lba-huge", (*RUN, "--payload-lba", "99999999999999999999999"),
        r"argument --payload-lba: value '99999999999999999999999' is not a sector number"),
    Bad("physics-page-type-negative", ("physics", "rber", "--model", "power-law", "--page-type", "-1"),
        r"--page-type: value -1 is out of range: expected 0 to 2"),
    Bad("physics-read-mode-huge", ("physics", "rber", "--model", "power-law", "--read-mode", "99999999999999999999"),
        r"--read-mode: value 99999999999999999999 is out of range: expected 0 to 2"),
]


def _spec(d: Path, **kw):
    from xlssd.config import load_preset
    from xlssd.sweep.spec import Spec

    return Spec(**{"name": "s", "base": load_preset("tiny"), "workloads": {"w": "n=100"}, **kw})


API_CASES = [
    BadApi("simulate-payload-str", lambda d: xlssd.simulate("tiny", "n=10", payload="abc"), TypeError, r"`payload` must be bytes"),
    BadApi("simulate-payload-lba-str", lambda d: xlssd.simulate("tiny", "n=10", payload=b"x", payload_lba="0"),
           TypeError, r"`payload_lba` must be an int"),
    BadApi("simulate-final-read-str", lambda d: xlssd.simulate("tiny", "n=10", payload=b"x", payload_final_read_after_h="1"),
           TypeError, r"`payload_final_read_after_h` must be a number"),
    BadApi("simulate-check-str", lambda d: xlssd.simulate("tiny", "n=10", check="yes"), TypeError, r"`check` must be a bool"),
    BadApi("simulate-progress-not-callable", lambda d: xlssd.simulate("tiny", "n=10", progress=5), TypeError,
           r"`progress` must be a callable"),
    BadApi("simulate-config-bytes", lambda d: xlssd.simulate(b"tiny", "n=10"), TypeError, r"`config` must be a preset name"),
    BadApi("simulate-config-preset-path", lambda d: xlssd.simulate({"base": "../pyproject"}, "n=10"), ConfigError,
           r"preset '../pyproject' is not a plain name"),
    BadApi("simulate-trace-path-int", lambda d: xlssd.simulate("tiny", xlssd.Trace(5)), TypeError, r"Trace: `path` must be"),
    BadApi("synthetic-spec-int", lambda d: xlssd.synthetic(5, xlssd.load_config("tiny")), TypeError,
           r"synthetic\(\): `spec` must be"),
    BadApi("synthetic-config-none", lambda d: xlssd.synthetic("n=10", None), TypeError, r"synthetic\(\): `config` must be a dict"),
    BadApi("load-config-sets-str", lambda d: xlssd.load_config("tiny", sets="gc.policy=fifo"), TypeError,
           r"`sets` must be a list"),
    BadApi("load-config-sets-int", lambda d: xlssd.load_config("tiny", sets=[5]), TypeError, r"`sets`: each item"),
    BadApi("load-config-preset-path", lambda d: xlssd.load_config("../../pyproject"), ConfigError, r"is not a plain name"),
    BadApi("resolve-list", lambda d: xlssd.resolve([1]), TypeError, r"`config` must be a dict, not list"),
    BadApi("resolve-set-value", lambda d: xlssd.resolve({"seed": {1}}), ConfigError, r"config key `seed`: \{1\} \(set\) is not a config value"),
    BadApi("simulate-workload-path-object", lambda d: xlssd.simulate("tiny", {"kind": "trace", "path": d, "format": None}),
           ConfigError, r"workload key `path`: .*PosixPath"),
    BadApi("spec-name-int", lambda d: _spec(d, name=5), TypeError, r"Spec: `name` must be a str"),
    BadApi("spec-name-path", lambda d: _spec(d, name="../../escaped"), ConfigError, r"sweep name '../../escaped' is not a plain name"),
    BadApi("spec-seeds-str", lambda d: _spec(d, seeds="1"), TypeError, r"Spec: `seeds` must be a list"),
    BadApi("spec-workload-int", lambda d: _spec(d, workloads={"w": 5}).expand(), ConfigError,
           r"\[workloads\] w: expected a workload spec string"),
    BadApi("spec-scheme-not-table", lambda d: _spec(d, schemes={"a": "fifo"}).expand(), ConfigError,
           r"\[schemes\] a: expected a table"),
    BadApi("run-sweep-into-a-device", lambda d: __import__("xlssd.sweep.runner").sweep.runner.run_sweep(_spec(d), "/dev/null"),
           FileError, r"/dev/null/results: cannot create the folder"),
    BadApi("write-text-into-a-missing-folder", lambda d: __import__("xlssd.atomic").atomic.write_text(d / "no" / "x", "x"),
           FileError, r"no/x: cannot write: the folder .*no does not exist"),
    BadApi("write-bytes-to-a-directory", lambda d: __import__("xlssd.atomic").atomic.write_bytes(d, b"x"),
           OSError, r"is a directory"),
    BadApi("report-of-an-empty-folder", lambda d: __import__("xlssd.htmlreport").htmlreport.write_report(d),
           ResultsError, r"no results"),
]


test_bad_input, test_bad_api_call = corpus_tests(CASES, API_CASES)
