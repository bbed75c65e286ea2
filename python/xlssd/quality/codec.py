"""Arrays as the bytes an application stores, and back.

Storage format: the array's elements in row-major (C) order, each in a fixed-width
little-endian type, with no header. The shape and type are the application's own
knowledge (it knows what it wrote), so nothing that describes the data is exposed to bit
errors; only the values are. Feature tables are stored as float32 (`FEATURES`), images as
uint8 (`PIXELS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FEATURES = np.dtype("<f4")
PIXELS = np.dtype("u1")


def encode(array: np.ndarray, dtype: np.dtype = FEATURES) -> bytes:
    """The bytes of `array` stored as `dtype`, row-major."""
    return np.ascontiguousarray(array, dtype=dtype).tobytes()


def decode(data: bytes, shape: tuple[int, ...], dtype: np.dtype = FEATURES) -> np.ndarray:
    """The array an application reads back from `data`: every value as stored, including the
    inf, NaN and huge values a flipped float exponent bit makes."""
    count = int(np.prod(shape))
    if len(data) < count * dtype.itemsize:
        raise ValueError(f"{len(data)} bytes hold fewer than {count} values of {dtype}")
    return np.frombuffer(data, dtype=dtype, count=count).reshape(shape).copy()


@dataclass(frozen=True)
class Guard:
    """The range check an application puts between storage and its model.

    scikit-learn refuses inf and NaN, and a flipped exponent bit can turn 5.1 into 3e38, a
    value no trained model has seen. An application reading floats it cannot fully trust
    checks them against the range it knows, that of its error-free training data: a value
    outside a feature's [min, max] (including +-inf) is clipped to it, and a NaN, which has no
    side, becomes the feature's training mean. Errors that stay inside the range pass
    unchanged, so the check hides no plausible-looking error, only the impossible ones.
    """

    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray

    @classmethod
    def fit(cls, train: np.ndarray) -> "Guard":
        train = np.asarray(train, dtype=np.float64)
        return cls(train.min(axis=0), train.max(axis=0), train.mean(axis=0))

    def apply(self, x: np.ndarray) -> tuple[np.ndarray, int, int]:
        """`x` made safe for the model, with the counts of NaNs replaced and values clipped."""
        # A flipped exponent bit can make a signalling NaN, which warns when widened; it is
        # replaced below like any NaN.
        with np.errstate(invalid="ignore"):
            x = np.asarray(x, dtype=np.float64)
        nan = np.isnan(x)
        outside = ~nan & ((x < self.low) | (x > self.high))
        safe = np.where(nan, self.mean, np.clip(x, self.low, self.high))
        return safe, int(nan.sum()), int(outside.sum())
