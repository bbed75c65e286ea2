"""The bad-input corpus: cases that must each end in a clear error.

A case runs `xlssd ARGS` in a fresh folder holding the files it names, and passes when the
command exits with the expected code (2, a user error, unless the case says otherwise),
standard error matches the expected message (which names what is wrong and where: the
key, the file and line, the argument), no traceback is printed, and the folder is left as
it was: no file added, none changed or removed. An API case calls the Python API and
expects an exception of a given type whose message matches.

Corpus files (`test_bad_inputs_*.py`) list their cases and hand them to `run_case` /
`run_api_case`; `ALL_CASES` counts them across files (the corpus must stay at 100 or more).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest


#: Put before a message's pattern: the message shows an escape and never the raw byte.
NO_ESC = r"(?s)\A(?!.*\x1b)(?!.*\x07)"


@dataclass(frozen=True)
class Bad:
    """A command that must fail cleanly. `{dir}` in an argument is the case's folder."""

    id: str
    args: tuple[str, ...]
    message: str
    code: int = 2
    files: dict[str, str | bytes] = field(default_factory=dict)
    stdin: bytes = b""
    timeout: float = 120.0
    # Runs in the case's folder before the command (make a FIFO, a symlink, ...).
    prepare: Callable[[Path], None] | None = None


@dataclass(frozen=True)
class BadApi:
    """A Python API call that must raise `error` with a message matching `message`."""

    id: str
    call: Callable[[Path], Any]
    error: type[BaseException]
    message: str


def _snapshot(folder: Path) -> dict[str, tuple[str, int, bytes]]:
    """Every entry under `folder`: its kind, size and (for small regular files) content."""
    seen: dict[str, tuple[str, int, bytes]] = {}
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            p = Path(root) / name
            rel = str(p.relative_to(folder))
            st = p.lstat()
            if p.is_symlink():
                seen[rel] = ("link", 0, os.readlink(p).encode())
            elif p.is_dir():
                seen[rel] = ("dir", 0, b"")
            elif p.is_file():
                data = p.read_bytes() if st.st_size <= 1 << 20 else b""
                seen[rel] = ("file", st.st_size, data)
            else:
                seen[rel] = ("special", 0, b"")
    return seen


def _make_files(folder: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def run_case(case: Bad, folder: Path) -> subprocess.CompletedProcess:
    _make_files(folder, case.files)
    if case.prepare is not None:
        case.prepare(folder)
    before = _snapshot(folder)
    args = [a.replace("{dir}", str(folder)) for a in case.args]
    p = subprocess.run(
        [sys.executable, "-m", "xlssd", *args],
        input=case.stdin,
        capture_output=True,
        cwd=folder,
        timeout=case.timeout,
    )
    err = p.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, f"{case.id}: traceback\n{err}"
    assert p.returncode == case.code, f"{case.id}: exit {p.returncode}, expected {case.code}\n{err}"
    assert re.search(case.message, err), f"{case.id}: message does not match {case.message!r}\n{err}"
    assert _snapshot(folder) == before, f"{case.id}: the command changed its folder"
    return p


def run_api_case(case: BadApi, folder: Path) -> None:
    before = _snapshot(folder)
    with pytest.raises(case.error) as info:
        case.call(folder)
    assert re.search(case.message, str(info.value)), f"{case.id}: {info.value!s} does not match {case.message!r}"
    assert _snapshot(folder) == before, f"{case.id}: the call changed its folder"


def params(cases: list[Bad] | list[BadApi]) -> list[Any]:
    """pytest parameters named by the cases' ids, which must be unique."""
    ids = [c.id for c in cases]
    duplicated = {i for i in ids if ids.count(i) > 1}
    assert not duplicated, f"duplicate case ids: {sorted(duplicated)}"
    return [pytest.param(c, id=c.id) for c in cases]


def spec_case(id: str, text: str, message: str) -> Bad:
    """`xlssd sweep` of a spec file `s.toml` holding `text`."""
    return Bad(id, ("sweep", "{dir}/s.toml", "--out", "{dir}/out", "--quiet"), message, files={"s.toml": text})


def corpus_tests(cases: list[Bad], api_cases: list[BadApi]) -> tuple[Callable, Callable]:
    """A corpus file's two tests, one run per case; the file binds them to names starting
    with `test_` for pytest to find:
    `test_bad_input, test_bad_api_call = corpus_tests(CASES, API_CASES)`."""

    @pytest.mark.parametrize("case", params(cases))
    def test_bad_input(case: Bad, tmp_path: Path) -> None:
        run_case(case, tmp_path)

    @pytest.mark.parametrize("case", params(api_cases))
    def test_bad_api_call(case: BadApi, tmp_path: Path) -> None:
        run_api_case(case, tmp_path)

    return test_bad_input, test_bad_api_call
