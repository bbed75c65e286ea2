"""The results folder of a sweep or a reproduction.

    DIR/experiment.json      what was asked: the spec and its points, in order
    DIR/results/ID.parquet   one row per finished (or failed) point, the Parquet dataset

Each point's row is its own file, written atomically the moment the point finishes, so an
interrupted run loses only the points still running, and a re-run finds what is done by
listing the folder. DuckDB reads the folder as one table."""

from __future__ import annotations

import difflib
import json
import stat
from pathlib import Path
from typing import Any, Mapping

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from xlssd.atomic import atomic_path, make_dir, read_text, remove_stale_temporaries, write_text
from xlssd.results.errors import ResultsError
from xlssd.sweep.point import OK

RESULTS_DIR = "results"
META_FILE = "experiment.json"
#: The keys of the metadata that are read back, and what each must be.
META_TYPES: dict[str, tuple[type | tuple[type, ...], str]] = {
    "kind": (str, "a string"),
    "name": (str, "a string"),
    "description": (str, "a string"),
    "xlssd_version": (str, "a string"),
    "written": (str, "a string"),
    "verdict": (str, "a string"),
    "spec": (dict, "an object"),
    "experiment": (dict, "an object"),
    "points": (list, "a list"),
    "figures": (list, "a list"),
}


def ident(name: str) -> str:
    """A column name quoted for SQL: result columns are dotted keys (`"ftl.waf"`)."""
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Store:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.rows_dir = self.root / RESULTS_DIR
        #: Row files already found readable, with their size and time stamp.
        self._checked: dict[Path, tuple[int, int]] = {}

    # -- writing -------------------------------------------------------------------------

    def prepare(self) -> None:
        """Makes the folder ready for rows; a stray file in it stops the run here, before
        anything is written."""
        make_dir(self.rows_dir)
        self.files()
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
        if not path.is_file():
            return {}
        try:
            meta = json.loads(read_text(path, "the results folder's metadata"))
        except json.JSONDecodeError as e:
            raise ResultsError(f"{path}:{e.lineno}: not the metadata of a results folder: invalid JSON: {e.msg}") from None
        if not isinstance(meta, dict):
            raise ResultsError(f"{path}: not the metadata of a results folder: expected a JSON object")
        for key, (kind, what) in META_TYPES.items():
            if key in meta and not isinstance(meta[key], kind):
                raise ResultsError(f"{path}: `{key}` must be {what}")
        for key, fields in (("points", ("id",)), ("figures", ("file", "title"))):
            if not all(isinstance(x, dict) and all(isinstance(x.get(f), str) for f in fields) for x in meta.get(key, [])):
                raise ResultsError(f"{path}: `{key}` must be a list of objects with {' and '.join(fields)} (strings)")
        for fig in meta.get("figures", []):
            # The report embeds these files: a name must not lead out of the folder.
            if not (self.root / fig["file"]).resolve().is_relative_to(self.root.resolve()):
                raise ResultsError(f"{path}: figure `{fig['file']}` is outside the folder {self.root}")
        return meta

    def files(self) -> list[Path]:
        """The row files, each checked to be a Parquet file with a point's identity: a
        stray file in the folder is named, instead of failing deep inside a query."""
        found = sorted(self.rows_dir.glob("*.parquet")) if self.rows_dir.is_dir() else []
        for f in found:
            self._check(f)
        return found

    def _check(self, f: Path) -> None:
        st = f.lstat()
        if self._checked.get(f) == (st.st_size, st.st_mtime_ns):
            return
        hint = f"; move it out of {self.rows_dir}"
        if not stat.S_ISREG(st.st_mode):
            # A FIFO or a device would block or never end; a link may lead anywhere.
            raise ResultsError(f"{f}: not a results file (not a regular file){hint}")
        try:
            names = pq.read_schema(f).names
        except (OSError, pa.ArrowException) as e:
            raise ResultsError(f"{f}: not a results file (Parquet): {e}{hint}") from None
        missing = [c for c in ("point_id", "status") if c not in names]
        if missing:
            raise ResultsError(f"{f}: not a results file: no column {', '.join(missing)}{hint}")
        self._checked[f] = (st.st_size, st.st_mtime_ns)

    def finished_ids(self) -> set[str]:
        """Points whose row on disk says they succeeded; failed points are run again."""
        done = set()
        for f in self.files():
            try:
                t = pq.read_table(f, columns=["point_id", "status"])
            except (OSError, pa.ArrowException) as e:
                raise ResultsError(f"{f}: cannot read the results file: {e}") from None
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
        if not isinstance(sql, str) or not sql.strip(" \t\r\n;"):
            raise ResultsError("SQL: the query is empty; for example: SELECT * FROM results")
        con = self.connect()
        try:
            rel = con.execute(sql)
            if rel is None or rel.description is None:
                return [], []
            return [d[0] for d in rel.description], rel.fetchall()
        except duckdb.Error as e:
            raise ResultsError(f"SQL: {e}") from None

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
