"""`vrs.images`: the one image decoder/encoder of the service, the client and the CLIs."""

from __future__ import annotations

import io

import numpy as np
import pytest
from fastapi import HTTPException
from PIL import Image

from runtime.cli.ask import load_image
from vrs import client, images, service
from vrs.images import (
    ImageTooLarge,
    decode_base64,
    decode_image_bytes,
    encode_png_base64,
    to_rgb_array,
)


def file_bytes(image: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format=fmt)
    return buf.getvalue()


def pixels(height: int = 6, width: int = 9) -> np.ndarray:
    return np.arange(height * width * 3, dtype=np.uint8).reshape(height, width, 3)


def test_png_round_trips_exactly_through_base64():
    rgb = pixels()
    decoded = decode_image_bytes(decode_base64(encode_png_base64(rgb)))
    assert decoded.dtype == np.uint8 and np.array_equal(decoded, rgb)


@pytest.mark.parametrize("mode", ["L", "RGBA", "P"])
def test_every_mode_decodes_to_h_w_3_uint8(mode):
    image = Image.new(mode, (9, 6))
    for decoded in (decode_image_bytes(file_bytes(image, "PNG")), to_rgb_array(image)):
        assert decoded.shape == (6, 9, 3) and decoded.dtype == np.uint8


@pytest.mark.parametrize(("data", "message"), [
    (b"hello, not an image", "not a PNG or JPEG file"),
    (file_bytes(Image.new("RGB", (4, 4)), "GIF"), "not a PNG or JPEG file"),
    (file_bytes(Image.new("RGB", (40, 40)), "PNG")[:60], "not a decodable PNG or JPEG"),
])
def test_non_images_are_a_value_error_naming_the_problem(data, message):
    with pytest.raises(ValueError, match=message):
        decode_image_bytes(data)


def test_formats_none_reads_any_pil_format():
    gif = file_bytes(Image.new("RGB", (5, 3)), "GIF")
    assert decode_image_bytes(gif, formats=None).shape == (3, 5, 3)
    with pytest.raises(ValueError, match="not an image file"):
        decode_image_bytes(b"junk", formats=None)


def test_too_many_pixels_is_image_too_large_before_decoding():
    png = file_bytes(Image.new("RGB", (30, 20)), "PNG")
    with pytest.raises(ImageTooLarge, match="30x20 pixels; the limit is 599"):
        decode_image_bytes(png, max_pixels=599)
    assert decode_image_bytes(png, max_pixels=600).shape == (20, 30, 3)


@pytest.mark.parametrize(("text", "message"), [("%%% no %%%", "not valid base64"),
                                               ("", "empty")])
def test_bad_base64_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        decode_base64(text)
    assert decode_base64("data:image/png;base64,aGk=") == b"hi"


def test_callers_share_the_helpers_and_keep_their_error_types(tmp_path):
    assert client.encode_png_base64 is images.encode_png_base64
    with pytest.raises(HTTPException) as bad:
        service.decode_image(b"junk")
    with pytest.raises(HTTPException) as big:
        service.decode_image(file_bytes(Image.new("RGB", (30, 20)), "PNG"), max_pixels=10)
    assert (bad.value.status_code, big.value.status_code) == (400, 413)
    (tmp_path / "x.png").write_bytes(b"junk")
    with pytest.raises(ValueError, match=r"x\.png is not a readable image"):
        load_image(tmp_path / "x.png")
