"""Shared pieces of the experiment-layer tests: small sweep specs and reading rows back."""

import json
from pathlib import Path

import duckdb

# Four points on the tiny preset: two cleaning policies at two over-provisioning levels,
# on a nearly full device so that cleaning matters.
GC_OP_SPEC = """\
name = "gc-op"
preset = "tiny"

[set]
precondition.occupancy = 0.9

[grid]
gc.policy = ["greedy", "fifo"]
ftl.overprovisioning = [0.07, 0.25]

[workloads]
randwrite = "rw=randwrite,n=20000,iodepth=16"
"""


def write_spec(folder: Path, text: str, name: str = "spec.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def parquet_rows(results_dir: Path) -> list[dict]:
    """Every row of a results folder, read with DuckDB straight from the Parquet files
    (not through the package's own store), sorted by point."""
    glob = str(results_dir / "results" / "*.parquet")
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{glob}', union_by_name = true) ORDER BY point_id")
    cols = rel.columns
    return [dict(zip(cols, r)) for r in rel.fetchall()]


def canonical(rows: list[dict]) -> list[str]:
    return [json.dumps(r, sort_keys=True, default=str) for r in rows]


def quick_reproduction(tmp_path_factory, name: str):
    """Runs `xlssd reproduce NAME --quick` into a fresh folder: (folder, completed process)."""
    from conftest import run_cli

    out = tmp_path_factory.mktemp(name) / "quick"
    return out, run_cli("reproduce", name, "--quick", "--out", str(out), "--jobs", "2")


def comparison_rows(out: Path) -> dict[str, dict]:
    """A reproduction's comparison, by quantity."""
    return {c["quantity"]: c for c in json.loads((out / "comparison.json").read_text())}
