"""Output quality of applications whose data the device stores approximately.

Real data (scikit-learn's bundled datasets, a scikit-image photograph) is stored on the
simulated device in payload mode, read back with the bit errors the device leaves, and
used: classifiers are scored on it and the image is compared by SSIM. See docs/quality.md.

`xlssd.quality.evaluate(config, seed=1)` runs all of it.
"""

__all__ = ["evaluate"]


def __getattr__(name: str):
    # scikit-learn takes about a second to import: load it only when the evaluation runs,
    # not whenever the `xlssd` command builds its parser.
    if name == "evaluate":
        from xlssd.quality.evaluation import evaluate

        return evaluate
    raise AttributeError(f"module 'xlssd.quality' has no attribute {name!r}")
