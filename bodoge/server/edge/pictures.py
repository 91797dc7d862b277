"""Uploaded pictures: checked, then redrawn, before anything stores or serves them.

The server keeps sets of uploaded pictures (``POST /api/decks``, :mod:`bodoge.server.edge.assets`)
for a game to show by number: a game's table options name a set, the browser shows its
pictures; nothing here knows a game.  Uploads are never served as sent.  Each file is
checked and redrawn:

1. at most :data:`MAX_FILE_BYTES` (8 MB), and its first bytes must be those of
   a PNG, a JPEG or a WebP file, matching the file name's extension if one is
   given: SVG (which can carry scripts), GIF, HTML and anything else is refused;
2. nothing may follow the image's end (a PNG's ``IEND``, a JPEG's last
   ``EOI``, a WebP's RIFF length), so a picture that is also a ZIP, a PDF or a
   page (a polyglot) is refused;
3. Pillow reads the header with only that format allowed, refuses more than
   :data:`MAX_PIXELS` (20 megapixels) before decoding (:func:`measure_upload` reads
   every header of an upload first, and refuses an upload whose pictures would decode to
   more pixels than its budget, ``too_many_pixels``), then decodes the image, scaled
   down to fit :data:`MAX_SIDE` (768 px) as it goes (a JPEG decodes at a fraction of
   its size; the others are reduced at once), so that it is whole in memory once;
4. the picture is turned upright (EXIF orientation) and written afresh as WebP with no
   metadata (no EXIF, GPS position, ICC profile or comments survive).

A set holds 1 to :data:`MAX_PICTURES` (120) pictures.  Every refusal is a
:class:`PictureError` with a precise subclass and ``code``; the codes are those
``docs/protocol.md`` gives for ``POST /api/decks``.

>>> import io
>>> from PIL import Image
>>> buffer = io.BytesIO()
>>> Image.new("RGB", (2000, 1000), "orange").save(buffer, "PNG")
>>> picture = clean_picture(buffer.getvalue(), "sunset.png")
>>> picture.media_type, picture.width, picture.height
('image/webp', 768, 384)
>>> clean_picture(b"<svg xmlns='http://www.w3.org/2000/svg'/>", "cat.svg")
Traceback (most recent call last):
...
bodoge.server.edge.pictures.NotAnImage: cat.svg is not a PNG, JPEG or WebP image
"""

from __future__ import annotations

import hashlib
import io
import struct
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

# A set's id lives below the edge (the housekeeping and the tables need it too); still
# importable from here, beside the checks of the pictures a set holds.
from bodoge.server.services.decks import SET_ID, named_sets

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PICTURES",
    "MAX_PIXELS",
    "MAX_SIDE",
    "SET_ID",
    "EmptyUpload",
    "ImageTooLarge",
    "NotAnImage",
    "Picture",
    "PictureError",
    "TooManyPictures",
    "TooManyPixels",
    "UnreadableImage",
    "WrongExtension",
    "clean_picture",
    "clean_pictures",
    "measure_picture",
    "measure_upload",
    "named_sets",
]

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_PIXELS = 20_000_000
MAX_PICTURES = 120
#: The longest side of a stored picture, in pixels: a card's size on the largest screens.
MAX_SIDE = 768
WEBP_QUALITY = 85


class PictureError(ValueError):
    """An uploaded picture, or set of pictures, that the server will not keep.

    The codes use the protocol's word for an uploaded set, a (custom) deck.
    """

    code = "bad_custom_deck"


class NotAnImage(PictureError):
    """Not a PNG, JPEG or WebP file (an SVG, a GIF, a page, garbage, or a polyglot)."""

    code = "not_an_image"


class WrongExtension(PictureError):
    """The file name says one format and the bytes another (``cat.png`` holding a JPEG)."""

    code = "wrong_extension"


class UnreadableImage(PictureError):
    """Looks like an image but does not decode (truncated, corrupt)."""

    code = "unreadable_image"


class ImageTooLarge(PictureError):
    """More than 8 MB, or more than 20 megapixels."""

    code = "image_too_large"


class TooManyPictures(PictureError):
    """More than 120 pictures in one upload."""

    code = "too_many_images"


class TooManyPixels(PictureError):
    """An upload whose pictures together would decode to more pixels than one may."""

    code = "too_many_pixels"


class EmptyUpload(PictureError):
    """An upload without a single picture."""

    code = "empty_deck"


@dataclass(frozen=True)
class Picture:
    """A cleaned picture: WebP bytes, safe to store and serve as they are."""

    data: bytes
    width: int
    height: int
    media_type: str = "image/webp"

    @property
    def sha256(self) -> str:
        """A content hash, e.g. for a file name or an ETag."""
        return hashlib.sha256(self.data).hexdigest()


# Pillow's format name for each accepted kind, and the extensions that name it.
_EXTENSIONS = {
    "PNG": (".png",),
    "JPEG": (".jpg", ".jpeg", ".jpe", ".jfif"),
    "WEBP": (".webp",),
}
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _sniff(data: bytes) -> str | None:
    """The format the bytes start as, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _ends_cleanly(data: bytes, kind: str) -> bool:
    """True if the file stops where its format says the image stops."""
    if kind == "PNG":
        return data.endswith(_PNG_END)
    if kind == "WEBP":
        (size,) = struct.unpack("<I", data[4:8])
        # RIFF chunks are padded to an even length.
        return len(data) in (size + 8, size + 9)
    # JPEG: the last end-of-image marker must end the file (encoders may pad
    # with a few zero bytes).
    return data.rstrip(b"\x00").endswith(b"\xff\xd9")


def _check_extension(filename: str | None, label: str, kind: str) -> None:
    if filename is not None and "." in filename:
        extension = "." + filename.rsplit(".", 1)[1].lower()
        if extension not in _EXTENSIONS[kind]:
            raise WrongExtension(f"{label} is named {extension} but holds a {kind} image")


def clean_picture(data: bytes, filename: str | None = None) -> Picture:
    """Check one uploaded picture and redraw it as a WebP of at most :data:`MAX_SIDE`.

    ``filename`` (as sent by the browser) is only used to catch a file whose
    extension disagrees with its content and to word the errors.
    """
    label = filename or "the picture"
    if not isinstance(data, bytes | bytearray | memoryview):
        raise NotAnImage(f"{label} is not file content")
    data = bytes(data)
    if len(data) > MAX_FILE_BYTES:
        raise ImageTooLarge(
            f"{label} is {len(data) / 1e6:.1f} MB; at most {MAX_FILE_BYTES // 2**20} MB per picture"
        )
    kind = _sniff(data)
    if kind is None:
        raise NotAnImage(f"{label} is not a PNG, JPEG or WebP image")
    _check_extension(filename, label, kind)
    if not _ends_cleanly(data, kind):
        raise NotAnImage(f"{label} has something else hidden after the {kind} image")

    from PIL import Image, ImageOps

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[kind]) as image:
                if image.format != kind:
                    raise NotAnImage(f"{label} is not a {kind} image")
                _check_size(image.size, label)
                # Shrunk before anything else, so that the whole picture is in memory once,
                # in its own mode, and only the card-sized copy is converted and turned: a
                # JPEG decodes at a fraction of its size (draft), others are reduced at once.
                small: Image.Image
                if image.mode in _RESIZABLE:
                    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS, 2.0)
                    small = image
                else:  # palette and odd modes: to RGB(A) first, as resizing needs
                    image.load()
                    small = image.convert(_full_mode(image))
                    small.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS, 2.0)
                    small.info = image.info
                # Turned upright once small (a turn keeps it within MAX_SIDE).
                upright = ImageOps.exif_transpose(small)
    except PictureError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageTooLarge(f"{label} has too many pixels") from exc
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise UnreadableImage(f"{label} could not be read as a {kind} image: {exc}") from exc

    picture = upright.convert(_full_mode(upright))
    # A fresh image carries no info: nothing of the upload's metadata survives.
    fresh = Image.new(picture.mode, picture.size)
    fresh.paste(picture)
    buffer = io.BytesIO()
    fresh.save(buffer, "WEBP", quality=WEBP_QUALITY, method=4)
    return Picture(buffer.getvalue(), fresh.width, fresh.height)


#: Modes Pillow resizes well as they are (a palette would be resized by its indexes).
_RESIZABLE = frozenset({"L", "LA", "RGB", "RGBA", "CMYK", "YCbCr"})


def _full_mode(image: Any) -> str:
    """RGBA for a picture with any transparency, RGB otherwise."""
    alpha = image.mode in ("RGBA", "LA", "PA", "La", "RGBa") or (
        image.mode == "P" and "transparency" in image.info
    )
    return "RGBA" if alpha else "RGB"


def _check_size(size: tuple[int, int], label: str) -> int:
    width, height = size
    if width * height > MAX_PIXELS:
        raise ImageTooLarge(
            f"{label} is {width}×{height} pixels; at most {MAX_PIXELS // 1_000_000} megapixels"
        )
    return width * height


def measure_picture(file: BinaryIO, filename: str | None = None) -> int:
    """The pixels one uploaded picture will decode to, read from its header alone.

    Nothing is decoded: Pillow's lazy open reads the header (a PNG's ``IHDR``, a JPEG's
    frame header) so that an upload is budgeted, and refused, before any decoding; a
    picture's other checks come with its decoding (:func:`clean_picture`). Refuses a
    file too large, of another format, or of more than :data:`MAX_PIXELS`.

    >>> buffer = io.BytesIO()
    >>> from PIL import Image
    >>> Image.new("L", (4470, 4470)).save(buffer, "PNG")
    >>> len(buffer.getvalue()) < 30_000, measure_picture(buffer, "grey.png")
    (True, 19980900)
    """
    label = filename or "the picture"
    size = file.seek(0, io.SEEK_END)
    if size > MAX_FILE_BYTES:
        raise ImageTooLarge(
            f"{label} is {size / 1e6:.1f} MB; at most {MAX_FILE_BYTES // 2**20} MB per picture"
        )
    file.seek(0)
    kind = _sniff(file.read(16))
    if kind is None:
        raise NotAnImage(f"{label} is not a PNG, JPEG or WebP image")
    _check_extension(filename, label, kind)
    file.seek(0)
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(file, formats=[kind]) as image:
                return _check_size(image.size, label)
    except PictureError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageTooLarge(f"{label} has too many pixels") from exc
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise UnreadableImage(f"{label} could not be read as a {kind} image: {exc}") from exc
    finally:
        file.seek(0)


def measure_upload(files: Sequence[tuple[str | None, BinaryIO]], budget: int) -> int:
    """The pixels a whole upload decodes to, refused beyond ``budget`` (0: no limit) or
    beyond :data:`MAX_PICTURES` pictures, before any of them is decoded."""
    if len(files) > MAX_PICTURES:
        raise TooManyPictures(f"a custom deck holds at most {MAX_PICTURES} pictures")
    if not files:
        raise EmptyUpload("a custom deck needs at least one picture")
    total = 0
    for i, (name, file) in enumerate(files):
        total += measure_picture(file, name or f"picture {i + 1}")
    if budget and total > budget:
        raise TooManyPixels(
            f"these pictures hold {total / 1e6:.0f} megapixels; one upload may hold"
            f" {budget / 1e6:.0f} (shrink them, or send fewer)"
        )
    return total


def clean_pictures(
    uploads: Iterable[bytes | tuple[str | None, bytes]],
) -> tuple[Picture, ...]:
    """Check and redraw a whole upload: bytes, or ``(filename, bytes)`` pairs.

    Picture ``n`` of the set is upload ``n`` (from 0), in upload order; one bad
    picture refuses them all.
    """
    pictures: list[Picture] = []
    for i, upload in enumerate(uploads):
        if i >= MAX_PICTURES:
            raise TooManyPictures(f"a custom deck holds at most {MAX_PICTURES} pictures")
        name, data = upload if isinstance(upload, tuple) else (None, upload)
        pictures.append(clean_picture(data, name or f"picture {i + 1}"))
    if not pictures:
        raise EmptyUpload("a custom deck needs at least one picture")
    return tuple(pictures)
