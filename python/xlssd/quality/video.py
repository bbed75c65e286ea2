"""A short greyscale video for error-tolerant streaming: frames built from a bundled image,
stored frame after frame, and compared by SSIM frame by frame.

The sequence is made, not bundled: a window of QCIF size (176 x 144, the classic size of
video test sequences) pans across scikit-image's 512 x 512 `astronaut` photograph (in
greyscale), `STEP` pixels right and down per frame, which gives neighbouring frames the
overlap a slow camera pan has. It is deterministic: the same arguments, the same bytes.
"""

from __future__ import annotations

import numpy as np
from skimage import data as images
from skimage.color import rgb2gray

from xlssd.quality import codec
from xlssd.quality.image import ssim

WIDTH, HEIGHT = 176, 144
#: Pixels the window moves right and down per frame.
STEP = 4
FRAMES = 60


def source() -> np.ndarray:
    """The bundled photograph the frames are cut from, 8-bit greyscale."""
    return np.round(rgb2gray(images.astronaut()) * 255).astype(np.uint8)


def frames(n: int = FRAMES, step: int = STEP) -> np.ndarray:
    """`n` frames (n x 144 x 176, uint8) of the window panning across the photograph; it
    bounces back at the photograph's edge, so any `n` fits."""
    if n < 1 or step < 0:
        raise ValueError(f"frames(): need n >= 1 and step >= 0, got n={n}, step={step}")
    img = source()
    span_x, span_y = img.shape[1] - WIDTH, img.shape[0] - HEIGHT

    def bounce(pos: int, span: int) -> int:
        if span == 0:
            return 0
        pos %= 2 * span
        return pos if pos <= span else 2 * span - pos

    out = np.empty((n, HEIGHT, WIDTH), dtype=np.uint8)
    for i in range(n):
        x, y = bounce(i * step, span_x), bounce(i * step, span_y)
        out[i] = img[y:y + HEIGHT, x:x + WIDTH]
    return out


def stored(video: np.ndarray) -> bytes:
    """The bytes the application stores: the frames one after another, row-major."""
    return codec.encode(video, codec.PIXELS)


def read_back(data: bytes, count: int) -> np.ndarray:
    return codec.decode(data, (count, HEIGHT, WIDTH), codec.PIXELS)


def frame_bytes() -> int:
    return WIDTH * HEIGHT


def per_frame_ssim(reference: np.ndarray, other: np.ndarray) -> list[float]:
    """SSIM of every frame of `other` against the same frame of `reference`."""
    if reference.shape != other.shape:
        raise ValueError(f"per_frame_ssim(): shapes differ, {reference.shape} and {other.shape}")
    return [ssim(a, b) for a, b in zip(reference, other)]
