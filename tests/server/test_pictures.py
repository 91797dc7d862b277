"""Uploaded pictures are checked for real and redrawn; anything else is refused."""

from __future__ import annotations

import io
import re
import struct
import zipfile

import pytest
from PIL import Image

from bodoge.server.edge import pictures
from bodoge.server.edge.pictures import (
    MAX_FILE_BYTES,
    MAX_PICTURES,
    MAX_SIDE,
    EmptyUpload,
    ImageTooLarge,
    NotAnImage,
    PictureError,
    TooManyPictures,
    UnreadableImage,
    WrongExtension,
    clean_picture,
    clean_pictures,
)


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def picture(size: tuple[int, int] = (64, 48), mode: str = "RGB") -> Image.Image:
    image = Image.new(mode, size, "white" if mode != "RGBA" else (0, 0, 0, 0))
    # Some content, so that decoding and scaling are real work.
    for x in range(0, size[0], 7):
        for y in range(0, size[1], 5):
            image.putpixel((x, y), (200, 30, 30) if mode == "RGB" else (200, 30, 30, 255))
    return image


def decoded(result: pictures.Picture) -> Image.Image:
    image = Image.open(io.BytesIO(result.data))
    assert image.format == "WEBP"
    return image


@pytest.mark.parametrize(("fmt", "name"), [("PNG", "a.png"), ("JPEG", "b.JPG"), ("WEBP", "c.webp")])
def test_png_jpeg_and_webp_are_redrawn_as_webp(fmt: str, name: str) -> None:
    result = clean_picture(encode(picture(), fmt), name)
    image = decoded(result)
    assert (result.width, result.height) == image.size == (64, 48)
    assert result.media_type == "image/webp"
    assert len(result.sha256) == 64


def test_large_pictures_are_scaled_down_to_card_size() -> None:
    result = clean_picture(encode(picture((3000, 1500)), "PNG"), "big.png")
    assert (result.width, result.height) == (MAX_SIDE, MAX_SIDE // 2)


def test_transparency_is_kept() -> None:
    result = clean_picture(encode(picture(mode="RGBA"), "PNG"))
    assert decoded(result).mode == "RGBA"


def test_metadata_is_stripped_and_orientation_applied() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: the camera was turned; show rotated 90°
    exif[0x010F] = "SpyCam"  # camera maker
    exif[0x8825] = {1: "N", 2: (51.0, 30.0, 0.0)}  # a GPS position
    upload = encode(picture((80, 40)), "JPEG", exif=exif, comment=b"secret")
    assert b"SpyCam" in upload
    result = clean_picture(upload, "photo.jpeg")
    assert b"SpyCam" not in result.data and b"secret" not in result.data
    image = decoded(result)
    assert image.size == (40, 80)
    assert not image.getexif()
    assert "icc_profile" not in image.info and "exif" not in image.info


def test_png_text_chunks_do_not_survive() -> None:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "<script>alert(1)</script>")
    upload = encode(picture(), "PNG", pnginfo=info)
    assert b"<script>" in upload
    assert b"<script>" not in clean_picture(upload, "x.png").data


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "a.svg"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "a.png"),
        (b"<html><body>hi</body></html>", "page.png"),
        (b"\x00\x01garbage\xff\xfe" * 50, "noise.png"),
        (b"", "empty.png"),
        (b"GIF89a" + b"\x00" * 40, "anim.gif"),
    ],
)
def test_anything_but_png_jpeg_or_webp_is_refused(data: bytes, name: str) -> None:
    with pytest.raises(NotAnImage):
        clean_picture(data, name)


def test_a_real_gif_is_refused() -> None:
    with pytest.raises(NotAnImage):
        clean_picture(encode(picture(), "GIF"), "cat.gif")


def test_refusals_are_picture_errors_with_codes() -> None:
    with pytest.raises(PictureError) as caught:
        clean_picture(b"<svg/>", "x.svg")
    assert caught.value.code == "not_an_image"


@pytest.mark.parametrize(
    ("fmt", "name"), [("JPEG", "cat.png"), ("PNG", "cat.jpg"), ("PNG", "cat.svg")]
)
def test_an_extension_that_lies_is_refused(fmt: str, name: str) -> None:
    with pytest.raises(WrongExtension, match=re.escape(name)):
        clean_picture(encode(picture(), fmt), name)


def test_a_png_that_is_also_a_zip_is_refused() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("payload.html", "<script>alert(1)</script>")
    polyglot = encode(picture(), "PNG") + archive.getvalue()
    with pytest.raises(NotAnImage, match="hidden"):
        clean_picture(polyglot, "innocent.png")


def test_a_jpeg_with_a_page_after_it_is_refused() -> None:
    polyglot = encode(picture(), "JPEG") + b"<html><script>alert(1)</script></html>"
    with pytest.raises(NotAnImage):
        clean_picture(polyglot, "photo.jpg")


def test_a_webp_with_trailing_data_is_refused() -> None:
    with pytest.raises(NotAnImage):
        clean_picture(encode(picture(), "WEBP") + b"PK\x03\x04trailer", "x.webp")


def test_a_truncated_picture_is_refused() -> None:
    data = encode(picture((200, 200)), "PNG")
    # Cut the pixel data but keep a proper ending, so only decoding can tell.
    broken = data[: len(data) // 2] + data[-12:]
    with pytest.raises(UnreadableImage):
        clean_picture(broken, "cut.png")


def test_a_webp_header_with_garbage_inside_is_refused() -> None:
    body = b"WEBPVP8 " + struct.pack("<I", 20) + b"\x00" * 20
    data = b"RIFF" + struct.pack("<I", len(body)) + body
    with pytest.raises(UnreadableImage):
        clean_picture(data, "x.webp")


def test_files_over_eight_megabytes_are_refused() -> None:
    with pytest.raises(ImageTooLarge):
        clean_picture(b"\x89PNG\r\n\x1a\n" + b"\x00" * MAX_FILE_BYTES, "huge.png")


def test_pictures_over_twenty_megapixels_are_refused_before_decoding() -> None:
    # 5000 × 4100 = 20.5 megapixels, tiny as a one-colour PNG.
    data = encode(Image.new("1", (5000, 4100)), "PNG")
    assert len(data) < MAX_FILE_BYTES
    with pytest.raises(ImageTooLarge, match="megapixels"):
        clean_picture(data, "wide.png")


def test_an_upload_is_one_to_a_hundred_and_twenty_pictures() -> None:
    small = encode(picture((8, 8)), "PNG")
    assert len(clean_pictures([("one.png", small), small])) == 2
    assert len(clean_pictures([small] * MAX_PICTURES)) == MAX_PICTURES
    with pytest.raises(TooManyPictures):
        clean_pictures([small] * (MAX_PICTURES + 1))
    with pytest.raises(EmptyUpload):
        clean_pictures([])


def test_one_bad_picture_refuses_the_upload_and_names_it() -> None:
    small = encode(picture((8, 8)), "PNG")
    with pytest.raises(NotAnImage, match=r"evil\.svg"):
        clean_pictures([small, ("evil.svg", b"<svg/>")])
    with pytest.raises(NotAnImage, match="picture 2"):
        clean_pictures([small, b"not an image"])
