"""Coverage-guided fuzzing of the Python targets in `targets.py` with atheris
(docs/testing.md): `make fuzz FUZZ_TARGET=sweep_spec`, or
`.venv/bin/python fuzz/python/fuzz.py TARGET CORPUS_DIR [libFuzzer flags]`."""

import sys

import atheris

with atheris.instrument_imports(include=["xlssd", "tomllib", "targets"]):
    import targets

TARGETS = ("sweep_spec", "py_config")


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz.py TARGET [CORPUS_DIR] [libFuzzer flags]; targets: {', '.join(TARGETS)}")
    entry = getattr(targets, sys.argv.pop(1))
    atheris.Setup(sys.argv, entry)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
