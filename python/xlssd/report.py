"""The report of a run: the core's JSON, with dotted-key access."""

from __future__ import annotations

import json
from collections.abc import Iterator

TYPE_CHECKING = False  # annotations only: typing stays unloaded (about 3 ms of a start)
if TYPE_CHECKING:
    from typing import Any

WALL_CLOCK_KEYS = ("sim.setup_s", "sim.wall_s", "sim.requests_per_s", "sim.events_per_s")


class Report:
    """A run's report. `report["host.read.latency_us.p99"]` reads a dotted key; `data` is the
    whole nested dict; `json()` is the text the CLI writes."""

    def __init__(self, data: dict[str, Any]):
        self.data = data
        #: Payload mode: the bytes the host would read back (see `xlssd.simulate`).
        self.payload: bytes | None = None

    @classmethod
    def from_json(cls, text: str) -> "Report":
        return cls(json.loads(text))

    def __getitem__(self, key: str) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(key)
            node = node[part]
        return node

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: str) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def flat(self) -> Iterator[tuple[str, Any]]:
        """(dotted key, value) for every scalar, in report order."""

        def walk(prefix: str, node: Any) -> Iterator[tuple[str, Any]]:
            if isinstance(node, dict):
                for k, v in node.items():
                    yield from walk(f"{prefix}.{k}" if prefix else k, v)
            elif (name := _named_list(node)) is not None:
                # `ftl.relocations` is a list of one object per reason, `ftl.placement.per_handle`
                # one per handle; their figures are wanted as columns
                # (`ftl.relocations.read_reclaim.busy_ms`, `...per_handle.1.waf`), not as text.
                for item in node:
                    yield from walk(f"{prefix}.{item[name]}", {k: v for k, v in item.items() if k != name})
            else:
                yield prefix, node

        return walk("", self.data)

    def without_wall_clock(self) -> "Report":
        """A copy with the wall-clock fields zeroed: identical runs then give identical JSON."""
        data = json.loads(json.dumps(self.data))
        for key in WALL_CLOCK_KEYS:
            section, field = key.split(".")
            data[section][field] = 0.0
        return Report(data)

    def json(self) -> str:
        return json.dumps(self.data, indent=2) + "\n"

    def __repr__(self) -> str:
        return f"Report(requests={self.get('sim.requests')}, simulated_ns={self.get('sim.simulated_ns')})"


_MISSING = object()


def _named_list(node: Any) -> str | None:
    """The naming field of a non-empty list of objects each named by a distinct `reason`
    (a string) or `handle` (an integer), else None."""
    if not isinstance(node, list) or not node:
        return None
    for name, kind in (("reason", str), ("handle", int)):
        if all(isinstance(x, dict) and isinstance(x.get(name), kind) for x in node):
            if len({x[name] for x in node}) == len(node):
                return name
    return None
