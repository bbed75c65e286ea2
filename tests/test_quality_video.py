"""The panning video of xlssd.quality.video: its frames, their bytes and per-frame SSIM."""

import numpy as np
import pytest

from xlssd.quality import video


def test_frames_pan_across_the_photograph():
    v = video.frames(5, step=4)
    assert v.shape == (5, 144, 176) and v.dtype == np.uint8
    img = video.source()
    # Frame i is the window at (4i, 4i).
    for i in range(5):
        assert np.array_equal(v[i], img[4 * i:4 * i + 144, 4 * i:4 * i + 176])
    # Consecutive frames overlap: frame 1 shifted back by 4 pixels is frame 0's interior.
    assert np.array_equal(v[1][:-4, :-4], v[0][4:, 4:])
    assert np.array_equal(video.frames(5), video.frames(5))


def test_the_window_bounces_at_the_edge():
    img = video.source()
    # Spans: 512 - 176 = 336 across, 512 - 144 = 368 down. A step of 376 goes 40 pixels past
    # the right edge and 8 past the bottom, and comes back as far.
    v = video.frames(2, step=376)
    assert np.array_equal(v[1], img[368 - 8:368 - 8 + 144, 336 - 40:336 - 40 + 176])


def test_bytes_round_trip_and_ssim_falls_with_bit_errors():
    v = video.frames(3)
    data = video.stored(v)
    assert len(data) == 3 * video.frame_bytes()
    back = video.read_back(data, 3)
    assert video.per_frame_ssim(v, back) == [1.0, 1.0, 1.0]
    rng = np.random.default_rng(1)
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8))
    scores = []
    for ber in (1e-4, 1e-2):
        flips = rng.random(bits.size) < ber
        noisy = np.packbits(bits ^ flips).tobytes()
        scores.append(np.mean(video.per_frame_ssim(v, video.read_back(noisy, 3))))
    assert 1.0 > scores[0] > scores[1] > 0.0
    with pytest.raises(ValueError, match="shapes differ"):
        video.per_frame_ssim(v, v[:2])
    with pytest.raises(ValueError, match="n >= 1"):
        video.frames(0)
