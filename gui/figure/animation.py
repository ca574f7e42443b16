"""The animation back end: frames (Qt images of the figure at successive times) encoded as
an animated GIF or WebP with Pillow.

The GIF shares one palette, taken from the first frame (it shows every op colour already:
far faster than quantizing each frame, and no palette flicker). The WebP is lossless, in
full colour, and smaller than the GIF (`WEBP_OPTIONS` says how and why).

Frames are made as the encoder asks for them, never all held in full colour: a GIF's
encoder keeps each frame with its palette (a byte a pixel), a WebP's none (`_Following`).
Holding every frame in RGB first took 0.9 GB for a GIF of the book example at 1,600 px.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from PIL import Image
from PySide6.QtGui import QImage

#: Animated WebP: lossless (flat colours and sharp text: smaller than lossy, which also
#: blurs the text) and one key frame. Each later frame is encoded as the rectangle that
#: changed since the one before (the cursor and the assembly line), its unchanged pixels
#: transparent. Pillow's default puts a key frame, the whole image encoded afresh, every
#: 9-17 frames: that made the WebP larger than the GIF and twice as slow. Effort: method 1
#: at quality 50 is as small as method 4 in about half the time (book and two-load-units
#: at 1600 px: 354 KB and 704 KB against GIFs of 556 KB and 955 KB); method 0 is
#: pathological here (megabytes). A viewer seeks by decoding from the start, which
#: animations of at most a few hundred frames afford.
WEBP_OPTIONS: dict[str, object] = {
    "lossless": True,
    "quality": 50,
    "method": 1,
    "kmin": 0,
    "kmax": 0,  # no key frame after the first
}
GIF_COLOURS = 128


def frame_of(image: QImage) -> Image.Image:
    """``image`` as an RGB Pillow image (a copy: the QImage may be reused)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    return Image.frombuffer(
        "RGB",
        (rgb.width(), rgb.height()),
        bytes(rgb.constBits()),
        "raw",
        "RGB",
        rgb.bytesPerLine(),
        1,
    )


def encode_animation(frames: Iterator[Image.Image], count: int, suffix: str, fps: int) -> bytes:
    """The ``count`` RGB ``frames`` (made one at a time, as the encoder asks) as an endlessly
    looping animation, ``fps`` frames a second, in the format ``suffix`` names (".gif" or
    ".webp")."""
    stream = io.BytesIO()
    duration = round(1000 / fps)
    first = next(frames)
    if suffix == ".webp":
        rest = [_Following.of(frames, count - 1, first.size)] if count > 1 else []
        first.save(
            stream,
            format="WEBP",
            save_all=True,
            append_images=rest,
            duration=duration,
            loop=0,
            **WEBP_OPTIONS,
        )
        return stream.getvalue()
    # The first frame with its palette, which every later frame takes.
    opening = first.quantize(colors=GIF_COLOURS, method=Image.Quantize.MEDIANCUT)
    del first
    # (Pillow's GIF writer takes the frames it appends from any iterable, in turn.)
    indexed = (f.quantize(palette=opening, dither=Image.Dither.NONE) for f in frames)
    opening.save(
        stream,
        format="GIF",
        save_all=True,
        append_images=indexed,
        duration=duration,
        loop=0,
        disposal=1,
    )
    return stream.getvalue()


class _Following(Image.Image):
    """The frames after the first as one multi-frame image, the way Pillow's file handlers
    present one (`seek`, `tell`, `n_frames`): each is pasted into this one RGB image when
    the encoder seeks to it. Pillow's WebP writer makes a list of the images it appends
    before it encodes any; a list of frames held them all."""

    _frames: Iterator[Image.Image]
    _count: int
    _at: int

    @classmethod
    def of(cls, frames: Iterator[Image.Image], count: int, size: tuple[int, int]) -> _Following:
        image = Image.new("RGB", size)
        image.__class__ = cls  # a real image (its pixels, mode, size), read frame by frame
        assert isinstance(image, cls)
        image._frames, image._count, image._at = frames, count, -1
        return image

    @property
    def n_frames(self) -> int:
        return self._count

    def tell(self) -> int:
        return self._at

    def seek(self, frame: int) -> None:
        if frame == self._at:
            return
        if frame != self._at + 1 or frame >= self._count:
            raise EOFError(f"frame {frame}: the frames are made in turn, {self._count} of them")
        self.paste(next(self._frames))
        self._at = frame
