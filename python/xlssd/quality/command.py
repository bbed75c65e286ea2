"""`xlssd quality`: the output-quality evaluation from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from xlssd.atomic import check_target, make_dir, path_argument
from xlssd.config import load_config
from xlssd.quality.defaults import AGED_APPROXIMATE, AGED_APPROXIMATE_BASE

DESCRIPTION = (
    "Store real application data on the device as payload, read it back with the bit errors "
    "the device leaves, and measure output quality: k-NN (iris), SVM and MLP (digits), a "
    "decision tree (breast_cancer) and the SSIM of an image. Without --preset or --config, "
    "the device is the tiny preset with every page programmed approximately, aged 10K P/E "
    "cycles and 1,000 h, and approximate pages read raw."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    dev = p.add_mutually_exclusive_group()
    dev.add_argument("--preset", metavar="NAME", help="device preset (see `xlssd presets`)")
    dev.add_argument("--config", type=path_argument, metavar="FILE", help="config file (TOML); `base = \"PRESET\"` inherits a preset")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. --set aging.data_age_h=100 (repeatable)")
    p.add_argument("--seed", type=int, default=1, help="seed of the run, and so of its bit flips (default 1)")
    p.add_argument("--json", type=path_argument, metavar="PATH", help="write the metrics as JSON to PATH (- for stdout)")
    p.add_argument("--out", type=path_argument, metavar="DIR", help="write the image as stored and as read back (PNG) to DIR")
    p.add_argument("--quiet", action="store_true", help="print no table")


def device_config(args: argparse.Namespace) -> dict:
    if args.preset or args.config:
        return load_config(preset=args.preset, file=args.config, sets=args.sets)
    return load_config(preset=AGED_APPROXIMATE_BASE, overrides=AGED_APPROXIMATE, sets=args.sets)


def table(result: dict) -> str:
    lines = [f"{'task':15} {'dataset':14} {'metric':9} {'error-free':>10} {'with errors':>12} "
             f"{'relative':>9}    bits flipped"]
    for r in result["rows"]:
        lines.append(
            f"{r['task']:15} {r['dataset']:14} {r['metric']:9} {r['error_free']:10.4f} {r['with_errors']:12.4f} "
            f"{r['relative']:9.4f} {r['bits_flipped']:>7,} / {r['bits']:<,}"
        )
    d = result["device"]
    lines.append("")
    lines.append(
        f"Device  {d['pages_read']:,} of {d['pages']:,} pages read from flash, "
        f"{d['pages_returned_with_errors']:,} with errors; {d['bits_flipped']:,} of {d['bits']:,} "
        f"data bits flipped (RBER {d['rber']:.3e}); seed {result['seed']}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace, write) -> int:
    """Runs the command; `write(path, content, label)` writes a file atomically."""
    config = device_config(args)
    # Both outputs are checked before the evaluation, which takes a while, and the folder
    # is made only once both are fine; the report may go into that new folder.
    out = make_dir(args.out, "--out", create=False) if args.out is not None else None
    to_file = args.json is not None and args.json != "-"
    into_out = to_file and out is not None and Path(args.json).resolve().parent == out.resolve()
    if to_file and not into_out:
        check_target(args.json, "--json")
    if out is not None:
        make_dir(out, "--out")
    if into_out:
        check_target(args.json, "--json")
    from xlssd.quality import image
    from xlssd.quality.evaluation import evaluate

    result = evaluate(config, seed=args.seed)
    pictures = result.pop("images")
    written = []
    if out is not None:
        for which, picture in (("stored", pictures["original"]), ("read-back", pictures["returned"])):
            written.append(str(out / f"{image.NAME}-{which}.png"))
            write(written[-1], image.png(picture), "--out")
    text = json.dumps(result, indent=2) + "\n"
    if args.json and args.json != "-":
        write(args.json, text, "--json")
        written.append(args.json)
    if args.json == "-":
        print(text, end="")
    elif not args.quiet:
        print(table(result))
        for path in written:
            print(f"Wrote   {path}")
    return 0
