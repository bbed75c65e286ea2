"""Output quality: application data stored on the device, read back, and used."""

import json
import struct

import numpy as np
import pytest

from xlssd.quality import codec, evaluate, image, tasks
from xlssd.quality.defaults import AGED_APPROXIMATE
from xlssd.quality.device import round_trip

AGED = {"base": "tiny", **AGED_APPROXIMATE}
DECODED = {**AGED, "ecc": {"scheme": "ldpc", "skip_approximate": False}}
PRECISE = {**AGED, "physics": {**AGED["physics"], "program_mode": "precise"}}
# skimage's SSIM averages 7x7 windows over the image less a 3-pixel border.
SSIM_WINDOW = 7


@pytest.fixture(scope="module")
def aged():
    return evaluate(AGED, seed=1)


def rows(result):
    return {r["task"]: r for r in result["rows"]}


def samples_hit(dataset: str, returned: bytes) -> int:
    """Test samples with at least one byte changed: the only ones whose prediction can change."""
    x = tasks.split(dataset).x_test
    written = np.frombuffer(tasks.stored_test_features(dataset), np.uint8).reshape(len(x), -1)
    back = np.frombuffer(returned, np.uint8).reshape(len(x), -1)
    return int((written != back).any(axis=1).sum())


@pytest.mark.parametrize("config", ["tiny", DECODED, PRECISE], ids=["no-physics", "decoded", "precise"])
def test_error_free_device_returns_the_bytes_and_full_quality(config):
    data = tasks.stored_test_features("digits")
    back, report = round_trip(data, config, seed=3)
    assert back == data
    assert report["payload.pages_read"] == report["payload.pages"] == -(-len(data) // 4096)
    result = evaluate(config, seed=3)
    assert result["device"]["bits_flipped"] == result["device"]["pages_returned_with_errors"] == 0
    for r in result["rows"]:
        assert r["bits_flipped"] == 0
        assert r["relative"] == r["with_errors"] / r["error_free"] == 1.0, r["task"]
    assert rows(result)["image"]["with_errors"] == 1.0


def test_aged_approximate_data_comes_back_with_errors_and_slightly_lower_quality(aged):
    device = aged["device"]
    assert device["pages_read"] == device["pages"] == device["pages_returned_with_errors"]
    # All pages approximate at 10K P/E and 1,000 h: the approximate-page RBER, a few 1e-4
    # (below the 7.2e-4 of an approximate page between precise ones: approximate neighbours
    # disturb less).
    assert 1e-4 < device["rber"] < 1e-3
    # The digits are stored once, for the SVM and the MLP.
    assert device["bits_flipped"] == sum(r["bits_flipped"] for r in aged["rows"] if r["task"] != "MLP")
    by_task = rows(aged)
    for name in ("k-NN", "SVM", "MLP", "decision tree"):
        r = by_task[name]
        assert r["error_free"] > 0.85, name
        # At a few 1e-4 about 1% of float32 values take a flip, and most flips land in
        # low mantissa bits: every classifier keeps almost all of its accuracy ...
        assert 0.95 <= r["relative"] <= 1.05, name
    assert by_task["SVM"]["bits_flipped"] > 0 and by_task["decision tree"]["bits_flipped"] > 0
    # ... and errors did reach values the application must guard against.
    digits = by_task["SVM"]["guarded"]
    assert digits["with_errors"]["values_clipped"] > digits["error_free"]["values_clipped"]

    picture = by_task["image"]
    assert 0 < picture["bits_flipped"]
    # Each flip touches one pixel, so it changes at most the 7x7 windows around it, and a
    # window's SSIM is at least -1: the mean loses at most 2 x 49 x flips / windows.
    windows = (512 - SSIM_WINDOW + 1) ** 2
    floor = 1 - 2 * SSIM_WINDOW**2 * picture["bits_flipped"] / windows
    assert floor < picture["with_errors"] < 1
    assert picture["with_errors"] > 0.9


def test_only_samples_hit_by_errors_can_change_their_class(aged):
    from xlssd.quality.device import round_trip_many

    datasets = ["iris", "digits", "breast_cancer"]
    blobs = [tasks.stored_test_features(d) for d in datasets] + [image.stored(image.original())]
    stored, _ = round_trip_many(blobs, AGED, seed=1)
    for task in tasks.TASKS:
        s = stored[datasets.index(task.dataset)]
        hit = samples_hit(task.dataset, s.returned)
        r = rows(aged)[task.name]
        assert abs(r["with_errors"] - r["error_free"]) <= hit / len(tasks.split(task.dataset).y_test), task.name
        assert s.bits_flipped == r["bits_flipped"]


def test_same_seed_same_numbers_other_seed_other_errors(aged):
    again = evaluate(AGED, seed=1)
    for key in ("rows", "device"):
        assert json.dumps(again[key]) == json.dumps(aged[key])
    assert np.array_equal(again["images"]["returned"], aged["images"]["returned"])
    other = evaluate(AGED, seed=2)
    assert not np.array_equal(other["images"]["returned"], aged["images"]["returned"])


def test_codec_round_trip_is_exact():
    x = np.array([[5.1, -0.25, 1e-3, 3.0e38], [0.0, 16.0, 2.5, -7.75]], dtype=np.float32)
    data = codec.encode(x)
    assert len(data) == x.size * 4 and data[:4] == struct.pack("<f", np.float32(5.1))
    assert np.array_equal(codec.decode(data, x.shape), x)
    pixels = np.arange(256, dtype=np.uint8).reshape(16, 16)
    assert np.array_equal(codec.decode(codec.encode(pixels, codec.PIXELS), (16, 16), codec.PIXELS), pixels)
    with pytest.raises(ValueError, match="fewer than"):
        codec.decode(data[:-1], x.shape)


def flip(value: float, bit: int) -> float:
    word = struct.unpack("<I", struct.pack("<f", value))[0] ^ (1 << bit)
    return struct.unpack("<f", struct.pack("<I", word))[0]


def test_flipped_exponent_bits_are_read_as_stored_then_guarded():
    train = np.array([[0.0, 1.0, 2.0], [4.0, 3.0, 6.0]])
    guard = codec.Guard.fit(train)
    # Bit 30 is the top exponent bit: 1.0 becomes inf, 1.5 NaN, 0.5 about 1.7e38.
    stored = bytearray(codec.encode(np.array([[1.0, 1.5, 0.5]])))
    for value in range(3):
        stored[4 * value + 3] ^= 0x40
    read = codec.decode(bytes(stored), (1, 3))
    assert np.isposinf(read[0, 0]) and np.isnan(read[0, 1]) and read[0, 2] == flip(0.5, 30) > 1e38
    safe, nans, clipped = guard.apply(read)
    assert safe.tolist() == [[4.0, 2.0, 6.0]] and (nans, clipped) == (1, 2)
    # An error that stays inside the training range is what the application sees.
    inside = np.array([[flip(2.0, 22), 2.5, 3.0]], dtype=np.float32)
    safe, nans, clipped = guard.apply(inside)
    assert safe.tolist() == inside.astype(np.float64).tolist() and (nans, clipped) == (0, 0)


def test_cli_prints_the_table_and_writes_json_and_images(cli, tmp_path):
    out = tmp_path / "q.json"
    p = cli("quality", "--seed", "1", "--json", str(out), "--out", str(tmp_path / "img"))
    assert p.returncode == 0, p.stderr
    header, *lines = p.stdout.splitlines()
    assert header.split()[:3] == ["task", "dataset", "metric"]
    result = json.loads(out.read_text())
    assert [r["task"] for r in result["rows"]] == ["k-NN", "SVM", "MLP", "decision tree", "image"]
    assert result["device"]["bits_flipped"] > 0
    ssim_line = next(line for line in lines if line.startswith("image"))
    assert f"{rows(result)['image']['with_errors']:.4f}" in ssim_line
    from PIL import Image

    stored = np.asarray(Image.open(tmp_path / "img" / "camera-stored.png"))
    back = np.asarray(Image.open(tmp_path / "img" / "camera-read-back.png"))
    assert np.array_equal(stored, image.original())
    assert image.ssim(stored, back) == rows(result)["image"]["with_errors"]


def test_cli_names_a_bad_input_and_writes_nothing(cli, tmp_path):
    out = tmp_path / "q.json"
    p = cli("quality", "--preset", "nosuch", "--json", str(out))
    assert p.returncode == 2 and "nosuch" in p.stderr and "Traceback" not in p.stderr
    assert not out.exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = cli("quality", "--out", str(blocker), "--quiet")
    assert p.returncode == 2 and "--out" in p.stderr
