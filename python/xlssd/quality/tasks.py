"""The classification tasks whose test data is stored approximately.

Each task trains its model on error-free training data, then classifies the test split
twice: as stored and read back without errors (the baseline), and as read back from the
device. Only the test features go through the device, as float32 (see `codec`); the labels
and the trained model stay precise. Splits and models use fixed random states, so a task
gives the same numbers every time.

The datasets ship with scikit-learn. The two the ApproxFTL paper used besides these,
sensorlog and pendigits, do not; `digits` (8x8 handwritten digits) stands in for pendigits
(pen-written digits), and `breast_cancer` (30 continuous measurements per sample) for
sensorlog (continuous sensor readings).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Callable

import numpy as np
from sklearn import datasets
from sklearn.base import ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from xlssd.quality import codec

TEST_SIZE = 0.3
RANDOM_STATE = 0

LOADERS: dict[str, Callable] = {
    "iris": datasets.load_iris,
    "digits": datasets.load_digits,
    "breast_cancer": datasets.load_breast_cancer,
}


@dataclass(frozen=True)
class Split:
    x_train: np.ndarray
    x_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray


@cache
def split(dataset: str) -> Split:
    """The dataset's stratified train/test split, the same every time."""
    x, y = LOADERS[dataset](return_X_y=True)
    parts = train_test_split(x, y, test_size=TEST_SIZE, random_state=RANDOM_STATE, stratify=y)
    return Split(*parts)


@dataclass(frozen=True)
class Task:
    name: str
    dataset: str
    model: Callable[[], ClassifierMixin]


TASKS = (
    Task("k-NN", "iris", lambda: KNeighborsClassifier(n_neighbors=5)),
    Task("SVM", "digits", lambda: SVC(gamma=0.001, random_state=RANDOM_STATE)),
    Task("MLP", "digits", lambda: make_pipeline(
        StandardScaler(),
        MLPClassifier(hidden_layer_sizes=(64,), max_iter=600, random_state=RANDOM_STATE),
    )),
    Task("decision tree", "breast_cancer", lambda: DecisionTreeClassifier(random_state=RANDOM_STATE)),
)


@cache
def trained(task: Task) -> ClassifierMixin:
    s = split(task.dataset)
    # One BLAS thread: on matrices this small, threads only contend (the MLP trains several
    # times slower with two), and one thread sums in the same order on every machine.
    with threadpool_limits(1):
        return task.model().fit(s.x_train, s.y_train)


def stored_test_features(dataset: str) -> bytes:
    """The bytes the application stores: its test features."""
    return codec.encode(split(dataset).x_test)


@lru_cache(maxsize=16)
def _scored(task: Task, data: bytes) -> tuple[float, int, int]:
    """The accuracy of `task` on test features read back as `data`, with the NaNs the
    guard replaced and the values it clipped. Kept for a few recent reads: every point of a
    sweep scores the same error-free read, and a read that met no error is that one again."""
    s = split(task.dataset)
    x, nans, clipped = codec.Guard.fit(s.x_train).apply(codec.decode(data, s.x_test.shape))
    with threadpool_limits(1):
        return float(trained(task).score(x, s.y_test)), nans, clipped


def evaluate(task: Task, clean: bytes, returned: bytes) -> dict:
    """Accuracy of `task` on its test features as read back error-free (`clean`) and from the
    device (`returned`), and their ratio: the relative accuracy."""
    accuracy, guarded = {}, {}
    for which, data in (("error_free", clean), ("with_errors", returned)):
        accuracy[which], nans, clipped = _scored(task, data)
        guarded[which] = {"nans_replaced": nans, "values_clipped": clipped}
    return {
        "task": task.name,
        "dataset": task.dataset,
        "metric": "accuracy",
        **accuracy,
        "relative": accuracy["with_errors"] / accuracy["error_free"],
        "values": int(split(task.dataset).x_test.size),
        # Error-free test values can lie outside the training range too: the guard treats
        # both reads alike, so the two counts show what the errors added.
        "guarded": guarded,
    }
