"""The animation back end: frames (Qt images of the figure at successive times) encoded as
an animated GIF or WebP with Pillow.

The GIF shares one palette, taken from the first frame (it shows every op colour already:
far faster than quantizing each frame, and no palette flicker). The WebP is lossless, in
full colour, and smaller than the GIF (`WEBP_OPTIONS` says how and why).
"""

from __future__ import annotations

import io

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


def encode_animation(frames: list[Image.Image], suffix: str, fps: int) -> bytes:
    """``frames`` as an endlessly looping animation, ``fps`` frames a second, in the
    format ``suffix`` names (".gif" or ".webp")."""
    stream = io.BytesIO()
    duration = round(1000 / fps)
    if suffix == ".webp":
        frames[0].save(
            stream,
            format="WEBP",
            save_all=True,
            append_images=frames[1:],
            duration=duration,
            loop=0,
            **WEBP_OPTIONS,
        )
        return stream.getvalue()
    first = frames[0].quantize(colors=GIF_COLOURS, method=Image.Quantize.MEDIANCUT)
    rest = [f.quantize(palette=first, dither=Image.Dither.NONE) for f in frames[1:]]
    first.save(
        stream,
        format="GIF",
        save_all=True,
        append_images=rest,
        duration=duration,
        loop=0,
        disposal=1,
    )
    return stream.getvalue()
