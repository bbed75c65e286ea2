"""Sweep specifications: which simulations to run, as a TOML file or built in Python.

A spec names a base device (a preset or a config file), fixed overrides, the swept config
keys (a grid, crossed, and/or a list of explicit override sets), named workloads, named
schemes (bundles of overrides) and seeds. `expand()` turns it into points, each with its
fully resolved config and workload, after checking every part on its own so that an error
names the part of the file it comes from."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from xlssd._core import ConfigError, XlssdError
from xlssd.atomic import plain_name, read_text
from xlssd.config import load_file, load_preset, load_toml, merge, resolve
from xlssd.workload import Trace, synthetic

#: The workload a spec without [workloads] runs: the config's own [workload] section.
DEFAULT_WORKLOAD = "default"
#: The scheme a spec without [schemes] runs: no overrides.
DEFAULT_SCHEME = "default"
#: A trace workload's `quality` table: where the applications' data goes, and how long
#: after the run it is read back.
QUALITY_FIELDS = ("lba", "read_after_h")

TOP_LEVEL_KEYS = {"name", "description", "preset", "config", "seeds", "baseline",
                  "set", "grid", "points", "workloads", "schemes", "max_points"}

#: Points a spec may expand to unless its `max_points` allows more. Expanding resolves
#: every point's config (about a millisecond and ten kilobytes each), so a typo such as a
#: grid of 2,500 x 2,500 values would take gigabytes and hours before anything ran; the
#: count is checked first, from the lengths of the lists alone.
MAX_POINTS = 100_000


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"gc": {"policy": "fifo"}} -> {"gc.policy": "fifo"}; TOML writes dotted keys as
    nested tables, and a spec's user thinks of them as the dotted keys of config.md."""
    out: dict[str, Any] = {}
    for k, v in tree.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out


def nest(dotted: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of `flatten`, for merging overrides into a config."""
    out: dict[str, Any] = {}
    for key, v in dotted.items():
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = v
    return out


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep. `id` is a hash of everything that determines its row, so
    a re-run can tell which points are already on disk."""

    id: str
    scheme: str
    workload_name: str
    seed: int
    params: dict[str, Any]
    config: dict[str, Any]
    workload: dict[str, Any]
    #: Output quality measured in the run (`QUALITY_FIELDS`), or None.
    quality: dict[str, Any] | None = None

    def label(self) -> str:
        parts = [self.scheme, self.workload_name]
        parts += [f"{k}={v}" for k, v in self.params.items()]
        return " / ".join(parts + [f"seed {self.seed}"])

    def task(self) -> dict[str, Any]:
        """What a worker needs to run this point: plain data, cheap to send anywhere."""
        return {
            "point_id": self.id,
            "scheme": self.scheme,
            "workload_name": self.workload_name,
            "seed": self.seed,
            "config": self.config,
            "workload": self.workload,
            "quality": self.quality,
        }


def _file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def engine_id() -> str:
    """The simulator's version and a digest of its compiled module, once per process:
    results of another build are other points, even under the same version number."""
    from xlssd import _core

    return f"{_core.__version__}+{_file_digest(_core.__file__)[:16]}"


@functools.lru_cache(maxsize=None)
def _content_digest(path: str, size: int, mtime_ns: int) -> str:
    # Keyed by size and time stamp too, so that a file rewritten while this process runs
    # is read again; unchanged, a large trace is hashed once per process.
    return _file_digest(path)[:32]


def input_digest(path: str) -> str | None:
    """A digest of the content of an input file, or None when it is not a regular file
    (the simulator then reports the problem; a device or FIFO is never read here)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return _content_digest(os.path.abspath(path), st.st_size, st.st_mtime_ns)


def input_files(config: Mapping[str, Any], workload: Mapping[str, Any]) -> list[str]:
    """Every file a point reads besides its config: the trace of a trace workload and each
    config value naming a file (keys ending in `_file`, like
    `scheme.approxftl.lba_ranges_file`)."""
    files = [v for k, v in flatten(config).items() if k.endswith("_file") and isinstance(v, str) and v]
    if isinstance(workload, Mapping) and workload.get("kind") == "trace" and isinstance(workload.get("path"), str):
        files.append(workload["path"])
    return files


def point_id(scheme: str, workload_name: str, config: Mapping[str, Any], workload: Mapping[str, Any],
             quality: Mapping[str, Any] | None = None) -> str:
    # The labels are part of the identity: two schemes that happen to resolve to the same
    # config (a scheme still being written, say) must still give two rows. So are the
    # simulator build and the content of every file the point reads: resuming after
    # either changed reruns the point, and touching a file without changing it does not.
    identity = {"scheme": scheme, "workload_name": workload_name, "config": config, "workload": workload,
                "engine": engine_id(),
                "inputs": {path: input_digest(path) for path in input_files(config, workload)}}
    if quality is not None:
        identity["quality"] = quality
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


@dataclass
class Spec:
    """A sweep. Overrides are dotted config keys; later ones win: base, `set`, the scheme's,
    the swept values, the seed."""

    name: str
    base: dict[str, Any] = field(default_factory=dict)
    base_label: str = "defaults"
    set: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    workloads: dict[str, Any] = field(default_factory=lambda: {DEFAULT_WORKLOAD: None})
    schemes: dict[str, dict[str, Any]] = field(default_factory=lambda: {DEFAULT_SCHEME: {}})
    seeds: list[int] | None = None
    baseline: str | None = None
    #: The most points the spec may expand to (None: `MAX_POINTS`).
    max_points: int | None = None
    description: str = ""
    source: Path | None = None
    text: str | None = None

    def __post_init__(self):
        # The Python API builds specs directly; a wrong type is named here rather than
        # failing somewhere inside the expansion.
        expected = {"name": str, "base": dict, "base_label": str, "set": dict, "grid": dict, "points": list,
                    "workloads": dict, "schemes": dict, "description": str}
        for key, kind in expected.items():
            if not isinstance(getattr(self, key), kind):
                raise TypeError(f"Spec: `{key}` must be a {kind.__name__}, not {type(getattr(self, key)).__name__}")
        if self.seeds is not None and not isinstance(self.seeds, list):
            raise TypeError(f"Spec: `seeds` must be a list of integers or None, not {type(self.seeds).__name__}")
        if self.baseline is not None and not isinstance(self.baseline, str):
            raise TypeError(f"Spec: `baseline` must be a scheme name (str) or None, not {type(self.baseline).__name__}")
        if self.max_points is not None and (isinstance(self.max_points, bool) or not isinstance(self.max_points, int)
                                            or self.max_points < 1):
            raise TypeError(f"Spec: `max_points` must be a positive integer or None, not {self.max_points!r}")
        plain_name(self.name, "sweep name")

    # -- errors that point into the spec file ------------------------------------------

    def _where(self, section: str | None = None, key: str | None = None) -> str:
        if self.source is None:
            return f"sweep `{self.name}`" + (f", [{section}] {key}" if section and key else "")
        line = _line_of(self.text or "", section, key) if section else None
        loc = f"{self.source}:{line}" if line else str(self.source)
        return loc + (f": [{section}] {key}" if section and key else "")

    def _error(self, section: str | None, key: str | None, message: str) -> ConfigError:
        return ConfigError(f"{self._where(section, key)}: {message}")

    # -- checking and expansion --------------------------------------------------------

    def _resolve(self, overrides: Mapping[str, Any], section: str | None, key: str | None) -> dict[str, Any]:
        try:
            return resolve(merge(self.base, nest(overrides)))
        except ConfigError as e:
            raise self._error(section, key, str(e)) from None

    def _check_parts(self) -> None:
        """Resolves each part of the spec on its own, so a bad key is blamed on its part."""
        if not self.workloads:
            raise self._error(None, None, "[workloads] is empty")
        if not self.schemes:
            raise self._error(None, None, "[schemes] is empty")
        if self.baseline is not None and self.baseline not in self.schemes:
            raise self._error(None, None, f"baseline `{self.baseline}` is not one of the schemes: "
                                          f"{', '.join(self.schemes)}")
        for name, value in self.workloads.items():
            if value is not None and not isinstance(value, (str, Mapping)):
                raise self._error("workloads", name, "expected a workload spec string (\"rw=randread,n=1000\") "
                                                     f"or a table, not {type(value).__name__}")
        for name, over in self.schemes.items():
            if not isinstance(over, Mapping):
                raise self._error("schemes", name, f"expected a table of config overrides, not {type(over).__name__}")
        for i, over in enumerate(self.points):
            if not isinstance(over, Mapping):
                raise self._error("points", f"#{i + 1}", f"expected a table of config overrides, not {type(over).__name__}")
        for key, v in self.set.items():
            self._resolve({key: v}, "set", key)
        self._resolve(self.set, "set", None)
        for name, over in self.schemes.items():
            self._resolve({**self.set, **over}, "schemes", name)
        for key, values in self.grid.items():
            if not isinstance(values, list) or not values:
                raise self._error("grid", key, "expected a non-empty list of values")
            for v in values:
                self._resolve({**self.set, key: v}, "grid", key)
        for i, over in enumerate(self.points):
            # A point may set keys of a technique's table, which only the schemes that use
            # the technique accept; each point is resolved with every scheme when expanded.
            first_error = None
            for sover in self.schemes.values():
                try:
                    self._resolve({**self.set, **sover, **over}, "points", f"#{i + 1}")
                    break
                except ConfigError as e:
                    first_error = first_error or e
            else:
                raise first_error
        if self.seeds is not None and (not self.seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in self.seeds)):
            raise self._error(None, None, "seeds must be a non-empty list of non-negative integers")

    def _param_sets(self) -> list[dict[str, Any]]:
        keys = list(self.grid)
        grid = [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k] for k in keys))]
        if not self.points:
            return grid
        return [{**listed, **g} for listed in self.points for g in grid]

    def _workload(self, name: str, value: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        try:
            if isinstance(value, Mapping) and "trace" in value:
                extra = set(value) - {"trace", "format", "skip_bad_lines", "quality"}
                if extra:
                    raise ConfigError(f"unknown trace field(s) {', '.join(sorted(extra))}; "
                                      "expected trace, format, skip_bad_lines, quality")
                for key, kind, what in (("trace", str, "a path"), ("format", str, "a format name"),
                                        ("skip_bad_lines", bool, "true or false")):
                    if key in value and not isinstance(value[key], kind):
                        raise ConfigError(f"{key}: expected {what}, not {type(value[key]).__name__} {value[key]!r}")
                if not value["trace"]:
                    raise ConfigError("trace: the path is empty")
                path = Path(value["trace"])
                if not path.is_absolute() and self.source is not None:
                    path = self.source.parent / path
                if not path.is_file():
                    raise ConfigError(f"{path}: no such trace file")
                return Trace(str(path.resolve()), value.get("format"), value.get("skip_bad_lines", False)).as_workload()
            return synthetic(value, cfg)
        except XlssdError as e:
            raise self._error("workloads", name, str(e)) from None

    def _quality(self, name: str, value: Any) -> dict[str, Any] | None:
        """A trace workload's `quality` table, checked: the applications' data is carried
        from sector `lba` and read back `read_after_h` hours after the run (docs/quality.md)."""
        if not isinstance(value, Mapping) or "quality" not in value:
            return None
        q = value["quality"]
        problem = None
        if not isinstance(q, Mapping) or set(q) != set(QUALITY_FIELDS):
            problem = f"expected a table with exactly {', '.join(QUALITY_FIELDS)}"
        elif isinstance(q["lba"], bool) or not isinstance(q["lba"], int) or q["lba"] < 0:
            problem = f"lba: value {q['lba']!r} is not a sector number >= 0"
        elif isinstance(q["read_after_h"], bool) or not isinstance(q["read_after_h"], (int, float)) \
                or not q["read_after_h"] >= 0:
            problem = f"read_after_h: value {q['read_after_h']!r} is not a number of hours >= 0"
        if problem:
            raise self._error("workloads", name, f"quality: {problem}")
        return {"lba": q["lba"], "read_after_h": float(q["read_after_h"])}

    def point_count(self) -> int:
        """How many points the spec expands to, from the lengths of its lists alone (a part
        that is not a list counts once: the checks of `expand` name it)."""
        def n(values: Any) -> int:
            return len(values) if isinstance(values, (list, dict)) and values else 1
        count = n(self.workloads) * n(self.schemes) * n(self.points) * n(self.seeds)
        for values in self.grid.values():
            count *= n(values)
        return count

    def _check_size(self) -> None:
        limit = self.max_points or MAX_POINTS
        count = self.point_count()
        if count <= limit:
            return
        grid = " x ".join(f"{len(v)} {k}" for k, v in self.grid.items() if isinstance(v, list)) or "no grid"
        parts = (f"{len(self.workloads)} workload(s) x {len(self.schemes)} scheme(s) x {grid}"
                 + (f" x {len(self.points)} [[points]]" if self.points else "")
                 + (f" x {len(self.seeds)} seed(s)" if isinstance(self.seeds, list) else ""))
        raise self._error("grid" if self.grid else None, None,
                          f"the spec expands to {count:,} points ({parts}), more than the limit of {limit:,}"
                          f"{' its max_points sets' if self.max_points else ''}; expected fewer values, or "
                          f"`max_points = {count}` to allow them")

    def expand(self) -> list[Point]:
        """Every point, in a fixed order: workload, scheme, swept values, seed. The count
        is checked first, before any of them is built."""
        self._check_size()
        self._check_parts()
        out: list[Point] = []
        seen: set[str] = set()
        for wname, wvalue in self.workloads.items():
            for sname, sover in self.schemes.items():
                for params in self._param_sets():
                    over = {**self.set, **sover, **params}
                    first = self._resolve(over, "points" if self.points else "grid", _describe(params))
                    for seed in self.seeds if self.seeds is not None else [first["seed"]]:
                        cfg = self._resolve({**over, "seed": seed}, None, None) if self.seeds else first
                        wl = self._workload(wname, wvalue, cfg)
                        quality = self._quality(wname, wvalue)
                        pid = point_id(sname, wname, cfg, wl, quality)
                        if pid in seen:
                            raise self._error(None, None, f"two points are the same simulation ({sname}, {wname}, "
                                                          f"{_describe(params)}, seed {seed}); remove the repeat")
                        seen.add(pid)
                        out.append(Point(pid, sname, wname, seed, dict(params), cfg, wl, quality))
        return out

    def swept_keys(self) -> list[str]:
        keys = list(self.grid)
        for over in self.points:
            keys += [k for k in over if k not in keys]
        return keys

    def describe(self) -> dict[str, Any]:
        """The spec as plain data, for the metadata written beside the results."""
        return {
            "name": self.name,
            "description": self.description,
            "base": self.base_label,
            "set": self.set,
            "grid": self.grid,
            "points": self.points,
            "workloads": {k: v for k, v in self.workloads.items()},
            "schemes": self.schemes,
            "seeds": self.seeds,
            "baseline": self.baseline,
            "max_points": self.max_points,
            "swept": self.swept_keys(),
        }


def _describe(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no swept keys"


def _line_of(text: str, section: str | None, key: str | None) -> int | None:
    """Best effort: the line of `key` in `[section]` (or in `[[section]]`), else the
    section's header line. TOML parsers do not keep positions, so this reads the text."""
    if not section:
        return None
    header = re.compile(r"^\s*\[\[?\s*" + re.escape(section) + r"\s*\]\]?\s*(#.*)?$")
    any_header = re.compile(r"^\s*\[")
    header_line = None
    for n, line in enumerate(text.splitlines(), 1):
        if header_line is None:
            if header.match(line):
                header_line = n
            continue
        if any_header.match(line) and not header.match(line):
            break
        if key and line.strip().lstrip('"').startswith(key):
            return n
    return header_line


#: The type each top-level key of a spec file must have, as TOML names it.
TOP_LEVEL_TYPES: dict[str, tuple[type, str]] = {
    "name": (str, "a string"),
    "description": (str, "a string"),
    "preset": (str, "a string"),
    "config": (str, "a string"),
    "seeds": (list, "an array of integers"),
    "baseline": (str, "a string"),
    "set": (dict, "a table ([set])"),
    "grid": (dict, "a table ([grid])"),
    "points": (list, "an array of tables ([[points]])"),
    "workloads": (dict, "a table ([workloads])"),
    "schemes": (dict, "a table ([schemes])"),
    "max_points": (int, "a positive integer"),
}


def _toml_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "table"}
    return f"{names.get(type(value), type(value).__name__)} {json.dumps(value, default=str)[:60]}"


def load_spec(path: str | Path) -> Spec:
    """Reads a sweep spec file; every error names the file (and the line where it can)."""
    p = Path(path)
    text = read_text(path, "sweep spec")
    try:
        data = load_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: invalid TOML: {e}") from None

    def error(key: str, message: str) -> ConfigError:
        line = _first_line_starting(text, key.split(".")[0])
        return ConfigError(f"{p}{f':{line}' if line else ''}: `{key}`: {message}")

    unknown = sorted(set(data) - TOP_LEVEL_KEYS)
    if unknown:
        line = _first_line_starting(text, unknown[0])
        raise ConfigError(f"{p}{f':{line}' if line else ''}: unknown key `{unknown[0]}`; "
                          f"a sweep spec has {', '.join(sorted(TOP_LEVEL_KEYS))}")
    for key, (kind, described) in TOP_LEVEL_TYPES.items():
        if key in data and not isinstance(data[key], kind):
            raise error(key, f"expected {described}, not {_toml_type(data[key])}")
    if "preset" in data and "config" in data:
        raise ConfigError(f"{p}: give `preset` or `config`, not both")
    name = data.get("name", p.stem)
    try:
        plain_name(name, "sweep name")
    except ConfigError as e:
        raise error("name", f"{e}; it names the results folder" + ("" if "name" in data else
                            " (taken from the file name: set `name = \"...\"`)")) from None
    if data.get("config") == "":
        raise error("config", "expected the path of a config file, not an empty string")
    if "config" in data:
        cfg_path = Path(data["config"])
        if not cfg_path.is_absolute():
            cfg_path = p.parent / cfg_path
        base, label = load_file(cfg_path), data["config"]
    else:
        preset = data.get("preset", "tiny")
        base, label = load_preset(preset), f"preset {preset}"

    points = data.get("points", [])
    if not all(isinstance(x, dict) for x in points):
        raise error("points", "expected an array of tables ([[points]])")
    workloads = data.get("workloads", {})
    for wname, value in workloads.items():
        if not isinstance(value, (str, dict)):
            raise error("workloads", f"{wname}: expected a workload spec string (\"rw=randread,n=1000\") or a "
                                     f"table, not {_toml_type(value)}")
    schemes = data.get("schemes", {})
    for sname, over in schemes.items():
        if not isinstance(over, dict):
            raise ConfigError(f"{p}: [schemes] {sname}: expected a table of config overrides, e.g. {sname} = {{ gc.policy = \"fifo\" }}")
    seeds = data.get("seeds")
    if seeds is not None and not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise error("seeds", f"expected an array of integers, not {_toml_type(seeds)}")
    most = data.get("max_points")
    if most is not None and (isinstance(most, bool) or most < 1):
        raise error("max_points", f"expected a positive integer, not {_toml_type(most)}")
    return Spec(
        name=name,
        description=data.get("description", ""),
        base=base,
        base_label=label,
        set=flatten(data.get("set", {})),
        grid=flatten(data.get("grid", {})),
        points=[flatten(x) for x in points],
        workloads={k: _workload_value(v) for k, v in workloads.items()} or {DEFAULT_WORKLOAD: None},
        schemes={k: flatten(v) for k, v in schemes.items()} or {DEFAULT_SCHEME: {}},
        seeds=seeds,
        baseline=data.get("baseline"),
        max_points=data.get("max_points"),
        source=p,
        text=text,
    )


def _workload_value(v: Any) -> Any:
    return dict(v) if isinstance(v, Mapping) else v


def _first_line_starting(text: str, key: str) -> int | None:
    """The line of a top-level `key = ...`, or of the header of table `key`."""
    pattern = re.compile(r"^\s*(" + re.escape(key) + r"\s*=|\[\[?\s*" + re.escape(key) + r"\s*[\].])")
    for n, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return n
    return None
