"""A visual check: an 8-bit greyscale image stored on the device and compared by SSIM."""

from __future__ import annotations

import io

import numpy as np
from skimage import data as images
from skimage.metrics import structural_similarity

from xlssd.quality import codec

NAME = "camera"


def original() -> np.ndarray:
    """scikit-image's bundled 512x512 `camera` photograph, uint8."""
    return images.camera()


def stored(image: np.ndarray) -> bytes:
    return codec.encode(image, codec.PIXELS)


def read_back(data: bytes, shape: tuple[int, ...]) -> np.ndarray:
    return codec.decode(data, shape, codec.PIXELS)


def ssim(reference: np.ndarray, other: np.ndarray) -> float:
    """Structural similarity over the full 8-bit range (1.0: identical)."""
    return float(structural_similarity(reference, other, data_range=255))


def png(image: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(image).save(out, format="PNG")
    return out.getvalue()
