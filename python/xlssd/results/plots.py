"""The plots comparisons need: bars normalised to a baseline, latency CDFs, a metric
against a parameter, shares of a whole (stacked), and grouped values. Each takes result rows (dicts of columns) and returns a matplotlib
Figure; repeated runs of one point (seeds) are averaged."""

from __future__ import annotations

import functools
import io
import json
import math
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Sequence

import matplotlib
import matplotlib.ticker
from matplotlib.figure import Figure

from xlssd.atomic import write_bytes
from xlssd.results.errors import ResultsError

Row = Mapping[str, Any]

#: Percentile keys of a latency section and the probability each stands for.
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99_9", 0.999), ("p99_99", 0.9999))


def _plain_text(draw: Callable[..., Any]) -> Callable[..., Any]:
    """Runs a function that makes or draws a figure with mathtext off, so that every text
    shows as written: labels come from user data (scheme names, titles), and a `$` in one
    must not start a formula that then fails to parse. Texts take the setting when they are
    made, and tight_layout and savefig make some (tick labels)."""

    @functools.wraps(draw)
    def plain(*args: Any, **kwargs: Any) -> Any:
        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)

    return plain


def _plain_log_ticks(axis) -> None:
    """Plain numbers (1000, 1e+06) on a log axis: its default labels are mathtext, which
    `_plain_text` turns off, and would show as `$\\mathdefault{10^{3}}$`."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _key(row: Row, columns: Sequence[str]) -> tuple:
    return tuple(row.get(c) for c in columns)


def _label(key: tuple) -> str:
    return " / ".join(fmt(v) for v in key) if key else "all"


def _means(rows: Iterable[Row], columns: Sequence[str], value: str) -> dict[tuple, float]:
    """Mean of `value` per distinct `columns`, in first-seen order; missing values skipped."""
    sums: dict[tuple, list[float]] = defaultdict(list)
    for r in rows:
        v = r.get(value)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ResultsError(f"column {value} is not a number (it holds {fmt(v)!r}); choose a numeric column")
        sums[_key(r, columns)].append(float(v))
    return {k: sum(vs) / len(vs) for k, vs in sums.items()}


def _require(rows: Sequence[Row], *columns: str) -> None:
    if not rows:
        raise ResultsError("no finished points to plot")
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        raise ResultsError(f"no column {', '.join(missing)} in the results")


def _name(column: str) -> str:
    """A column as an axis or legend shows it: config keys without their prefix."""
    return column.removeprefix("config.")


def _same(a: Any, b: Any) -> bool:
    return fmt(a) == fmt(b) or str(a) == str(b)


@_plain_text
def normalised_bars(rows: Sequence[Row], metric: str, by: str, baseline: Any,
                    group: Sequence[str] = (), title: str = "", ylabel: str | None = None) -> Figure:
    """Bars of `metric` per value of `by`, divided by the baseline's value in the same
    group (a workload, a device...); with more than one group, their mean ratio too."""
    _require(rows, metric, by, *group)
    means = _means(rows, [*group, by], metric)
    groups = list(dict.fromkeys(k[:-1] for k in means))
    series = list(dict.fromkeys(k[-1] for k in means))
    base = next((s for s in series if _same(s, baseline)), None)
    if base is None:
        raise ResultsError(f"baseline `{baseline}` is not a value of {by}: {', '.join(fmt(s) for s in series)}")
    ratios: dict[Any, list[float]] = {s: [] for s in series}
    for g in groups:
        ref = means.get((*g, base))
        if ref is None:
            raise ResultsError(f"no baseline point for {_label(g)}")
        for s in series:
            v = means.get((*g, s))
            ratios[s].append(v / ref if v is not None and ref else math.nan)
    labels = [_label(g) for g in groups]
    if len(groups) > 1:
        labels.append("mean")
        for s in series:
            finite = [x for x in ratios[s] if not math.isnan(x)]
            ratios[s].append(sum(finite) / len(finite) if finite else math.nan)

    fig = Figure(figsize=(max(6.0, 1.2 * len(labels) * max(1, len(series)) / 2 + 2), 4.2))
    ax = fig.subplots()
    width = 0.8 / len(series)
    for i, s in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(labels))]
        bars = ax.bar(xs, ratios[s], width, label=fmt(s))
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in ratios[s]], fontsize=7, padding=1)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)), labels, rotation=20 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    ax.set_ylabel(ylabel or f"{metric}\nrelative to {fmt(base)}")
    ax.set_title(title or f"{metric}, normalised to {_name(by)} = {fmt(base)}")
    ax.legend(title=_name(by), fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


@_plain_text
def latency_cdf(rows: Sequence[Row], op: str = "read", by: Sequence[str] = ("scheme",), title: str = "",
                histogram: str | None = None, count: str | None = None, what: str | None = None) -> Figure:
    """The latency distribution of `op` (read, write, all) per series on a logit axis, which
    spreads out the tail: the report's sampled CDF (`latency_us.cdf`, every 5% and the tail),
    or its percentiles (p50 to p99.99) where a row has no CDF. A series of several rows
    (seeds) averages their latencies at each fraction. `histogram` names another of the
    report's latency summaries instead (e.g. `ftl.relocations.read_reclaim.service_us`),
    `count` the column saying how many values it holds and `what` the axis label."""
    histogram = histogram or f"host.{op}.latency_us"
    count = count or f"host.{op}.count"
    what = what or f"{op} latency"
    keys = [f"{histogram}.{p}" for p, _ in PERCENTILES]
    _require(rows, *keys, *by)
    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    drawn = 0
    for series in dict.fromkeys(_key(r, by) for r in rows):
        chosen = [r for r in rows if _key(r, by) == series and r.get(count)]
        if not chosen:
            continue
        curves = [cdf_points(r, histogram) or [(float(r[k]), q) for k, (_, q) in zip(keys, PERCENTILES)]
                  for r in chosen]
        # The logit axis cannot show fractions 0 and 1; the other points carry the shape.
        fractions = [q for _, q in curves[0] if 0.0 < q < 1.0]
        lat = [sum(dict((f, x) for x, f in c).get(q, float("nan")) for c in curves) / len(curves) for q in fractions]
        ax.plot(lat, fractions, marker="o", markersize=3, label=_label(series))
        drawn += 1
    if not drawn:
        raise ResultsError(f"no point has any value of {histogram}" if histogram != f"host.{op}.latency_us"
                           else f"no point completed any {op} request")
    ax.set_yscale("logit")
    ax.set_yticks([0.1, 0.5, 0.9, 0.99, 0.999, 0.9999], ["10%", "50%", "90%", "99%", "99.9%", "99.99%"])
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis)
    ax.set_xlabel(f"{what} (us)")
    ax.set_ylabel("fraction at or below")
    ax.set_title(title or f"{what} CDF")
    ax.legend(title=" / ".join(_name(b) for b in by) or None, fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def cdf_points(row: Row, histogram: str) -> list[tuple[float, float]]:
    """(latency, fraction) pairs of a row's sampled CDF; empty when the row has none."""
    raw = row.get(f"{histogram}.cdf")
    if isinstance(raw, str):
        raw = json.loads(raw)
    return [(float(x), float(q)) for x, q in raw or []]


@_plain_text
def versus(rows: Sequence[Row], x: str, metric: str, by: Sequence[str] = ("scheme",), title: str = "",
           logx: bool | None = None, logy: bool | None = None, ylabel: str | None = None,
           paper: Mapping[str, Sequence[tuple[float, float]]] | None = None) -> Figure:
    """`metric` against the parameter `x`, a line per series; `paper` adds published points
    (series label -> [(x, y)]) as hollow markers. Log axes by default when a positive range
    spans more than two decades."""
    _require(rows, x, metric, *by)
    means = _means(rows, [*by, x], metric)
    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    colours = {}
    for series in dict.fromkeys(k[:-1] for k in means):
        pts = sorted((k[-1], v) for k, v in means.items() if k[:-1] == series)
        (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=_label(series))
        colours[_label(series)] = line.get_color()
    for label, pts in (paper or {}).items():
        ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none", marker="s", markersize=8,
                markerfacecolor="none", color=colours.get(label, "black"), label=f"{label} (paper)")
    xs = [k[-1] for k in means]
    ys = list(means.values())
    ax.set_xscale("log" if (logx if logx is not None else _wide(xs)) else "linear")
    ax.set_yscale("log" if (logy if logy is not None else _wide(ys)) else "linear")
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            _plain_log_ticks(axis)
    ax.set_xlabel(_name(x))
    ax.set_ylabel(ylabel or metric)
    ax.set_title(title or f"{metric} against {_name(x)}")
    ax.legend(title=" / ".join(_name(b) for b in by) or None, fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


@_plain_text
def shares(rows: Sequence[Row], parts: Sequence[str], by: str = "workload_name", title: str = "",
           ylabel: str = "share") -> Figure:
    """A stacked bar per value of `by`: each of the `parts` columns as a share of their sum
    (e.g. how many blocks of each kind a scheme used). A bar whose parts sum to zero is
    left empty."""
    _require(rows, by, *parts)
    means = {p: _means(rows, [by], p) for p in parts}
    keys = list(dict.fromkeys(k for p in parts for k in means[p]))
    totals = [sum(means[p].get(k, 0.0) for p in parts) for k in keys]
    fig = Figure(figsize=(max(6.0, 0.9 * len(keys) + 3), 4.2))
    ax = fig.subplots()
    bottom = [0.0] * len(keys)
    for p in parts:
        frac = [means[p].get(k, 0.0) / t if t else 0.0 for k, t in zip(keys, totals)]
        ax.bar(range(len(keys)), frac, 0.6, bottom=bottom, label=_name(p).rsplit(".", 1)[-1])
        bottom = [b + f for b, f in zip(bottom, frac)]
    ax.set_xticks(range(len(keys)), [_label(k) for k in keys])
    ax.set_ylim(0, 1)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


@_plain_text
def grouped_values(values: Mapping[str, Mapping[str, float]], title: str = "", ylabel: str = "",
                   legend: str = "") -> Figure:
    """Grouped bars of values computed outside the result rows: series -> category ->
    value, a group per category."""
    if not values:
        raise ResultsError("nothing to plot")
    series = list(values)
    cats = list(dict.fromkeys(c for s in series for c in values[s]))
    fig = Figure(figsize=(max(6.0, 1.1 * len(cats) + 3), 4.2))
    ax = fig.subplots()
    width = 0.8 / len(series)
    for i, s in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(cats))]
        ys = [values[s].get(c, math.nan) for c in cats]
        bars = ax.bar(xs, ys, width, label=s)
        ax.bar_label(bars, labels=[f"{v:.3f}" for v in ys], fontsize=7, padding=1)
    ax.set_xticks(range(len(cats)), cats)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(title=legend or None, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def _wide(values: Iterable[Any]) -> bool:
    nums = [float(v) for v in values if isinstance(v, (int, float))]
    return bool(nums) and min(nums) > 0 and max(nums) / min(nums) > 100


@_plain_text
def png_bytes(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def save_png(fig: Figure, path, label: str | None = None) -> None:
    write_bytes(path, png_bytes(fig), label)
