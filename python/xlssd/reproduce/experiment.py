"""The shape of a reproduction: what a paper measured, how we measure it, and how the two
compare.

An experiment declares a device (a preset and overrides), schemes (named overrides: the
technique and its baselines), workloads, a grid of other config keys (ages, sizes), metrics
(SQL expressions over the result columns, usually one report key), the numbers the paper
prints (`Claim`: where it prints them, what they are normalised to) and the figures to
draw. `run_experiment` turns it into a sweep, runs it into a results folder, and writes the
side-by-side table and the figures there."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TextIO

from xlssd.atomic import write_text
from xlssd.config import load_preset
from xlssd.reproduce import shared_traces
from xlssd.results import plots
from xlssd.results.store import Store, ident
from xlssd.sweep.runner import Outcome, metadata, run_points
from xlssd.sweep.spec import Spec
from xlssd.table import text_table

COMPARISON_FILE = "comparison"
FIGURES_DIR = "figures"


@dataclass(frozen=True)
class Metric:
    """A measured quantity: `expr` is SQL over the result columns (quote dotted keys, or
    build it with `Metric.key`)."""

    name: str
    expr: str
    label: str = ""

    @classmethod
    def key(cls, name: str, report_key: str, label: str = "") -> "Metric":
        return cls(name, ident(report_key), label or report_key)


#: What a row of a comparison is. `input`: a value carried from the paper into the model,
#: measured back (it checks the plumbing, not the model); `computed`: a formula evaluated
#: outside the simulator; `simulated`: measured on simulation runs. Headlines count
#: simulated rows on their own.
KINDS = ("simulated", "computed", "input")
#: How close a row's number must be to its claim's `echoes` (or `closed_form`) to be
#: classed an input (or computed).
ECHO_TOL = 0.005
#: How a claim's number is held to the paper's (see `Claim`).
BOUNDS = ("approx", "above", "below", "factor")


@dataclass(frozen=True)
class Claim:
    """One number the paper prints.

    Simulated claims give `metric`, `scheme`, `workload` (None: the mean over the
    experiment's workloads) and `where` (config key -> value, e.g. the P/E count).
    `normalise` is None (absolute), "ratio" (scheme / baseline) or "change" (percent change
    from the baseline), the baseline being the claim's or else the experiment's. Numbers the
    paper derives analytically give `compute` instead, and numbers measured on simulations
    of the claim's own, outside the experiment's points, give `simulate`. `bound = "above"`
    is for a paper cell such as ">93": ours must exceed it (`"below"`: stay under it);
    `bound = "factor"` holds when ours
    has the paper's sign and is within a factor `factor` of it either way (for a change in
    percent, of the change). `kind` (KINDS) is "computed"
    exactly when `compute` is given and defaults to "simulated" otherwise; a measured claim
    whose number the model was given says "input"."""

    ref: str
    label: str
    paper: float
    metric: str | None = None
    scheme: str | None = None
    workload: str | None = None
    #: With `workload` None: the workloads the mean is over (None: all of the run's).
    workloads: Sequence[str] | None = None
    where: Mapping[str, Any] = field(default_factory=dict)
    normalise: str | None = None
    baseline: str | None = None
    bound: str = "approx"
    factor: float = 2.0
    rel_tol: float = 0.10
    abs_tol: float = 0.0
    compute: Callable[[], float] | None = None
    simulate: Callable[[], float] | None = None
    #: Ours as a function of the experiment's result rows, for what no one metric of one
    #: row says (a share of one run's latencies below a fraction of another run's
    #: slowest); None when the rows it needs are not there. Simulated.
    measure: Callable[[list[dict[str, Any]]], float | None] | None = None
    #: Metrics shown beside ours, unnormalised, for the claim's scheme and (when it is
    #: normalised) its baseline, on the same workloads and points: what a reader needs to
    #: judge the row (how busy the disk behind a cache was, say). Printed with the note.
    context: Sequence[str] = ()
    #: For a claim measured on simulations of its own (`simulate`): what to show beside ours
    #: from those runs, as `context` does from the experiment's rows.
    simulate_context: Callable[[], str] | None = None
    note: str = ""
    #: Claims that measure one paper number under different workload or device
    #: assumptions share a group; the verdict says at how many of them it holds.
    group: str | None = None
    #: The assumption this member of a group is measured under, in a few words.
    assumption: str = ""
    kind: str | None = None
    #: A closed form over the inputs that the row's number may do no more than restate
    #: (a configured latency plus a transfer, say). When ours equals it (within ECHO_TOL),
    #: the row is classed `input`, whatever `kind` says: the run only measured its input back.
    echoes: Callable[[], float] | None = None
    #: A formula over the inputs that would give the row's number without simulating
    #: (sense, transfer and decode times added up, say). When ours equals it (within
    #: ECHO_TOL) the row is classed `computed`: the runs saw nothing the formula does not.
    closed_form: Callable[[], float] | None = None
    #: `where` values of the baseline's rows that differ from the claim's (e.g. the same
    #: scheme earlier in life: `baseline_where={"aging.initial_pe": 1}`).
    baseline_where: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        # A formula's row labelled as a measurement (or the reverse) would be counted in the
        # wrong part of the headline, which is what the kinds are there to prevent.
        problem = None
        if self.bound not in BOUNDS:
            problem = f"bound {self.bound!r} is not one of {', '.join(BOUNDS)}"
        elif self.bound == "factor" and not (self.factor > 1.0 and self.paper != 0):
            problem = "bound 'factor' needs a factor above 1 and a non-zero paper number"
        elif self.kind is not None and self.kind not in KINDS:
            problem = f"kind {self.kind!r} is not one of {', '.join(KINDS)}"
        elif sum(x is not None for x in (self.compute, self.simulate, self.measure)) > 1:
            problem = "give `compute` (a formula), `simulate` (simulation runs) or `measure`, not two of them"
        elif self.compute is not None and self.kind not in (None, "computed"):
            problem = (f"kind {self.kind!r} with `compute`: a formula evaluated outside the simulator is "
                       "'computed' (numbers from simulations of the claim's own give `simulate`)")
        elif self.compute is None and self.kind == "computed":
            problem = "kind 'computed' needs `compute`, the formula"
        if problem:
            raise ValueError(f"claim {self.ref}, {self.label!r}: {problem}")

    @property
    def row_kind(self) -> str:
        """The kind of this claim's row (`kind`, or its default)."""
        if self.kind is not None:
            return self.kind
        return "computed" if self.compute is not None else "simulated"

    def paper_text(self) -> str:
        if self.bound in ("above", "below"):
            return f"{'>' if self.bound == 'above' else '<'}{_num(self.paper)}"
        text = _num(self.paper) + _unit(self.normalise)
        return f"{text} (x{_num(self.factor)})" if self.bound == "factor" else text

    def within(self, ours: float) -> bool:
        if self.bound == "above":
            return ours > self.paper
        if self.bound == "below":
            return ours < self.paper
        if self.bound == "factor":
            ratio = ours / self.paper
            return 1.0 / self.factor <= ratio <= self.factor
        return abs(ours - self.paper) <= max(self.abs_tol, self.rel_tol * abs(self.paper))

    def difference_text(self, ours: float) -> str:
        if self.bound in ("above", "below"):
            return "-"
        if self.bound == "factor":
            ratio = ours / self.paper
            return f"x{ratio:.2f}" if ratio > 0 else "opposite sign"
        if self.normalise == "change":
            return f"{ours - self.paper:+.1f} pp"
        if self.normalise == "ratio" or self.paper == 0:
            return f"{ours - self.paper:+.3g}"
        return f"{(ours / self.paper - 1) * 100:+.1f}%"


@dataclass(frozen=True)
class Plot:
    """A figure: `bars` (metric normalised to the baseline scheme, per workload),
    `cdf` (latency distribution of `op`, or of the report's summary `histogram`, per scheme), `versus` (metric against the config
    key `x`, a line per scheme, with the paper's numbers of that metric as markers),
    `shares` (the report keys `parts` of `scheme` as shares of their sum, a stacked bar
    per workload) or `values` (grouped bars of what `compute` returns: series -> category
    -> value, for numbers made outside the simulation points)."""

    kind: str
    name: str
    title: str
    ref: str = ""
    metric: str | None = None
    x: str | None = None
    op: str = "read"
    workload: str | None = None
    where: Mapping[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    scheme: str | None = None
    parts: Sequence[str] = ()
    ylabel: str = ""
    compute: Callable[[], Mapping[str, Mapping[str, float]]] | None = None
    #: For `cdf`: another latency summary of the report than the host's (its key prefix,
    #: e.g. `ftl.relocations.read_reclaim.service_us`), the column counting its values,
    #: and what it measures (the axis label).
    histogram: str | None = None
    count: str | None = None
    what: str | None = None
    #: Only these workloads (None: all, or `workload`).
    workloads: Sequence[str] | None = None


@dataclass(frozen=True)
class Variant:
    """Points outside the experiment's cross product, for showing a result across an
    assumption: `schemes` (names among the experiment's; None: all) on the workloads
    `prepare` makes (called like `Experiment.prepare`, with the experiment's own
    workloads as a third argument; None: those) at each of `points` (override sets, each
    crossed with the grid)."""

    name: str
    points: Sequence[Mapping[str, Any]]
    schemes: Sequence[str] | None = None
    prepare: Callable[[Path, bool, Mapping[str, Any]], Mapping[str, Any]] | None = None
    #: The grid its points are crossed with (None: the experiment's; {}: none, the points
    #: set what the grid would).
    grid: Mapping[str, Sequence[Any]] | None = None


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    paper: str
    preset: str
    schemes: Mapping[str, Mapping[str, Any]]
    baseline: str
    workloads: Mapping[str, Any]
    metrics: Sequence[Metric]
    claims: Sequence[Claim]
    figures: Sequence[Plot] = ()
    set: Mapping[str, Any] = field(default_factory=dict)
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    #: Explicit override sets, each crossed with the grid (e.g. two device set-ups whose
    #: keys change together); claims and figures pick theirs with `where`.
    points: Sequence[Mapping[str, Any]] = ()
    seeds: Sequence[int] | None = None
    #: What --quick changes: any of `workloads`, `grid`, `points`, `seeds`, `real_traces`, `set` (merged
    #: over `set`) and `schemes` (the same names, other overrides: keys of a technique's
    #: table, which only the schemes that use it may set).
    quick: Mapping[str, Any] = field(default_factory=dict)
    #: Workloads made at run time (e.g. generated traces): called with the results folder
    #: and the quick flag before the spec is built, it returns the workloads to run, which
    #: replace `workloads` (and the quick ones).
    prepare: Callable[[Path, bool], Mapping[str, Any]] | None = None
    variants: Sequence[Variant] = ()
    #: The real traces (`shared_traces`) some of its workloads run when they are found;
    #: `quick` may name others (`"real_traces"`).
    real_traces: Sequence[str] = ()

    def spec(self, quick: bool = False, workloads: Mapping[str, Any] | None = None) -> Spec:
        over = dict(self.quick) if quick else {}
        return Spec(
            name=self.name + ("-quick" if quick else ""),
            description=self.description,
            base=load_preset(self.preset),
            base_label=f"preset {self.preset}",
            set={**self.set, **over.get("set", {})},
            grid={k: list(v) for k, v in over.get("grid", self.grid).items()},
            points=[dict(p) for p in over.get("points", self.points)],
            workloads=dict(workloads if workloads is not None else over.get("workloads", self.workloads)),
            schemes={k: dict(v) for k, v in over.get("schemes", self.schemes).items()},
            seeds=list(over["seeds"]) if "seeds" in over else (list(self.seeds) if self.seeds else None),
            baseline=self.baseline,
        )

    def variant_spec(self, v: Variant, quick: bool, workloads: Mapping[str, Any]) -> Spec:
        """The sweep of one variant: the experiment's spec with the variant's schemes,
        workloads and points."""
        unknown = [s for s in (v.schemes or ()) if s not in self.schemes]
        if unknown:
            raise ValueError(f"experiment {self.name}: variant `{v.name}` names unknown schemes {unknown}")
        main = self.spec(quick, workloads)
        chosen = {k: dict(o) for k, o in main.schemes.items() if v.schemes is None or k in v.schemes}
        return Spec(
            name=f"{main.name}-{v.name}", description=main.description, base=main.base,
            base_label=main.base_label, set=main.set,
            grid=main.grid if v.grid is None else {k: list(x) for k, x in v.grid.items()},
            points=[dict(p) for p in v.points],
            workloads=dict(workloads), schemes=chosen, seeds=main.seeds,
            # A variant of the technique alone is compared with the baseline's main points.
            baseline=main.baseline if main.baseline in chosen else None,
        )

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"experiment {self.name}: no metric `{name}`")


# -- comparing with the paper ------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    claim: Claim
    ours: float
    #: The claim's `context` metrics as measured ("disk utilization: a 0.52, b 0.99").
    context: str = ""

    @property
    def kind(self) -> str:
        """The row's kind by provenance: `input` when ours restates its claim's `echoes`,
        `computed` when it equals its `closed_form`."""
        c = self.claim
        for formula, kind in ((c.echoes, "input"), (c.closed_form, "computed")):
            if formula is not None and math.isfinite(self.ours):
                value = formula()
                if abs(self.ours - value) <= ECHO_TOL * max(abs(value), 1e-12):
                    return kind
        return c.row_kind

    def as_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "ref": c.ref, "kind": self.kind, "quantity": c.label, "ours": self.ours, "paper": c.paper, "bound": c.bound,
            "normalise": c.normalise, "ours_text": _num(self.ours) + _unit(c.normalise),
            "paper_text": c.paper_text(), "difference": c.difference_text(self.ours),
            "within_tolerance": c.within(self.ours),
            "note": "; ".join(part for part in (c.note, self.context) if part),
        }


def _num(v: float) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    if float(v).is_integer() and abs(v) < 1e6:
        return f"{int(v)}"
    if v != 0 and (abs(v) < 1e-2 or abs(v) >= 1e6):
        return f"{v:.3e}"
    return f"{v:.4g}"


def _unit(normalise: str | None) -> str:
    return "%" if normalise == "change" else ""


def _matches(row: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    """Whether `row` was run with the `where` values. A key the row's configuration does
    not have (a key of a technique's table, in a row of a scheme without that table) does
    not rule the row out: the baseline a claim on that technique is normalised to has none."""
    for key, want in where.items():
        got = row.get(f"config.{key}", row.get(key))
        if got is None:
            continue
        if got != want and str(got) != str(want):
            return False
    return True


def _measure(claim: Claim, exp: Experiment, rows: list[dict[str, Any]]) -> float | None:
    """Ours for a simulated claim; None when the run has no point for it (a --quick run)."""
    col = claim.metric

    def mean(scheme: str, workload: str, where: Mapping[str, Any] = claim.where) -> float | None:
        vals = [float(r[col]) for r in rows if r["scheme"] == scheme and r["workload_name"] == workload
                and _matches(r, where) and r.get(col) is not None]
        return sum(vals) / len(vals) if vals else None

    present = list(dict.fromkeys(r["workload_name"] for r in rows))
    if claim.workload:
        workloads = [claim.workload]
    elif claim.workloads is not None:
        workloads = [w for w in claim.workloads if w in present]
    else:
        workloads = present
    per_workload = []
    for w in workloads:
        v = mean(claim.scheme, w)
        if v is None:
            continue
        if claim.normalise:
            # Against the same scheme elsewhere when only the baseline's `where` is given.
            base = claim.baseline or (claim.scheme if claim.baseline_where else exp.baseline)
            ref = mean(base, w, {**claim.where, **claim.baseline_where})
            if not ref:
                continue
            v = v / ref
        per_workload.append(v)
    if not per_workload:
        return None
    ours = sum(per_workload) / len(per_workload)
    return (ours - 1) * 100 if claim.normalise == "change" else ours


def _context(claim: Claim, exp: Experiment, rows: list[dict[str, Any]]) -> str:
    """The claim's context metrics, for its scheme and its baseline (see `Claim.context`),
    or what its own simulations show (`Claim.simulate_context`)."""
    parts = [claim.simulate_context()] if claim.simulate_context is not None else []
    for name in claim.context:
        label = next((m.label for m in exp.metrics if m.name == name), name)
        sides = [(claim.scheme, claim.where)]
        if claim.normalise:
            base = claim.baseline or (claim.scheme if claim.baseline_where else exp.baseline)
            sides.append((base, {**claim.where, **claim.baseline_where}))
        values = []
        for scheme, where in sides:
            v = _measure(replace(claim, metric=name, normalise=None, scheme=scheme, where=where, baseline_where={},
                                 bound="approx"), exp, rows)
            if v is not None:
                values.append(f"{scheme} {_num(v)}")
        if values:
            parts.append(f"{label}: {', '.join(values)}")
    return "; ".join(parts)


def compare(exp: Experiment, rows: list[dict[str, Any]]) -> tuple[list[Comparison], int]:
    """The paper's numbers beside ours, and how many claims this run could not check."""
    out, skipped = [], 0
    for claim in exp.claims:
        own = claim.compute or claim.simulate
        if own is not None:
            ours = own()
        elif claim.measure is not None:
            ours = claim.measure(rows)
        else:
            ours = _measure(claim, exp, rows)
        if ours is None:
            skipped += 1
        else:
            out.append(Comparison(claim, float(ours), _context(claim, exp, rows)))
    return out, skipped


def group_lines(comparisons: list[Comparison]) -> list[str]:
    """One line per claim group: at how many of its assumptions the paper's number holds."""
    groups: dict[str, list[Comparison]] = {}
    for c in comparisons:
        if c.claim.group:
            groups.setdefault(c.claim.group, []).append(c)
    lines = []
    for name, members in groups.items():
        held = [c for c in members if c.claim.within(c.ours)]
        which = "every one" if len(held) == len(members) else (
            "none" if not held else "; ".join(c.claim.assumption or c.claim.label for c in held))
        lines.append(f"{name}: within tolerance under {len(held)} of {len(members)} assumptions ({which})")
    return lines


def tally(comparisons: list[Comparison]) -> dict[str, dict[str, int]]:
    """Rows and rows within tolerance, per kind, in the order of KINDS (kinds with rows)."""
    out: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        rows = [c for c in comparisons if c.kind == kind]
        if rows:
            out[kind] = {"within": sum(c.claim.within(c.ours) for c in rows), "rows": len(rows)}
    return out


def headline(comparisons: list[Comparison]) -> str:
    """Simulated rows first and on their own: computed and input rows say nothing about the
    simulator's fidelity."""
    counts = tally(comparisons)
    if not counts:
        return "no numbers to compare with the paper"
    parts = [f"{kind}: {n['within']} of {n['rows']} within tolerance" + (" of the paper" if i == 0 else "")
             for i, (kind, n) in enumerate(counts.items())]
    if "simulated" not in counts:
        parts.insert(0, "simulated: no rows")
    return "; ".join(parts)


def comparison_table(comparisons: list[Comparison]) -> str:
    """The rows as text; a `context` column when any claim has context metrics."""
    with_context = any(c.context for c in comparisons)
    rows = [[c.claim.ref, d["kind"], c.claim.label, d["ours_text"], d["paper_text"], d["difference"],
             "yes" if d["within_tolerance"] else "NO", *([c.context] if with_context else [])]
            for c in comparisons for d in [c.as_dict()]]
    return text_table(["source", "kind", "quantity", "ours", "paper", "difference", "within tolerance",
                       *(["context"] if with_context else [])], rows)


def _markdown(comparisons: list[Comparison]) -> str:
    with_context = any(c.context for c in comparisons)
    extra = " context |" if with_context else ""
    lines = ["| source | kind | quantity | ours | paper | difference | within tolerance |" + extra,
             "|---|---|---|---|---|---|---|" + ("---|" if with_context else "")]
    for c in comparisons:
        d = c.as_dict()
        lines.append(f"| {d['ref']} | {d['kind']} | {d['quantity']} | {d['ours_text']} | {d['paper_text']} "
                     f"| {d['difference']} | {'yes' if d['within_tolerance'] else 'no'} |"
                     + (f" {c.context} |" if with_context else ""))
    return "\n".join(lines) + "\n"


def _csv(comparisons: list[Comparison]) -> str:
    buf = io.StringIO()
    fields = ["ref", "kind", "quantity", "ours", "paper", "bound", "normalise", "difference", "within_tolerance",
              "note"]
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for c in comparisons:
        w.writerow(c.as_dict())
    return buf.getvalue()


# -- figures -------------------------------------------------------------------------------


def draw(exp: Experiment, fig: Plot, rows: list[dict[str, Any]]):
    """The matplotlib figure of one Plot; None when this run has no points for it."""
    title = f"{fig.title}" + (f"  [{fig.ref}]" if fig.ref else "")
    if fig.kind == "values":
        return plots.grouped_values(fig.compute(), title, ylabel=fig.ylabel, legend="scheme")
    chosen = [r for r in rows if (fig.workload is None or r["workload_name"] == fig.workload)
              and (fig.workloads is None or r["workload_name"] in fig.workloads)
              and (fig.scheme is None or r["scheme"] == fig.scheme) and _matches(r, fig.where)]
    if not chosen:
        return None
    if fig.kind == "bars":
        group = [] if fig.workload else ["workload_name"]
        m = exp.metric(fig.metric)
        # A point where the metric is undefined (a ratio over no erases) has no bar, nor
        # has a workload whose baseline has none: there is nothing to normalise to.
        base = fig.baseline or exp.baseline
        chosen = [r for r in chosen if r.get(m.name) is not None]
        have = {r["workload_name"] for r in chosen if r["scheme"] == base}
        chosen = [r for r in chosen if r["workload_name"] in have]
        if not chosen:
            return None
        return plots.normalised_bars(chosen, m.name, "scheme", base, group, title,
                                     ylabel=f"{m.label}\nrelative to {base}")
    if fig.kind == "shares":
        chosen = [r for r in chosen if all(r.get(p) is not None for p in fig.parts)]
        if not chosen:
            return None
        return plots.shares(chosen, list(fig.parts), "workload_name", title, ylabel=fig.ylabel or "share")
    if fig.kind == "cdf":
        by = ["scheme"] if fig.workload else ["scheme", "workload_name"]
        return plots.latency_cdf(chosen, fig.op, by, title, histogram=fig.histogram, count=fig.count, what=fig.what)
    if fig.kind == "versus":
        m = exp.metric(fig.metric)
        paper: dict[str, list[tuple[float, float]]] = {}
        for c in exp.claims:
            if (c.metric == fig.metric and c.normalise is None and c.compute is None and c.simulate is None
                    and set(c.where) == {fig.x} and (fig.workload is None or c.workload == fig.workload)):
                paper.setdefault(c.scheme, []).append((c.where[fig.x], c.paper))
        by = ["scheme"] if fig.workload else ["scheme", "workload_name"]
        return plots.versus(chosen, f"config.{fig.x}", m.name, by, title, ylabel=m.label, paper=paper)
    raise ValueError(f"unknown figure kind `{fig.kind}`")


# -- running -----------------------------------------------------------------------------


def default_out(exp: Experiment, quick: bool) -> Path:
    return Path("out") / (exp.name + ("-quick" if quick else ""))


def run_experiment(exp: Experiment, out: str | Path | None = None, quick: bool = False, backend=None,
                   quiet: bool = False, stdout: TextIO | None = None) -> tuple[Outcome, list[Comparison]]:
    """Runs (or resumes) the experiment into `out`, prints the comparison, and writes
    comparison.{txt,md,csv,json}, figures/*.png and experiment.json there."""
    stdout = stdout or sys.stdout
    out = Path(out) if out is not None else default_out(exp, quick)
    prepared = exp.prepare(out, quick) if exp.prepare is not None else None
    spec = exp.spec(quick, prepared)
    specs = [spec]
    for v in exp.variants:
        workloads = v.prepare(out, quick, spec.workloads) if v.prepare else spec.workloads
        # A variant on inputs that are not there (a trace beside the checkout) is left out;
        # its claims then have no points.
        if workloads:
            specs.append(exp.variant_spec(v, quick, workloads))
    missed = shared_traces.missing(exp.quick.get("real_traces", exp.real_traces) if quick else exp.real_traces)
    points = [p for s in specs for p in s.expand()]
    repeated = len(points) - len({p.id for p in points})
    if repeated:
        raise ValueError(f"experiment {exp.name}: {repeated} variant point(s) repeat points of the experiment")
    store = Store(out)
    store.prepare()
    info = {"experiment": {"name": exp.name, "description": exp.description, "paper": exp.paper, "quick": quick,
                           "variants": [s.describe() for s in specs[1:]]}}
    if missed:
        info["experiment"]["missed_traces"] = missed
    store.write_meta(metadata("reproduction", spec, points, info))
    outcome = run_points(points, store, backend, quiet, title=exp.name)

    rows = store.rows(extra={m.name: m.expr for m in exp.metrics}) if store.files() else []
    comparisons, skipped = compare(exp, rows)
    table = comparison_table(comparisons)
    verdict = headline(comparisons)
    if skipped:
        verdict += f" ({skipped} more need the full run)" if quick else f" ({skipped} without points)"
    verdict += "".join("\n" + line for line in group_lines(comparisons))
    if missed:
        verdict += "\n" + shared_traces.missed_note(missed)
    write_text(out / f"{COMPARISON_FILE}.txt", table + "\n" + verdict + "\n")
    write_text(out / f"{COMPARISON_FILE}.md", _markdown(comparisons))
    write_text(out / f"{COMPARISON_FILE}.csv", _csv(comparisons))
    write_text(out / f"{COMPARISON_FILE}.json", json.dumps([c.as_dict() for c in comparisons], indent=2) + "\n")

    figures_dir = out / FIGURES_DIR
    figures_dir.mkdir(exist_ok=True)
    drawn = []
    for fig in exp.figures:
        f = draw(exp, fig, rows)
        if f is not None:
            plots.save_png(f, figures_dir / f"{fig.name}.png")
            drawn.append({"file": f"{FIGURES_DIR}/{fig.name}.png", "title": fig.title, "ref": fig.ref})
    store.write_meta(metadata("reproduction", spec, points,
                              {**info, "figures": drawn, "verdict": verdict, "tally": tally(comparisons)}))

    if not quiet:
        print(f"{exp.name}: {exp.description}", file=stdout)
        print(f"{exp.paper}\n", file=stdout)
        print(table, file=stdout)
        print(f"\n{verdict}", file=stdout)
        print(outcome.summary(), file=stdout)
        print(f"results, table and figures in {out}", file=stdout)
    return outcome, comparisons
