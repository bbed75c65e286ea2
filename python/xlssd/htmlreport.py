"""`xlssd report DIR`: one self-contained HTML file summarising a sweep or a reproduction.

Everything the page shows is inside the file (styles inline, figures as data: URIs), so it
can be mailed, archived or opened offline."""

from __future__ import annotations

import base64
import html
import json
import stat
from pathlib import Path
from typing import Any

import jinja2

from xlssd.atomic import check_target, read_bytes, read_text, write_text
from xlssd.results import plots
from xlssd.results.errors import ResultsError
from xlssd.results.store import Store

#: What the points table and a sweep's figures show of each point, when the run has it.
HEADLINE = (
    "host.all.iops",
    "host.read.latency_us.mean",
    "host.read.latency_us.p99",
    "host.write.latency_us.mean",
    "host.write.latency_us.p99",
    "ftl.waf",
    "energy.total_j",
)
MAX_TABLE_ROWS = 500
MAX_CDF_SERIES = 12


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _varying(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    return [c for c in columns if len({json.dumps(r.get(c), default=str) for r in rows}) > 1]


def _sweep_figures(rows: list[dict[str, Any]], swept: list[str]) -> list[dict[str, str]]:
    """The figures a sweep's report draws itself: each headline metric against the first
    numeric swept key, and the latency distribution of every point."""
    out = []
    series = _varying(rows, ["scheme", "workload_name", *swept])
    numeric = [c for c in swept if all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                                       for r in rows)]
    if numeric:
        x = numeric[0]
        by = [c for c in series if c != x]
        for metric in HEADLINE:
            if any(r.get(metric) for r in rows):
                fig = plots.versus(rows, x, metric, by)
                out.append({"title": f"{metric} against {x.removeprefix('config.')}", "ref": "",
                            "src": _data_uri(plots.png_bytes(fig))})
    if len({tuple(r.get(c) for c in series) for r in rows}) <= MAX_CDF_SERIES:
        for op in ("read", "write"):
            if any(r.get(f"host.{op}.count") for r in rows):
                fig = plots.latency_cdf(rows, op, series or ["scheme"])
                out.append({"title": f"{op} latency distribution", "ref": "", "src": _data_uri(plots.png_bytes(fig))})
    return out


def _file_figures(root: Path, listed: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Figures already drawn into DIR/figures: a reproduction's (with their titles), then any
    others (from `xlssd results plot`)."""
    out, seen = [], set()
    for f in listed:
        path = root / f["file"]
        if path.is_file():
            seen.add(path.resolve())
            out.append({"title": f["title"], "ref": f.get("ref", ""), "src": _data_uri(_figure(path))})
    for path in sorted((root / "figures").glob("*.png")):
        if path.resolve() not in seen:
            out.append({"title": path.stem, "ref": "", "src": _data_uri(_figure(path))})
    return out


def _comparison(path: Path) -> list[dict[str, Any]]:
    """A reproduction's comparison.json: a list of objects, one per compared number."""
    try:
        rows = json.loads(read_text(path, "a reproduction's comparison"))
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}:{e.lineno}: invalid JSON: {e.msg}") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ResultsError(f"{path}: expected a list of objects")
    return rows


def _figure(path: Path) -> bytes:
    """A figure's bytes. The page embeds them, so only a regular file is read: a link could
    lead anywhere outside the folder, and a FIFO would never end."""
    if not stat.S_ISREG(path.lstat().st_mode):
        raise ResultsError(f"{path}: not a figure (not a regular file); move it out of the folder")
    return read_bytes(path, "figure")


def context(folder: str | Path) -> dict[str, Any]:
    store = Store(folder)
    meta = store.meta()
    spec = meta.get("spec", {})
    swept = [f"config.{k}" for k in spec.get("swept", [])]
    rows = store.rows()
    con = store.connect()
    failures = con.execute("SELECT * FROM failures").fetchall()
    total = len(meta.get("points", [])) or len(rows) + len(failures)

    # What tells the points apart, then what was measured.
    shown = _varying(rows, ["scheme", "workload_name", "seed"]) + swept
    shown = (shown or ["scheme"]) + [m for m in HEADLINE if rows and m in rows[0]]
    table_rows = [[plots.fmt(r.get(c)) if not isinstance(r.get(c), float) else f"{r[c]:.6g}" for c in shown]
                  for r in rows[:MAX_TABLE_ROWS]]

    comparison_path = store.root / "comparison.json"
    comparison = _comparison(comparison_path) if comparison_path.is_file() else []
    figures = _file_figures(store.root, meta.get("figures", []))
    if meta.get("kind") != "reproduction" and rows:
        figures = _sweep_figures(rows, swept) + figures
    experiment = meta.get("experiment", {})
    return {
        "title": experiment.get("name") or meta.get("name") or store.root.name,
        "kind": meta.get("kind", "results"),
        "description": experiment.get("description") or meta.get("description", ""),
        "paper": experiment.get("paper", ""),
        "quick": experiment.get("quick", False),
        "version": meta.get("xlssd_version", ""),
        "written": meta.get("written", ""),
        "base": spec.get("base", ""),
        "spec": spec,
        "total": total,
        "finished": len(rows),
        "failed": failures,
        "verdict": meta.get("verdict", ""),
        "comparison": comparison,
        "columns": [c.removeprefix("config.") for c in shown],
        "rows": table_rows,
        "rows_cut": max(0, len(rows) - MAX_TABLE_ROWS),
        "figures": figures,
        "folder": str(store.root),
    }


def render(ctx: dict[str, Any]) -> str:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("xlssd", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["tojson_pretty"] = lambda v: html.escape(json.dumps(v, indent=2, default=str))
    return env.get_template("report.html.j2").render(**ctx)


def write_report(folder: str | Path, out: str | Path | None = None, label: str | None = None) -> str:
    """Writes the report (default DIR/report.html); returns its path. `label` names the
    option `out` came from, for errors."""
    store = Store(folder)
    store.require()
    target = check_target(out if out is not None else store.root / "report.html", label)
    write_text(target, render(context(folder)), label)
    return str(target)

