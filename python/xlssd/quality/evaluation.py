"""Every quality metric of one device state, from one simulation."""

from __future__ import annotations

from typing import Any, Sequence

from xlssd.quality import image, tasks
from xlssd.quality.device import Stored, round_trip_many, stored_in_run

#: What the applications store: the test features of each task's dataset, in the order the
#: tasks first name them, then the image.
DATASETS = tuple(dict.fromkeys(t.dataset for t in tasks.TASKS))


def application_data() -> list[bytes]:
    """The bytes the applications store, in the order of DATASETS and then the image."""
    return [tasks.stored_test_features(d) for d in DATASETS] + [image.stored(image.original())]


def score(stored: Sequence[Stored]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Output quality of every task and of the image on what came back (`stored`, in the
    order of `application_data`): the rows, and the image as stored and as read back."""
    by_dataset = dict(zip(DATASETS, stored))
    rows = []
    for task in tasks.TASKS:
        s = by_dataset[task.dataset]
        row = tasks.evaluate(task, s.written, s.returned)
        rows.append({**row, "bits": s.bits, "bits_flipped": s.bits_flipped})
    picture = image.original()
    seen = stored[-1]
    returned_picture = image.read_back(seen.returned, picture.shape)
    similarity = image.ssim(picture, returned_picture)
    rows.append({
        "task": "image", "dataset": image.NAME, "metric": "SSIM",
        "error_free": 1.0, "with_errors": similarity, "relative": similarity,
        "bits": seen.bits, "bits_flipped": seen.bits_flipped,
    })
    return rows, {"original": picture, "returned": returned_picture}


def evaluate(config: Any, seed: int = 1) -> dict[str, Any]:
    """Stores the test features of every task's dataset and the `camera` image on the device
    `config` describes (a preset name, a config file or a dict), reads each page back once,
    and measures the applications' output quality on what came back.

    Returns a dict: `rows` (one per task and one for SSIM: task, dataset, metric,
    error_free, with_errors, relative, bits, bits_flipped), `device` (the run's payload
    counters and the measured raw bit error rate), `seed`, the resolved `config`, and
    `images` (the image as stored and as read back, uint8 arrays: the one entry that is not
    JSON).
    """
    stored, report = round_trip_many(application_data(), config, seed=seed)
    rows, images = score(stored)
    bits = sum(s.bits for s in stored)
    flipped = sum(s.bits_flipped for s in stored)
    return {
        "seed": seed,
        "config": report["config"],
        "rows": rows,
        "device": {
            "pages": report["payload.pages"],
            "pages_read": report["payload.pages_read"],
            "pages_returned_with_errors": report["payload.pages_returned_with_errors"],
            # The device counts flips in whole pages, padding included; the rest of this
            # dict counts the data's bits only.
            "bits_flipped_in_pages": report["payload.bits_flipped"],
            "bits": bits,
            "bits_flipped": flipped,
            "rber": flipped / bits,
        },
        "images": images,
    }


def row_key(row: dict[str, Any]) -> str:
    """A row's name as a report key: `svm_digits`, `image_camera`."""
    name = f"{row['task']}_{row['dataset']}".lower()
    return "".join(c if c.isalnum() else "_" for c in name)


def in_run(config: Any, workload: Any, *, lba: int, read_after_h: float) -> tuple[Any, dict[str, float]]:
    """The applications' data carried through a run of `workload` from sector `lba` (where
    the run's writes place it) and read back `read_after_h` hours after the run: the report
    and the quality columns to add to it, `quality.mean` (the mean relative quality) and
    `quality.<task>_<dataset>` for each row."""
    stored, report = stored_in_run(application_data(), config, workload, lba=lba, read_after_h=read_after_h)
    rows, _ = score(stored)
    columns = {f"quality.{row_key(r)}": float(r["relative"]) for r in rows}
    columns["quality.mean"] = sum(float(r["relative"]) for r in rows) / len(rows)
    columns["quality.bits"] = sum(s.bits for s in stored)
    columns["quality.bits_flipped"] = sum(s.bits_flipped for s in stored)
    return report, columns
