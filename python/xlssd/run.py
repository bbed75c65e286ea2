"""Running a simulation from Python."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

from xlssd import _core
from xlssd.config import load_config, load_file, load_preset, preset_names, resolve, to_json, with_base
from xlssd.report import Report
from xlssd.workload import as_workload

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any


def _config_of(config: Any) -> dict[str, Any]:
    if isinstance(config, str) and config in preset_names():
        return resolve(load_preset(config))
    if isinstance(config, (str, os.PathLike)):
        return resolve(load_file(config))
    if isinstance(config, Mapping):
        return resolve(with_base(config))
    if config is None:
        return load_config()
    raise TypeError(f"simulate(): `config` must be a preset name, a path or a dict, not {type(config).__name__}")


def _check_arguments(check: Any, progress: Any, payload: Any, payload_lba: Any, after_h: Any) -> None:
    """Names the parameter of a wrong type, before anything runs."""
    def bad(name: str, expected: str, value: Any) -> TypeError:
        return TypeError(f"simulate(): `{name}` must be {expected}, not {type(value).__name__}")

    if not isinstance(check, bool):
        raise bad("check", "a bool", check)
    if progress is not None and not callable(progress):
        raise bad("progress", "a callable progress(requests_done, simulated_ns) or None", progress)
    if payload is not None and not isinstance(payload, (bytes, bytearray, memoryview)):
        raise bad("payload", "bytes (or bytearray, memoryview) or None", payload)
    if isinstance(payload_lba, bool) or not isinstance(payload_lba, int):
        raise bad("payload_lba", "an int (a sector address)", payload_lba)
    if after_h is not None and (isinstance(after_h, bool) or not isinstance(after_h, (int, float))):
        raise bad("payload_final_read_after_h", "a number of hours or None", after_h)


def simulate(
    config: Any = None,
    workload: Any = None,
    *,
    check: bool = False,
    progress: Callable[[int, int], Any] | None = None,
    payload: bytes | None = None,
    payload_lba: int = 0,
    payload_final_read_after_h: float | None = None,
) -> Report:
    """Runs one simulation and returns its report.

    `config` is a preset name, a config file path, or a dict (over the defaults, or over
    the preset its `base` key names).
    `workload` is a fio-like spec string, a dict of `[workload]` fields, an
    :class:`xlssd.Trace`, or None for the config's own `[workload]` section.
    `progress(requests_done, simulated_ns)` is called now and then; returning False stops
    the run with KeyboardInterrupt, and an exception it raises stops the run and is raised
    as itself. If `progress` also has a `setup(stage, done, total)` method, it hears the
    device's set-up before the first request (stage "preconditioning": logical pages placed
    out of those to place); returning False or raising stops there too. With or without
    `progress`, Ctrl-C stops the run within a fraction of a second (in the main thread,
    where Python runs signal handlers).
    `payload` (bytes) is carried on the device from sector `payload_lba` (payload mode); the
    report's `payload` attribute then holds the bytes the host would read back: as written
    where the decoder corrected them, with bit errors where it did not.
    `payload_final_read_after_h` (hours) reads the whole payload once more after the run,
    that long after its end and outside simulated time (the report's
    `payload.final_read.*` keys); the bytes returned are then those of that read.
    """
    _check_arguments(check, progress, payload, payload_lba, payload_final_read_after_h)
    cfg = _config_of(config)
    wl = as_workload(workload, cfg)
    if payload is None:
        return Report.from_json(_core.run(json.dumps(cfg), to_json(wl, "workload"), check, progress))
    if payload_lba < 0:
        raise _core.ConfigError(f"payload_lba: value {payload_lba} is out of range: expected a sector >= 0")
    text, returned = _core.run_with_payload(json.dumps(cfg), to_json(wl, "workload"), check, progress, payload_lba, bytes(payload),
                                            payload_final_read_after_h)
    report = Report.from_json(text)
    report.payload = returned[: len(payload)]
    return report
