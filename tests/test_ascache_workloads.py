"""The video-distribution generator of seed 002's evaluation."""

import numpy as np
import pytest

from xlssd.reproduce import ascache_workloads as wl


def test_frames_lie_on_page_boundaries_and_the_videos_fit_the_disk():
    lay = wl.Layout()
    assert lay.frame_sectors == 297  # 152,064 bytes
    assert lay.frame_stride_sectors == 10 * 32  # ten 16 KiB pages
    assert lay.lba(1, 0) == 300 * 320 and lay.lba(0, 2) == 640
    assert lay.disk_bytes(wl.VIDEOS) <= 20 << 30


def test_each_client_streams_its_frames_in_order_at_the_frame_rate():
    s = wl.streams(3000, seed=5, clients=8)
    assert len(s["lba"]) == 3000
    assert np.all(np.diff(s["time_ns"]) >= 0) and s["time_ns"][0] == 0
    for c in range(8):
        mine = s["client"] == c
        t, f, v = s["time_ns"][mine], s["frame"][mine], s["video"][mine]
        assert np.allclose(np.diff(t), 1e9 / 30, atol=1)
        # Frames go 0, 1, 2, ... and a new video starts at frame 0.
        for a, b, va, vb in zip(f, f[1:], v, v[1:]):
            assert (b == a + 1 and va == vb) or (a == wl.FRAMES - 1 and b == 0)
    assert np.array_equal(s["lba"], (s["video"] * wl.FRAMES + s["frame"]) * 320)
    assert np.all(s["sectors"] == 297)
    # Deterministic.
    again = wl.streams(3000, seed=5, clients=8)
    assert all(np.array_equal(s[k], again[k]) for k in s)


def test_popular_videos_are_streamed_more():
    s = wl.streams(200_000, seed=1, clients=400, videos=50)
    starts = s["video"][s["frame"] == 0]
    counts = np.bincount(starts, minlength=50)
    ranked = np.sort(counts)[::-1]
    # Zipf with exponent 1: the most popular video about twice the second, ten times the tenth.
    assert ranked[0] > 1.5 * ranked[1] and ranked[0] > 5 * ranked[9]


def test_the_trace_is_written_as_reads(tmp_path):
    path = wl.write_trace(tmp_path / "v.trace", 100, seed=3, clients=4)
    lines = path.read_text().splitlines()
    assert len(lines) == 100
    t, dev, lba, size, op = lines[0].split()
    assert (t, dev, size, op) == ("0", "0", "297", "1")
    with pytest.raises(ValueError, match="requests"):
        wl.streams(0)
