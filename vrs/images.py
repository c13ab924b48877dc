"""Image bytes and arrays: the one place the reasoning code decodes and encodes images.

Why one module: the service decodes uploads, the client encodes arrays for the wire,
`codeplan ask` reads image files and `codeplan eval vqa` converts dataset images. Each used to do
it its own way (different error types, format checks and size checks). Here every decoder gives
the same thing a `Reasoner` takes, an (H, W, 3) uint8 RGB array, and every bad input is a
ValueError naming the problem, which the caller turns into its own error (HTTP 400/413, CLI exit 2).
PIL is imported inside the functions so that importing this module stays cheap for the CLI.
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

IMAGE_FORMATS = ("PNG", "JPEG")


class ImageTooLarge(ValueError):
    """The image has more pixels than the caller accepts (the service answers 413)."""


def to_rgb_array(image: PilImage) -> np.ndarray:
    """(H, W, 3) uint8 RGB copy of a PIL image, whatever its mode (L, RGBA, P, ...)."""
    return np.array(image.convert("RGB"), dtype=np.uint8)


def decode_image_bytes(data: bytes, *, max_pixels: int | None = None,
                       formats: tuple[str, ...] | None = IMAGE_FORMATS) -> np.ndarray:
    """(H, W, 3) uint8 RGB from the bytes of an image file in one of `formats` (None: any format
    PIL reads). ImageTooLarge when it has more than `max_pixels` pixels, checked from the header
    before the pixels are decompressed (PIL's decompression-bomb limit always applies); a
    ValueError naming the problem when the bytes are not such an image."""
    from PIL import Image, UnidentifiedImageError

    kind = " or ".join(formats) if formats else "image"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=formats) as img:
                width, height = img.size
                if max_pixels is not None and width * height > max_pixels:
                    raise ImageTooLarge(f"image is {width}x{height} pixels; the limit is "
                                        f"{max_pixels} pixels")
                return to_rgb_array(img)
    except ImageTooLarge:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
        raise ImageTooLarge(f"image is too large: {e}") from None
    except UnidentifiedImageError:
        raise ValueError(f"image bytes are not {'a' if formats else 'an'} {kind} file") \
            from None
    except Exception as e:  # truncated or corrupt data fails inside the decoder, in any type
        raise ValueError(f"image is not a decodable {kind} file "
                         f"({type(e).__name__}: {e})") from None


def decode_base64(text: str) -> bytes:
    """The bytes of a base64 string, or of a data: URL; ValueError if invalid or empty."""
    if text.startswith("data:"):
        text = text.partition(",")[2]
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"image is not valid base64: {e}") from None
    if not data:
        raise ValueError("image is empty")
    return data


def encode_png_base64(image: np.ndarray) -> str:
    """Base64 text of `image` as a PNG (lossless, so a decoder sees the exact pixels):
    (H, W, 3), (H, W, 4) or (H, W) uint8; ValueError for any other array."""
    from PIL import Image

    arr = np.asarray(image)
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (3, 4))):
        raise ValueError(f"image must be (H, W, 3) uint8, got {arr.shape} {arr.dtype}")
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(arr)).save(buffer, format="PNG", compress_level=1)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
