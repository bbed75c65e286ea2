"""Configurations: presets, config files and ``--set`` overrides, merged into one dict and
validated by the core, which fills in every default and names any bad key."""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Iterable, Mapping

from xlssd import _core
from xlssd._core import ConfigError
from xlssd.atomic import plain_name, read_text

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any

PRESET_SUFFIX = ".toml"


def _preset_dir() -> str:
    # The package is always unpacked on disk (built in place or installed as a wheel), so
    # its own path is enough; importlib.resources would add about 10 ms to every start, and
    # pathlib (with what it loads) about 3 ms.
    return os.path.join(os.path.dirname(os.path.realpath(__file__)), "presets")


def preset_names() -> list[str]:
    """Names of the bundled device presets."""
    return sorted(
        n[: -len(PRESET_SUFFIX)] for n in os.listdir(_preset_dir()) if n.endswith(PRESET_SUFFIX)
    )


def preset_description(name: str) -> str:
    """The first comment paragraph of a preset file."""
    text = _read_preset(name)
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").rstrip())
    return " ".join(lines)


def load_toml(text: str) -> dict[str, Any]:
    """A TOML document as `tomllib.loads` reads it. The core's TOML parser reads it, as it
    reads the presets and `--set` values; tomllib (about 12 ms of start-up) is loaded only
    for what that reading cannot carry into JSON (NaN, infinities, dates, integers past 64
    bits) and for a document the core refuses, so that the error is tomllib's, as before (a
    test compares both readings on documents valid and not)."""
    try:
        data = _core_reading(text)
    except ConfigError:
        data = None
    return data if data is not None else _tomllib_loads(text)


def _core_reading(text: str) -> dict[str, Any] | None:
    """A TOML document as the core's parser reads it, or None when that reading cannot carry
    it into JSON as tomllib would read it; raises ConfigError when the core refuses it."""
    data = json.loads(_core.toml_to_json(text))
    return data if _carried(data) else None


def _tomllib_loads(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with a document nested too deeply for it (its parser recurses once
    per level of arrays and inline tables) reported as invalid TOML, not as RecursionError."""
    import tomllib

    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or inline tables nested too deeply") from None


def _parse_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return load_toml(text)
    except ValueError as e:
        # Only a document the core refused reaches tomllib, whose error this then is.
        tomllib = sys.modules.get("tomllib")
        if tomllib is not None and isinstance(e, tomllib.TOMLDecodeError):
            raise ConfigError(f"{where}: invalid TOML: {e}") from None
        raise


def _preset_file(name: Any) -> str:
    """The bundled file of preset `name`. A preset is named, never a path: a name with a
    separator or a leading dot would reach files outside the presets."""
    known = preset_names()
    hint = f"; presets are: {', '.join(known)} (a config file of your own goes to --config FILE)"
    if not isinstance(name, str):
        raise ConfigError(f"preset: expected a preset name (a string), not {type(name).__name__}{hint}")
    try:
        plain_name(name, "preset")
    except ConfigError as e:
        raise ConfigError(f"{e}{hint}") from None
    path = os.path.join(_preset_dir(), name + PRESET_SUFFIX)
    if name not in known or not os.path.isfile(path):
        raise ConfigError(f"unknown preset `{name}`{hint}")
    return path


def _read_preset(name: Any) -> str:
    with open(_preset_file(name), encoding="utf-8") as f:
        return f.read()


def load_preset(name: str) -> dict[str, Any]:
    # The bundled presets are read by the core's TOML parser, so that a run from a preset
    # loads no TOML parser in Python (a test checks both parsers read every preset alike).
    text = _read_preset(name)
    try:
        return json.loads(_core.toml_to_json(text))
    except ConfigError as e:
        raise ConfigError(f"preset {name}: invalid TOML: {e}") from None


def load_file(path: str | os.PathLike) -> dict[str, Any]:
    """Reads a config file. A top-level `base = "PRESET"` starts from that preset."""
    text = read_text(path, "config file")
    return with_base(_parse_toml(text, str(path)), str(path))


def with_base(data: Mapping[str, Any], where: str = "config") -> dict[str, Any]:
    """A config whose top-level `base = "PRESET"` is replaced by that preset under it."""
    data = dict(data)
    base = data.pop("base", None)
    if base is None:
        return data
    if not isinstance(base, str):
        raise ConfigError(f"{where}: config key `base` must be a preset name (a string)")
    return merge(load_preset(base), data)


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merges `over` onto `base` (tables merge, values replace)."""
    out = copy.deepcopy(dict(base))
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


#: The characters a TOML value other than `true`, `false`, `inf` and `nan` starts with.
VALUE_STARTS = frozenset("0123456789+-\"'[{")

#: A value the core's TOML reading cannot carry into JSON as Python's would read it: NaN and
#: infinities (null in JSON) and dates and times (a marker table).
_NOT_IN_JSON = "$__toml_private_datetime"


def _carried(value: Any) -> bool:
    """Whether `value`, read by the core, is what tomllib would have read."""
    if value is None:
        return False
    if isinstance(value, list):
        return all(_carried(v) for v in value)
    if isinstance(value, dict):
        return _NOT_IN_JSON not in value and all(_carried(v) for v in value.values())
    return True


def parse_value(text: str) -> Any:
    """A `--set` value: a TOML literal (number, bool, string, array, inline table), else a
    bare string. Read by the core's TOML parser, so that a run with `--set` loads no TOML
    parser in Python (tomllib costs about 15 ms of start-up); the values that reading cannot
    carry (NaN, infinities, dates, integers past 64 bits, deep nesting) are read by tomllib,
    as before."""
    try:
        data = _core_reading(f"v = {text}")
    except ConfigError:
        # Not TOML to the core. Text that does not start as a TOML value can start (a word:
        # `true`, `false`, `inf` and `nan` the core reads) is a bare string; the rest tomllib
        # decides, which reads what the core refuses (integers past 64 bits, arrays nested
        # past the core's limit).
        if text.strip()[:1] not in VALUE_STARTS:
            return text
    else:
        if data is not None:
            return data["v"]
    import tomllib

    try:
        return _tomllib_loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_sets(cfg: dict[str, Any], sets: Iterable[str]) -> dict[str, Any]:
    """Applies `KEY=VALUE` overrides with dotted keys (`gc.policy=fifo`)."""
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Iterable):
        raise TypeError(f"`sets` must be a list of KEY=VALUE strings, not {type(sets).__name__}")
    out = copy.deepcopy(cfg)
    for item in sets:
        if not isinstance(item, str):
            raise TypeError(f"`sets`: each item must be a KEY=VALUE string, not {type(item).__name__} {item!r}")
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE, for example gc.policy=fifo")
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"config key `{key}`: `{part}` is a value, not a section")
            node = child
        node[parts[-1]] = parse_value(value.strip())
    return out


def resolve(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Validates a config and returns it with every default filled in."""
    return json.loads(_core.resolve_config(to_json(cfg, "config")))


def to_json(value: Any, what: str) -> str:
    """`value` (a config or a workload) as JSON for the core. Something else than a dict is
    a TypeError; a value no config holds (a TOML date, a set, a path object) is a
    ConfigError naming its key."""
    if not isinstance(value, Mapping):
        raise TypeError(f"`{what}` must be a dict, not {type(value).__name__}")
    bad = _not_plain(value, "")
    if bad is not None:
        key, v = bad
        raise ConfigError(f"{what} key `{key}`: {v!r} ({type(v).__name__}) is not a config value; expected a "
                          "number, a string, a boolean, an array or a table")
    return json.dumps(value)


def _not_plain(value: Any, key: str) -> tuple[str, Any] | None:
    """The first (dotted key, value) in `value` that JSON cannot carry as it is, or None."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            sub = f"{key}.{k}" if key else str(k)
            found = (sub, k) if not isinstance(k, str) else _not_plain(v, sub)
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _not_plain(v, f"{key}[{i}]")
            if found is not None:
                return found
        return None
    return None if value is None or isinstance(value, (str, int, float, bool)) else (key, value)


def load_config(
    preset: str | None = None,
    file: str | os.PathLike | None = None,
    sets: Iterable[str] = (),
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Builds a resolved config from a preset or a file, overrides and `--set` items."""
    if preset is not None and file is not None:
        raise ConfigError("give a preset or a config file, not both")
    if file is not None:
        cfg = load_file(file)
    elif preset is not None:
        cfg = load_preset(preset)
    else:
        cfg = {}
    if overrides:
        cfg = merge(cfg, overrides)
    cfg = apply_sets(cfg, sets)
    return resolve(cfg)
