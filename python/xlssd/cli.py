"""The `xlssd` command line."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import json
import os
import sys
from collections.abc import Sequence

from xlssd import __version__, _core, signals
from xlssd.atomic import checked_target, make_dir, path_argument, write_bytes, write_text
from xlssd.config import load_config, preset_description, preset_names
from xlssd.progress import simulation_bar
from xlssd.report import Report
from xlssd.summary import summary
from xlssd.workload import FORMATS, Trace, synthetic

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any

EXIT_USER_ERROR = 2
EXIT_SIMULATION_ERROR = 3
#: A reader that went away (`xlssd ... | head`): the shell's code for a death by SIGPIPE.
EXIT_BROKEN_PIPE = 128 + 13


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized to the terminal without importing `shutil` (which loads
    the compression modules: milliseconds of every command's start, as every argument
    added makes a formatter). The width is found as `shutil.get_terminal_size` finds it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    with contextlib.suppress(ValueError):
        if (columns := int(os.environ.get("COLUMNS", "0"))) > 0:
            return columns
    with contextlib.suppress(AttributeError, ValueError, OSError):
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    return 80


class _Parser(argparse.ArgumentParser):
    """Every parser and subparser of the command line uses [`_Formatter`]."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. For `xlssd run ...` (the command first, as it always is when
    it runs a simulation) only that command's parser is built: the others, never used then,
    would cost milliseconds of every run's start."""
    p = _Parser(prog="xlssd", description="A white-box, cross-layer NAND-flash SSD simulator.")
    p.add_argument("--version", action="version", version=f"xlssd {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run one simulation", description="Run one simulation and report on it.")
    dev = run.add_mutually_exclusive_group()
    dev.add_argument("--preset", metavar="NAME", help="device preset (see `xlssd presets`); default: tiny")
    dev.add_argument("--config", type=path_argument, metavar="FILE", help="config file (TOML); `base = \"PRESET\"` inherits a preset")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                     help="override a config key, e.g. --set gc.policy=fifo (repeatable)")
    wl = run.add_mutually_exclusive_group()
    wl.add_argument("--trace", type=path_argument, metavar="FILE", help="replay a trace file")
    wl.add_argument("--workload", metavar="SPEC",
                    help="synthetic workload in fio's terms, e.g. rw=randwrite,bs=4k,n=100000,iodepth=32")
    run.add_argument("--format", choices=FORMATS, help="trace format (default: detected)")
    run.add_argument("--skip-bad-lines", action="store_true", help="skip and count malformed trace lines")
    run.add_argument("--address-mode", choices=("error", "wrap"),
                     help="addresses beyond the logical capacity: stop with an error (default) or wrap around")
    run.add_argument("--seed", type=int, help="seed of every random stream")
    run.add_argument("--json", type=path_argument, metavar="PATH", help="write the JSON report to PATH (- for stdout)")
    run.add_argument("--check", action="store_true", help="run the invariant checker during the run")
    run.add_argument("--no-wall-clock", action="store_true",
                     help="zero the wall-clock fields, so identical runs give byte-identical reports")
    run.add_argument("--quiet", action="store_true", help="print neither progress nor the summary")
    run.add_argument("--payload", type=path_argument, metavar="FILE",
                     help="carry this file's bytes on the device (payload mode); reads return them with the "
                          "bit errors the device leaves uncorrected")
    run.add_argument("--payload-lba", type=_sector, default=0, metavar="SECTOR",
                     help="sector address of the payload, on a page boundary (default 0)")
    run.add_argument("--payload-out", type=path_argument, metavar="FILE", help="write the payload as the host would read it back")
    if argv and argv[0] == "run":
        return p

    sub.add_parser("presets", help="list device presets")
    schemes = sub.add_parser("schemes", help="list schemes (techniques and baselines) with the hooks they override",
                             description="Every scheme `scheme.name` accepts: the hooks it overrides, the keys of "
                                         "its technique table it uses, and what it does.")
    schemes.add_argument("--json", action="store_true", help="print the list as JSON")

    ecc = sub.add_parser("ecc", help="error-correcting code calculators", description="BCH code calculators (seed 001, Eq. 2).")
    ecc_sub = ecc.add_subparsers(dest="ecc_command", required=True, metavar="COMMAND")
    req = ecc_sub.add_parser("required-t", help="smallest BCH t meeting a target UBER at an RBER")
    req.add_argument("--rber", type=float, required=True, help="raw bit error rate")
    req.add_argument("--uber", type=float, required=True, help="target uncorrectable bit error rate")
    req.add_argument("--k", type=int, default=4096, metavar="BYTES", help="data bytes per codeword (default 4096)")
    req.add_argument("--m", type=int, default=0, help="field exponent of GF(2^m) (default: the smallest that fits)")
    uber = ecc_sub.add_parser("uber", help="UBER of a t-correcting BCH code at an RBER")
    uber.add_argument("--rber", type=float, required=True, help="raw bit error rate")
    uber.add_argument("--t", type=int, required=True, help="correction capability in bits per codeword")
    uber.add_argument("--k", type=int, default=4096, metavar="BYTES", help="data bytes per codeword (default 4096)")

    phys = sub.add_parser("physics", help="device-physics calculators", description="Device-physics models.")
    phys_sub = phys.add_subparsers(dest="physics_command", required=True, metavar="COMMAND")
    rber = phys_sub.add_parser("rber", help="raw bit error rate of a page under a model")
    rber.add_argument("--model", required=True, choices=("power-law", "exp-linear", "vth"),
                      help="power-law: seed 001 Eq. 1; exp-linear: seed 002 Eq. 1; "
                           "vth: threshold-voltage distributions, seed 000 Sec. III-C")
    rber.add_argument("--pe", type=float, default=0.0, help="P/E cycles of the block")
    rber.add_argument("--retention", type=float, default=0.0, metavar="HOURS", help="hours since the page was written")
    rber.add_argument("--reads", type=float, default=0.0, help="reads of the block since its erase (read disturbance)")
    rber.add_argument("--algorithm", default="sv", choices=("sv", "dv", "rv"), help="ISPP algorithm (power-law model)")
    # Ranges checked by the core, which names the flag and the range.
    rber.add_argument("--page-type", type=int, default=2, metavar="{0,1,2}",
                      help="page type read: 0 LSB, 1 CSB, 2 MSB (default 2)")
    rber.add_argument("--read-mode", type=int, default=0, metavar="{0,1,2}",
                      help="read mode 0, 1 or 2 (read voltage 1.00, 0.98, 0.96)")
    modes = ("precise", "approx-vmax", "approx-dvpp")
    rber.add_argument("--mode", default="precise", choices=modes, help="program mode of the page (vth model)")
    for axis, where in (("y", "on its layer"), ("z", "on the next layer")):
        rber.add_argument(f"--{axis}-neighbour", default="precise", choices=("none",) + modes,
                          help=f"program mode of the neighbour {where} programmed after it, or none (vth model)")

    rep = sub.add_parser("reproduce", help="reproduce a published result",
                         description="Run a registered experiment, print its numbers beside the paper's, "
                                     "and write the results, the table and the figures to a folder.")
    rep.add_argument("name", nargs="?", help="experiment name (see --list)")
    rep.add_argument("--list", action="store_true", help="list the experiments")
    rep.add_argument("--quick", action="store_true", help="a scaled-down version that finishes quickly")
    rep.add_argument("--out", type=path_argument, metavar="DIR", help="results folder (default: out/NAME, or out/NAME-quick)")
    rep.add_argument("--strict", action="store_true",
                     help="exit 1 when a number is outside the paper's tolerance")
    _backend_args(rep)

    sw = sub.add_parser("sweep", help="run a sweep of simulations",
                        description="Run every point of a sweep spec (TOML) into a resumable Parquet dataset.")
    sw.add_argument("spec", type=path_argument, metavar="SPEC.toml", help="the sweep spec (see docs/experiments.md)")
    sw.add_argument("--out", type=path_argument, metavar="DIR", help="results folder (default: out/SPEC-NAME)")
    _backend_args(sw)

    res = sub.add_parser("results", help="query and plot sweep results", description="Query and plot results.")
    res_sub = res.add_subparsers(dest="results_command", required=True, metavar="COMMAND")
    q = res_sub.add_parser("query", help="answer SQL over a results folder",
                           description="SQL (DuckDB) over the views `results` (finished points), `failures` "
                                       "and `all_points`. Columns are dotted keys: quote them, \"ftl.waf\".")
    q.add_argument("dir", type=path_argument, metavar="DIR")
    q.add_argument("sql", metavar="SQL")
    q.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    plot = res_sub.add_parser("plot", help="draw a plot of a results folder", description="Draw a plot as PNG.")
    plot.add_argument("dir", type=path_argument, metavar="DIR")
    kinds = plot.add_subparsers(dest="kind", required=True, metavar="KIND")
    bars = kinds.add_parser("bars", help="a metric normalised to a baseline, as bars")
    bars.add_argument("--metric", required=True, help="column to draw, e.g. ftl.waf")
    bars.add_argument("--by", default="scheme", help="column naming the bars (default: scheme)")
    bars.add_argument("--baseline", required=True, help="the value of --by everything is divided by")
    bars.add_argument("--group", action="append", default=[], metavar="COLUMN",
                      help="column whose values form groups of bars (repeatable; default: workload_name)")
    cdf = kinds.add_parser("cdf", help="latency CDFs, one line per series")
    cdf.add_argument("--op", choices=("read", "write", "all"), default="read")
    line = kinds.add_parser("line", help="a metric against a parameter, a line per series")
    line.add_argument("--x", required=True, help="the parameter, e.g. ftl.overprovisioning")
    line.add_argument("--metric", required=True, help="column to draw, e.g. ftl.waf")
    line.add_argument("--logx", action="store_true", default=None, help="logarithmic x axis")
    line.add_argument("--logy", action="store_true", default=None, help="logarithmic y axis")
    for k in (cdf, line):
        k.add_argument("--by", action="append", default=[], metavar="COLUMN",
                       help="column naming the series (repeatable; default: scheme)")
    for k in (bars, cdf, line):
        k.add_argument("--where", metavar="SQL", help="keep only rows matching this SQL condition")
        k.add_argument("--title", help="figure title")
        k.add_argument("--out", type=path_argument, metavar="PNG", help="output file (default: DIR/figures/KIND-METRIC.png)")

    rpt = sub.add_parser("report", help="write an HTML report of a results folder",
                         description="Write one self-contained HTML file summarising a sweep or a reproduction.")
    rpt.add_argument("dir", type=path_argument, metavar="DIR")
    rpt.add_argument("--out", type=path_argument, metavar="FILE", help="output file (default: DIR/report.html)")

    from xlssd.quality.command import DESCRIPTION, add_arguments

    add_arguments(sub.add_parser("quality", help="output quality of data stored approximately", description=DESCRIPTION))
    return p


def _sector(text: str) -> int:
    """A sector address: an integer the core can hold (argparse names the option)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"value {text!r} is not a sector number (0 to 2^64-1)")
    return value


def _backend_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, metavar="N", help="simulations at once (default: one per core)")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="run on the Ray cluster at ADDRESS, or on a local Ray instance started for this run")
    p.add_argument("--quiet", action="store_true", help="print neither progress nor summaries")


def _backend(args: argparse.Namespace):
    from xlssd.sweep.backends import LocalPool
    from xlssd.sweep.ray_cluster import RayCluster

    if args.jobs is not None and args.jobs < 1:
        raise _core.ConfigError(f"--jobs: {args.jobs} is not a positive number")
    if args.ray is None:
        return LocalPool(args.jobs)
    cluster = RayCluster(address=args.ray or None, num_cpus=args.jobs)
    cluster.check()
    return cluster


def _read_payload(args: argparse.Namespace) -> bytes | None:
    if args.payload_out is not None and not args.payload:
        raise _core.ConfigError("--payload-out needs --payload")
    if not args.payload:
        return None
    if args.payload_lba < 0:
        raise _core.ConfigError(f"--payload-lba: value {args.payload_lba} is out of range: expected a sector >= 0")
    if args.payload_out is not None:
        checked_target(args.payload_out, "--payload-out")
    try:
        with open(args.payload, "rb") as f:
            return f.read()
    except OSError as e:
        raise _core.ConfigError(f"--payload: {args.payload}: {e.strerror or e}") from None


def _cmd_run(args: argparse.Namespace) -> int:
    sets = list(args.sets)
    if args.seed is not None:
        sets.append(f"seed={args.seed}")
    if args.address_mode:
        sets.append(f'host.address_mode="{args.address_mode}"')
    if args.json is not None and args.json != "-":
        checked_target(args.json, "--json")
    preset = args.preset if args.preset is not None or args.config is not None else "tiny"
    cfg = load_config(preset=preset if not args.config else None, file=args.config, sets=sets)
    if args.trace:
        if not os.path.exists(args.trace):
            raise _core.TraceError(f"{args.trace}: no such file")
        workload: dict[str, Any] = Trace(args.trace, args.format, args.skip_bad_lines).as_workload()
        total = None
    else:
        if args.format or args.skip_bad_lines:
            raise _core.ConfigError("--format and --skip-bad-lines apply to --trace only")
        workload = synthetic(args.workload, cfg)
        total = workload["n"]
    payload = _read_payload(args)
    bar, update = simulation_bar(total, args.quiet)
    with bar if bar is not None else contextlib.nullcontext():
        if payload is None:
            text, returned = _core.run(json.dumps(cfg), json.dumps(workload), args.check, update), None
        else:
            text, returned = _core.run_with_payload(
                json.dumps(cfg), json.dumps(workload), args.check, update, args.payload_lba, payload
            )
    if returned is not None and args.payload_out:
        write_bytes(args.payload_out, returned[: len(payload)], "--payload-out")
    # The core writes the report as `Report.json` would: decoded only where it is read.
    if args.no_wall_clock:
        out = Report.from_json(text).without_wall_clock().json()
    else:
        out = text + "\n"
    if args.json == "-":
        print(out, end="")
        if not args.quiet:
            print(summary(Report.from_json(out)), file=sys.stderr)
        return 0
    if args.json:
        write_text(args.json, out, "--json")
    if not args.quiet:
        print(summary(Report.from_json(out)))
        if args.json:
            print(f"Report  {args.json}")
    return 0


def _cmd_presets(_args: argparse.Namespace) -> int:
    for name in preset_names():
        print(f"{name:20} {preset_description(name)}")
    return 0


def _cmd_schemes(args: argparse.Namespace) -> int:
    rows = json.loads(_core.schemes())
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        hooks = ", ".join(r["hooks"]) or "none (every hook at its default)"
        print(f"{r['name']:12} {r['description']}")
        print(f"{'':12}   hooks: {hooks}")
        if r["table"]:
            print(f"{'':12}   keys:  [scheme.{r['table']}] {', '.join(r['keys'])}")
    return 0


def _cmd_ecc(args: argparse.Namespace) -> int:
    if args.ecc_command == "required-t":
        found = _core.ecc_required_t(args.rber, args.uber, args.k, args.m)
        if found is None:
            max_t = _core.ecc_max_t(args.k, args.m)
            print(f"no BCH code with t <= {max_t} reaches UBER {args.uber:g} at RBER {args.rber:g}")
            return 1
        t, m, parity, decode_ns = found
        print(f"t = {t}  (GF(2^{m}), {parity} parity bits = {parity / 8:g} bytes, "
              f"worst-case decode {decode_ns / 1000:.1f} us)")
        return 0
    # The core checks --t and --k against what the code can be, naming the flag.
    print(f"UBER = {_core.ecc_uber(args.rber, args.t, args.k):.4e}")
    return 0


def _cmd_physics(args: argparse.Namespace) -> int:
    total, base, max_reads = _core.physics_rber(
        args.model, args.pe, args.retention, args.reads, args.algorithm, args.page_type, args.read_mode,
        args.mode, args.y_neighbour, args.z_neighbour,
    )
    print(f"RBER = {total:.4e}  (wear and retention {base:.4e}, read disturbance {total - base:.4e})")
    print(f"reads of this pattern before the hard-decode limit (1e-3): {max_reads:,.0f}")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from xlssd.reproduce import ALIASES, REGISTRY, lookup
    from xlssd.reproduce.experiment import run_experiment

    if args.list or args.name is None:
        also = {name: alias for alias, name in ALIASES.items()}
        for name, exp in sorted(REGISTRY.items()):
            print(f"{name:20} {exp.description}" + (f" (also `{also[name]}`)" if name in also else ""))
        return 0
    experiment = lookup(args.name)
    if experiment is None:
        raise _core.ConfigError(f"unknown experiment `{args.name}`; experiments are: {', '.join(sorted(REGISTRY))}")
    if args.out is not None:
        make_dir(args.out, "--out", create=False)
    outcome, comparisons = run_experiment(experiment, args.out, args.quick, _backend(args), args.quiet)
    if outcome.failed:
        return 1
    if args.strict and not all(c.claim.within(c.ours) for c in comparisons):
        return 1
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from xlssd.sweep.runner import run_sweep
    from xlssd.sweep.spec import load_spec

    spec = load_spec(args.spec)
    points = spec.expand()
    backend = _backend(args)
    out = make_dir(args.out, "--out") if args.out is not None else make_dir(os.path.join("out", spec.name), "results folder")
    if not args.quiet:
        print(f"sweep {spec.name} on a {backend.describe()}, into {out}", flush=True)
    outcome = run_sweep(spec, out, backend, args.quiet, points)
    if not args.quiet:
        print(outcome.summary())
    return 1 if outcome.failed else 0


def _cmd_results(args: argparse.Namespace) -> int:
    from xlssd.results import commands

    if args.results_command == "query":
        print(commands.query(args.dir, args.sql, args.format), end="")
        return 0
    print(commands.plot(args))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from xlssd.htmlreport import write_report

    print(write_report(args.dir, args.out, "--out" if args.out is not None else None))
    return 0


COMMANDS = {
    "run": _cmd_run,
    "presets": _cmd_presets,
    "schemes": _cmd_schemes,
    "ecc": _cmd_ecc,
    "physics": _cmd_physics,
    "reproduce": _cmd_reproduce,
    "sweep": _cmd_sweep,
    "results": _cmd_results,
    "report": _cmd_report,
}


def _cmd_quality(args: argparse.Namespace) -> int:
    from xlssd.quality.command import run

    return run(args, lambda path, content, label: (write_bytes if isinstance(content, bytes) else write_text)(
        path, content, label))


COMMANDS["quality"] = _cmd_quality


def printable(text: str) -> str:
    """`text` as an error message may show it on a terminal: every character that is not
    printed as itself (control characters, DEL, invisible formatting such as bidirectional
    overrides) written as an escape (`\\x1b`, `\\t`, `\\u202e`), as the core writes what
    its messages quote. Backslashes are kept, so that escaping twice changes nothing and
    the core's messages pass through unchanged."""
    if text.isprintable():
        return text
    named = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
    return "".join(c if c.isprintable() or c == " " else named.get(c) or
                   (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{{{ord(c):x}}}") for c in text)


def main(argv: Sequence[str] | None = None) -> int:
    return _execute(_parse_args(argv))


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else list(argv)
    return _parser(argv).parse_args(argv)


def _execute(args: argparse.Namespace) -> int:
    from xlssd.results.errors import ResultsError

    try:
        with signals.handled():
            code = COMMANDS[args.command](args)
            signals.raise_if_received()
            # Here rather than at exit, so that a reader gone away is handled below. (No
            # stdout at all when the command was started with it closed.)
            if sys.stdout is not None:
                sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (_core.ConfigError, _core.TraceError, _core.WorkloadError, ResultsError) as e:
        print(f"xlssd: error: {printable(str(e))}", file=sys.stderr)
        return EXIT_USER_ERROR
    except _core.XlssdError as e:
        print(f"xlssd: simulation failed: {printable(str(e))}", file=sys.stderr)
        return EXIT_SIMULATION_ERROR
    except KeyboardInterrupt as stop:
        print(f"xlssd: {signals.message(stop)}", file=sys.stderr)
        return signals.exit_code(stop)
    except OSError as e:
        # A file or folder the command reached on its own (the helpers of xlssd.atomic
        # name theirs): still the environment's doing, not a bug.
        where = f"{e.filename}: " if e.filename else ""
        print(f"xlssd: error: {printable(f'{where}{e.strerror or e}')}", file=sys.stderr)
        return EXIT_USER_ERROR


#: Commands whose exit skips the interpreter's last garbage collection: they make no
#: cycles that need collecting at exit.
SKIP_LAST_COLLECTION = frozenset({"run"})


def command() -> None:
    """The `xlssd` command: what `main` does, then exit with its status. A command stopped
    by a signal runs the exit functions and then exits without the rest of the
    interpreter's teardown: everything worth keeping is on disk (outputs are written whole
    or not at all, pool workers are killed, Ray is stopped), and tearing down large
    libraries (Ray's core, Arrow) takes a few hundred milliseconds of the second a stop is
    given. (`atexit._run_exitfuncs` is what the interpreter's own exit calls.)"""
    args = _parse_args(None)
    code = _execute(args)
    if args.command in SKIP_LAST_COLLECTION:
        # The interpreter's last garbage collection walks every object the imports made, a
        # tenth of a short run's time; frozen objects are left out of it. The exit is
        # otherwise the usual one (exit functions, C's own: a profiling runtime writes its
        # profile there).
        gc.freeze()
    if code in signals.STOPPED:
        with contextlib.suppress(Exception):
            getattr(atexit, "_run_exitfuncs", lambda: None)()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    sys.exit(code)


def _reader_gone() -> int:
    """Standard output's reader closed the pipe (`| head`): stop quietly. Output still
    buffered would fail again at exit, so standard output is pointed at /dev/null."""
    with contextlib.suppress(OSError, AttributeError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    command()
