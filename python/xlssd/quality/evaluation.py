"""Every quality metric of one device state, from one simulation."""

from __future__ import annotations

from typing import Any

from xlssd.quality import codec, image, tasks
from xlssd.quality.device import round_trip_many


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
    datasets = list(dict.fromkeys(t.dataset for t in tasks.TASKS))
    picture = image.original()
    blobs = [tasks.stored_test_features(d) for d in datasets] + [image.stored(picture)]
    stored, report = round_trip_many(blobs, config, seed=seed)
    by_dataset = dict(zip(datasets, stored))

    rows = []
    for task in tasks.TASKS:
        s = by_dataset[task.dataset]
        row = tasks.evaluate(task, s.written, s.returned)
        rows.append({**row, "bits": s.bits, "bits_flipped": s.bits_flipped})
    seen = stored[-1]
    returned_picture = image.read_back(seen.returned, picture.shape)
    similarity = image.ssim(picture, returned_picture)
    rows.append({
        "task": "image", "dataset": image.NAME, "metric": "SSIM",
        "error_free": 1.0, "with_errors": similarity, "relative": similarity,
        "bits": seen.bits, "bits_flipped": seen.bits_flipped,
    })

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
        "images": {"original": picture, "returned": returned_picture},
    }
