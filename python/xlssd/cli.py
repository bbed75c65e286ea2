"""The `xlssd` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from xlssd import __version__, _core
from xlssd.config import load_config, preset_description, preset_names
from xlssd.report import Report
from xlssd.summary import summary
from xlssd.workload import FORMATS, Trace, synthetic

EXIT_USER_ERROR = 2
EXIT_SIMULATION_ERROR = 3
EXIT_INTERRUPTED = 130


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="xlssd", description="A white-box, cross-layer NAND-flash SSD simulator.")
    p.add_argument("--version", action="version", version=f"xlssd {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run one simulation", description="Run one simulation and report on it.")
    dev = run.add_mutually_exclusive_group()
    dev.add_argument("--preset", metavar="NAME", help="device preset (see `xlssd presets`); default: tiny")
    dev.add_argument("--config", metavar="FILE", help="config file (TOML); `base = \"PRESET\"` inherits a preset")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                     help="override a config key, e.g. --set gc.policy=fifo (repeatable)")
    wl = run.add_mutually_exclusive_group()
    wl.add_argument("--trace", metavar="FILE", help="replay a trace file")
    wl.add_argument("--workload", metavar="SPEC",
                    help="synthetic workload in fio's terms, e.g. rw=randwrite,bs=4k,n=100000,iodepth=32")
    run.add_argument("--format", choices=FORMATS, help="trace format (default: detected)")
    run.add_argument("--skip-bad-lines", action="store_true", help="skip and count malformed trace lines")
    run.add_argument("--address-mode", choices=("error", "wrap"),
                     help="addresses beyond the logical capacity: stop with an error (default) or wrap around")
    run.add_argument("--seed", type=int, help="seed of every random stream")
    run.add_argument("--json", metavar="PATH", help="write the JSON report to PATH (- for stdout)")
    run.add_argument("--check", action="store_true", help="run the invariant checker during the run")
    run.add_argument("--no-wall-clock", action="store_true",
                     help="zero the wall-clock fields, so identical runs give byte-identical reports")
    run.add_argument("--quiet", action="store_true", help="print neither progress nor the summary")
    run.add_argument("--payload", metavar="FILE",
                     help="carry this file's bytes on the device (payload mode); reads return them with the "
                          "bit errors the device leaves uncorrected")
    run.add_argument("--payload-lba", type=int, default=0, metavar="SECTOR",
                     help="sector address of the payload, on a page boundary (default 0)")
    run.add_argument("--payload-out", metavar="FILE", help="write the payload as the host would read it back")

    sub.add_parser("presets", help="list device presets")

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
    rber.add_argument("--page-type", type=int, default=2, help="page type read: 0 LSB, 1 CSB, 2 MSB (default 2)")
    rber.add_argument("--read-mode", type=int, default=0, help="read mode 0, 1 or 2 (read voltage 1.00, 0.98, 0.96)")
    modes = ("precise", "approx-vmax", "approx-dvpp")
    rber.add_argument("--mode", default="precise", choices=modes, help="program mode of the page (vth model)")
    for axis, where in (("y", "on its layer"), ("z", "on the next layer")):
        rber.add_argument(f"--{axis}-neighbour", default="precise", choices=("none",) + modes,
                          help=f"program mode of the neighbour {where} programmed after it, or none (vth model)")

    rep = sub.add_parser("reproduce", help="reproduce a published result", description="Reproduce a published result.")
    rep.add_argument("name", nargs="?", help="experiment name (see --list)")
    rep.add_argument("--list", action="store_true", help="list the experiments")
    rep.add_argument("--quick", action="store_true", help="a scaled-down version that finishes quickly")

    from xlssd.quality.command import DESCRIPTION, add_arguments

    add_arguments(sub.add_parser("quality", help="output quality of data stored approximately", description=DESCRIPTION))
    return p


def _write_atomically(path: str, content: str | bytes) -> None:
    """Writes via a temporary file in the same folder, so a failed run leaves nothing behind."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _progress(total: int | None, quiet: bool):
    """A progress callback drawing a bar on a terminal; None when not wanted."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("requests  {task.fields[sim]}"),
        TimeRemainingColumn(),
        transient=True,
    )
    task = bar.add_task("run", total=total, sim="")

    def update(done: int, sim_ns: int) -> bool:
        bar.update(task, completed=done, sim=f"{sim_ns / 1e9:.3f} s simulated")
        return True

    return bar, update


def _read_payload(args: argparse.Namespace) -> bytes | None:
    if args.payload_out and not args.payload:
        raise _core.ConfigError("--payload-out needs --payload")
    if not args.payload:
        return None
    if args.payload_lba < 0:
        raise _core.ConfigError(f"--payload-lba: value {args.payload_lba} is out of range: expected a sector >= 0")
    try:
        return Path(args.payload).read_bytes()
    except OSError as e:
        raise _core.ConfigError(f"--payload: {args.payload}: {e.strerror or e}") from None


def _cmd_run(args: argparse.Namespace) -> int:
    sets = list(args.sets)
    if args.seed is not None:
        sets.append(f"seed={args.seed}")
    if args.address_mode:
        sets.append(f'host.address_mode="{args.address_mode}"')
    preset = args.preset if args.preset or args.config else "tiny"
    cfg = load_config(preset=preset if not args.config else None, file=args.config, sets=sets)
    if args.trace:
        if not Path(args.trace).exists():
            raise _core.TraceError(f"{args.trace}: no such file")
        workload: dict[str, Any] = Trace(args.trace, args.format, args.skip_bad_lines).as_workload()
        total = None
    else:
        if args.format or args.skip_bad_lines:
            raise _core.ConfigError("--format and --skip-bad-lines apply to --trace only")
        workload = synthetic(args.workload, cfg)
        total = workload["n"]
    payload = _read_payload(args)
    bar, update = _progress(total, args.quiet)
    with bar if bar is not None else contextlib.nullcontext():
        if payload is None:
            text, returned = _core.run(json.dumps(cfg), json.dumps(workload), args.check, update), None
        else:
            text, returned = _core.run_with_payload(
                json.dumps(cfg), json.dumps(workload), args.check, update, args.payload_lba, payload
            )
    report = Report.from_json(text)
    if returned is not None and args.payload_out:
        _write_atomically(args.payload_out, returned[: len(payload)])
    if args.no_wall_clock:
        report = report.without_wall_clock()
    out = report.json()
    if args.json == "-":
        sys.stdout.write(out)
        if not args.quiet:
            print(summary(report), file=sys.stderr)
        return 0
    if args.json:
        _write_atomically(args.json, out)
    if not args.quiet:
        print(summary(report))
        if args.json:
            print(f"Report  {args.json}")
    return 0


def _cmd_presets(_args: argparse.Namespace) -> int:
    for name in preset_names():
        print(f"{name:20} {preset_description(name)}")
    return 0


def _cmd_ecc(args: argparse.Namespace) -> int:
    if args.ecc_command == "required-t":
        found = _core.ecc_required_t(args.rber, args.uber, args.k, args.m)
        if found is None:
            print(f"no BCH code with t <= 4096 reaches UBER {args.uber:g} at RBER {args.rber:g}")
            return 1
        t, m, parity, decode_ns = found
        print(f"t = {t}  (GF(2^{m}), {parity} parity bits = {parity / 8:g} bytes, "
              f"worst-case decode {decode_ns / 1000:.1f} us)")
        return 0
    if args.t < 0:
        raise _core.ConfigError(f"--t: value {args.t} is out of range: expected t >= 0")
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
    from xlssd.reproduce import REGISTRY

    if args.list or not args.name:
        for name, (description, _run) in sorted(REGISTRY.items()):
            print(f"{name:20} {description}")
        return 0
    if args.name not in REGISTRY:
        raise _core.ConfigError(f"unknown experiment `{args.name}`; experiments are: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[args.name][1](args.quick)


def _cmd_quality(args: argparse.Namespace) -> int:
    from xlssd.quality.command import run

    return run(args, _write_atomically)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "presets":
            return _cmd_presets(args)
        if args.command == "ecc":
            return _cmd_ecc(args)
        if args.command == "physics":
            return _cmd_physics(args)
        if args.command == "reproduce":
            return _cmd_reproduce(args)
        if args.command == "quality":
            return _cmd_quality(args)
    except (_core.ConfigError, _core.TraceError, _core.WorkloadError) as e:
        print(f"xlssd: error: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except _core.XlssdError as e:
        print(f"xlssd: simulation failed: {e}", file=sys.stderr)
        return EXIT_SIMULATION_ERROR
    except KeyboardInterrupt:
        print("xlssd: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_USER_ERROR


if __name__ == "__main__":
    sys.exit(main())
