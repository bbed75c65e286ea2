"""Plain-text tables for terminals and logs: columns padded to their widest cell, numbers
right-aligned."""

from __future__ import annotations

from typing import Any, Sequence


def cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _numeric(text: str) -> bool:
    t = text.replace(",", "").replace("%", "").replace(" pp", "").lstrip("+-<>")
    try:
        float(t)
        return True
    except ValueError:
        return False


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[cell(v) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str], header: bool = False) -> str:
        parts = [v.rjust(w) if not header and _numeric(v) else v.ljust(w) for v, w in zip(values, widths)]
        return "  ".join(parts).rstrip()

    out = [line(headers, header=True), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)
