"""Coverage-guided fuzzing of the Python targets in `targets.py` with atheris
(docs/testing.md). Each target has its own script, `fuzz_TARGET.py`, which calls `main`:
libFuzzer starts the script again for `-merge` and `-fork`, with its flags but without any
other argument, so the script itself must name the target."""

import sys

import atheris

with atheris.instrument_imports(include=["xlssd", "tomllib", "targets"]):
    import targets


def main(target: str) -> None:
    """Fuzzes `targets.<target>`: `.venv/bin/python fuzz/python/fuzz_TARGET.py CORPUS_DIR
    [libFuzzer flags]`, or `make fuzz FUZZ_TARGET=TARGET`."""
    atheris.Setup(sys.argv, getattr(targets, target))
    atheris.Fuzz()
