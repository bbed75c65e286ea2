"""`xlssd results query` and `xlssd results plot`."""

from __future__ import annotations

import csv
import io
import json
import re
from argparse import Namespace

from xlssd.atomic import check_target, make_dir
from xlssd.results import plots
from xlssd.results.store import Store
from xlssd.table import text_table


def query(folder: str, sql: str, fmt: str = "table") -> str:
    cols, rows = Store(folder).query(sql)
    if fmt == "json":
        return json.dumps([dict(zip(cols, r)) for r in rows], indent=2, default=str) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        w.writerows(rows)
        return buf.getvalue()
    return text_table(cols, rows) + f"\n({len(rows)} row{'s' if len(rows) != 1 else ''})\n"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def plot(args: Namespace) -> str:
    """Draws the plot `args` asks for; returns the path written."""
    store = Store(args.dir)
    # Before the drawing, which reads every row.
    out = check_target(args.out, "--out") if args.out is not None else None
    cols = store.columns()
    rows = store.rows(args.where)
    col = lambda name: store.column(name, cols)  # noqa: E731
    if args.kind == "bars":
        metric, by = col(args.metric), col(args.by)
        group = [col(g) for g in args.group]
        if not group and len({r["workload_name"] for r in rows}) > 1:
            group = ["workload_name"]
        fig = plots.normalised_bars(rows, metric, by, args.baseline, group, args.title or "")
        name = f"bars-{metric}"
    elif args.kind == "cdf":
        by = [col(b) for b in args.by] or ["scheme"]
        fig = plots.latency_cdf(rows, args.op, by, args.title or "")
        name = f"cdf-{args.op}"
    else:
        metric, x = col(args.metric), col(args.x)
        by = [col(b) for b in args.by] or ["scheme"]
        fig = plots.versus(rows, x, metric, by, args.title or "", logx=args.logx, logy=args.logy)
        name = f"line-{metric}-{x}"
    if args.out is None:
        out = make_dir(store.root / "figures") / f"{_slug(name)}.png"
    plots.save_png(fig, out, "--out" if args.out is not None else None)
    return str(out)
