"""Every export format and option, declared once: the CLI's flags and help, the export
dialog's lists, the Warps tab's file dialog and the export itself all read this table.

A format is its suffix, its name in messages ("WebP"), its name in a file dialog ("Animated
WebP"), its line in the export dialog's list, whether it is a raster image, a vector figure
or a trace, and what it can hold (an animation, the assembly line, a transparent
background). The limits beside (widths, scales, frame rates, frames, sides) are the ones
every caller checks against. No Qt here: the command line reads this module before it
decides whether to start Qt at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["raster", "vector", "trace"]


@dataclass(frozen=True)
class ExportFormat:
    """One export format (see the module doc)."""

    suffix: str
    #: In messages: "this WebP would be …", "drawing the PDF".
    name: str
    #: A file dialog's name for the files ("PDF document (*.pdf)").
    file_type: str
    #: The export dialog's line for it in its format list.
    choice: str
    kind: Kind
    #: A moving cursor over the Gantt and the assembly line, frame by frame.
    animation: bool = False
    #: Can draw the assembly line above the Gantt (an animation always does).
    assembly: bool = False
    #: Can leave the background out.
    transparent: bool = False
    #: The longest side, in pixels, a raster format holds (0: not a raster).
    max_side: int = 0
    #: The Warps tab exports to it (a warp run has no assembly line to animate).
    warps: bool = False

    @property
    def raster(self) -> bool:
        return self.kind == "raster"

    @property
    def vector(self) -> bool:
        return self.kind == "vector"

    @property
    def figure(self) -> bool:
        """Draws a figure (every format but the trace)."""
        return self.kind != "trace"

    @property
    def shown_as(self) -> str:
        """The format in the export dialog's summary line ("animated GIF", "PDF")."""
        return f"animated {self.name}" if self.animation else self.name

    @property
    def file_filter(self) -> str:
        """A file dialog's filter for it: "PNG image (*.png)"."""
        return f"{self.file_type} (*{self.suffix})"


FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat(
        ".png",
        "PNG",
        "PNG image",
        "PNG image",
        "raster",
        assembly=True,
        transparent=True,
        max_side=2**31 - 1,
        warps=True,
    ),
    ExportFormat(
        ".svg",
        "SVG",
        "SVG image",
        "SVG (vector, text stays text)",
        "vector",
        # SVG keeps shapes and text; the assembly line draws pictures of its workers.
        transparent=True,
        warps=True,
    ),
    ExportFormat(
        ".pdf",
        "PDF",
        "PDF document",
        "PDF (vector, fonts embedded)",
        "vector",
        assembly=True,
        transparent=True,
        warps=True,
    ),
    # GIF stores 16-bit sides; WebP's encoder stops at 16,383 px.
    ExportFormat(
        ".gif",
        "GIF",
        "Animated GIF",
        "Animated GIF",
        "raster",
        animation=True,
        assembly=True,
        max_side=65_535,
    ),
    ExportFormat(
        ".webp",
        "WebP",
        "Animated WebP",
        "Animated WebP",
        "raster",
        animation=True,
        assembly=True,
        max_side=16_383,
    ),
    ExportFormat(".json", "Chrome trace", "Chrome trace JSON", "Chrome trace JSON", "trace"),
)
BY_SUFFIX: dict[str, ExportFormat] = {f.suffix: f for f in FORMATS}
SUFFIXES = tuple(f.suffix for f in FORMATS)
RASTER = tuple(f.suffix for f in FORMATS if f.raster)
VECTOR = tuple(f.suffix for f in FORMATS if f.vector)
ANIMATIONS = tuple(f.suffix for f in FORMATS if f.animation)
WARPS_FORMATS = tuple(f for f in FORMATS if f.warps)
WARPS_SUFFIXES = tuple(f.suffix for f in WARPS_FORMATS)

#: Physical widths a figure is laid out at, in inches; vector formats default to a page.
SIZES: dict[str, float] = {"column": 3.5, "page": 7.0, "slide": 13.33}
DEFAULT_SIZE = "page"
#: Rows per worker, or per op (the textbook staircase); and the figure's themes.
ROWS = ("workers", "ops")
THEMES = ("light", "dark")

#: Image width in pixels: the default (a PNG given no size), and its limits; and of scale.
DEFAULT_WIDTH = 1600
MIN_WIDTH, MAX_WIDTH = 200, 10_000
MIN_SCALE, MAX_SCALE = 1.0, 4.0
#: Animation frame rates, the default, and the most frames an animation may have.
MIN_FPS, MAX_FPS = 1, 50
DEFAULT_FPS = 10
MAX_FRAMES = 300
#: The most bytes of pixels an export may take in memory (a QImage holds under 2 GiB; an
#: animation keeps every frame until it is encoded).
MAX_IMAGE_BYTES = 2**31 - 1


def format_of(path: str | Path) -> ExportFormat | None:
    """The format ``path``'s suffix names (any case), or None."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def file_filters(formats: Iterable[ExportFormat]) -> str:
    """A file dialog's filters for ``formats``: "PNG image (*.png);;SVG image (*.svg)"."""
    return ";;".join(f.file_filter for f in formats)


def words_list(words: Sequence[str], last: str = "and") -> str:
    """ "PNG, SVG and PDF"; ".png, .svg or .pdf" with ``last="or"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def names(predicate: str) -> str:
    """The names of the formats with ``predicate`` (an `ExportFormat` flag) in a list:
    ``names("transparent")`` is "PNG, SVG and PDF"."""
    return words_list([f.name for f in FORMATS if getattr(f, predicate)])
