"""The bad-input corpus stays large: at least 100 distinct bad inputs over all its files."""

import importlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_corpus_holds_at_least_100_distinct_bad_inputs():
    ids: list[str] = []
    for path in sorted(HERE.glob("test_bad_inputs_*.py")):
        if path.name == Path(__file__).name:
            continue
        module = importlib.import_module(path.stem)
        cases = [c for name in dir(module) if name.isupper() and name.endswith("CASES")
                 for c in getattr(module, name)]
        ids += [f"{path.stem}:{c.id}" for c in cases]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 100, f"{len(ids)} bad inputs in the corpus"
