"""The results folder of a sweep or a reproduction.

    DIR/experiment.json      what was asked: the spec and its points, in order
    DIR/results/ID.parquet   one row per finished (or failed) point, the Parquet dataset

Each point's row is its own file, written atomically the moment the point finishes, so an
interrupted run loses only the points still running, and a re-run finds what is done by
listing the folder. DuckDB reads the folder as one table."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Mapping

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from xlssd.atomic import atomic_path, remove_stale_temporaries, write_text
from xlssd.results.errors import ResultsError
from xlssd.sweep.point import OK

RESULTS_DIR = "results"
META_FILE = "experiment.json"


def ident(name: str) -> str:
    """A column name quoted for SQL: result columns are dotted keys (`"ftl.waf"`)."""
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Store:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.rows_dir = self.root / RESULTS_DIR

    # -- writing -------------------------------------------------------------------------

    def prepare(self) -> None:
        self.rows_dir.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.rows_dir)
        remove_stale_temporaries(self.root)

    def write_row(self, row: Mapping[str, Any]) -> None:
        table = pa.Table.from_pylist([dict(row)])
        with atomic_path(self.rows_dir / f"{row['point_id']}.parquet") as tmp:
            pq.write_table(table, tmp)

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        write_text(self.root / META_FILE, json.dumps(meta, indent=2, default=str) + "\n")

    # -- reading -------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        path = self.root / META_FILE
        return json.loads(path.read_text()) if path.is_file() else {}

    def files(self) -> list[Path]:
        return sorted(self.rows_dir.glob("*.parquet")) if self.rows_dir.is_dir() else []

    def finished_ids(self) -> set[str]:
        """Points whose row on disk says they succeeded; failed points are run again."""
        done = set()
        for f in self.files():
            t = pq.read_table(f, columns=["point_id", "status"])
            done.update(pid for pid, st in zip(t["point_id"].to_pylist(), t["status"].to_pylist()) if st == OK)
        return done

    def require(self) -> None:
        if not self.files():
            raise ResultsError(f"{self.root}: no results (expected {self.rows_dir}/*.parquet, "
                               "written by `xlssd sweep` or `xlssd reproduce`)")

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB with three views over the folder:
        `results` (the finished points of the current spec, in its order), `failures`
        (its failed points) and `all_points` (every row on disk, earlier specs' too)."""
        self.require()
        con = duckdb.connect()
        glob = _literal(str(self.rows_dir / "*.parquet"))
        con.execute(f"CREATE VIEW all_points AS SELECT * FROM read_parquet({glob}, union_by_name = true)")
        order = [p["id"] for p in self.meta().get("points", [])]
        con.execute("CREATE TABLE current_points (point_id VARCHAR, point_order INTEGER)")
        if order:
            con.executemany("INSERT INTO current_points VALUES (?, ?)", list(zip(order, range(len(order)))))
        else:
            con.execute("INSERT INTO current_points SELECT DISTINCT point_id, 0 FROM all_points")
        con.execute(
            "CREATE VIEW results AS SELECT a.* FROM all_points a JOIN current_points c USING (point_id) "
            f"WHERE a.status = {_literal(OK)} ORDER BY c.point_order, a.point_id"
        )
        con.execute(
            "CREATE VIEW failures AS SELECT a.point_id, a.scheme, a.workload_name, a.seed, a.error "
            f"FROM all_points a JOIN current_points c USING (point_id) WHERE a.status <> {_literal(OK)} "
            "ORDER BY c.point_order"
        )
        return con

    def query(self, sql: str) -> tuple[list[str], list[tuple]]:
        con = self.connect()
        try:
            rel = con.execute(sql)
        except duckdb.Error as e:
            raise ResultsError(f"SQL: {e}") from None
        if rel.description is None:
            return [], []
        return [d[0] for d in rel.description], rel.fetchall()

    def columns(self, view: str = "results") -> list[str]:
        return [d[0] for d in self.connect().execute(f"SELECT * FROM {view} LIMIT 0").description]

    def column(self, name: str, columns: list[str] | None = None) -> str:
        """A user's column name: exact, or a config key without its `config.` prefix."""
        cols = columns if columns is not None else self.columns()
        for candidate in (name, f"config.{name}"):
            if candidate in cols:
                return candidate
        close = difflib.get_close_matches(name, cols, n=3) or difflib.get_close_matches(f"config.{name}", cols, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ResultsError(f"{self.root}: no column `{name}` in the results{hint}")

    def rows(self, where: str | None = None, extra: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
        """The finished rows, with `extra` SQL expressions added as named columns."""
        added = "".join(f", ({expr}) AS {ident(name)}" for name, expr in (extra or {}).items())
        sql = f"SELECT *{added} FROM results" + (f" WHERE {where}" if where else "")
        cols, tuples = self.query(sql)
        return [dict(zip(cols, t)) for t in tuples]
