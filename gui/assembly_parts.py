"""The parts of an assembly-line lane's layout: size limits, the compaction steps
(`DENSITIES`), the value types a layout is made of, and text metrics (fonts, fitting a
text to its rectangle, a chip's size for the run's op numbers)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

#: Size limits in device-independent pixels.
FIGURE_MIN, FIGURE_MAX = 28.0, 84.0
CHIP_FONT_MIN = 8
SLOT_MIN, SLOT_MAX = 24.0, 40.0
CHIP_MIN, CHIP_MAX = 18.0, 32.0
#: Most worker figures drawn per station (the rest are counted), most chips per shelf,
#: most slots drawn (the rest are counted).
FIGURES = 6
SHELF_CHIPS = 8
MEMORY_SLOTS = 16
#: A slot is about this share of a figure; layouts prefer the roomiest density whose
#: figures are at least FIGURE_COMFORT, else the one with the largest figures.
SLOT_SHARE = 0.5
FIGURE_COMFORT = 44.0


@dataclass(frozen=True)
class Density:
    """One step of compaction."""

    name: str
    gap: float  # between columns, and between the stations and shared memory
    pad: float  # inside cards
    small_px: int
    bold_px: int
    captions_under_slots: bool  # heading above and "1 · loading" under each slot
    two_line_shelf_titles: bool  # "global memory" / "input", else "input"


DENSITIES = (
    Density("roomy", 14, 8, 11, 13, True, True),
    Density("compact", 8, 6, 10, 12, False, False),
    Density("tight", 4, 4, 10, 11, False, False),
)


@dataclass(frozen=True)
class PoolSpec:
    """What the layout of one pool's shelf needs (a pipeline shape's run): its slots, its
    heading's variants ("smem stages · 4 slots", "smem stages", …), its usage's widest
    variants, and the words a slot's caption may take under a slot and beside one ("mma",
    "waits mma", …)."""

    slots: int
    heading: tuple[str, ...]
    usage_widest: tuple[str, ...]
    captions: tuple[tuple[str, ...], tuple[str, ...]]
    # Beside the slots (compact layouts): a shorter heading before dropping the slots'
    # words (a shape's slots say what their ops do), else the longest heading first.
    words_first: bool = True


@dataclass(frozen=True)
class LaneSpec:
    """What a lane's layout needs to know about its Schedule (hashable: layouts are
    cached per spec and size)."""

    title: str
    unit_titles: tuple[tuple[str, ...], ...]  # per unit, its title variants, longest first
    workers: tuple[int, ...]
    slots: int  # slots the run has or used (0: no shared memory drawn)
    pipeline: bool  # ops travel: shelves, chips and shared memory are drawn
    status_widest: tuple[str, ...]  # per status variant, its widest text
    memory_heading: tuple[str, ...]  # e.g. "shared memory · 2 slots", "shared memory"
    usage_widest: tuple[str, ...]  # per usage variant ("2 of 2 in use"), its widest text
    digits: int = 1  # digits of the highest op number (chips are as wide as it needs)
    # A pipeline shape's run: one shelf per pool (then ``slots`` is 0: no book shelf).
    pools: tuple[PoolSpec, ...] = ()


@dataclass(frozen=True)
class WorkerCell:
    row: int  # timeline row of the worker
    figure: QRectF
    bar: QRectF
    label: QRectF


@dataclass(frozen=True)
class Station:
    card: QRectF
    title: QRectF
    title_text: str
    cells: tuple[WorkerCell, ...]
    more: QRectF | None  # where "+k more" goes
    more_count: int


@dataclass(frozen=True)
class Shelf:
    card: QRectF
    titles: tuple[tuple[QRectF, str], ...]
    count: QRectF
    spots: tuple[QPointF, ...]  # chip centres, rank 0 first


@dataclass(frozen=True)
class Memory:
    card: QRectF
    heading: QRectF  # roomy: the whole title line; else the heading's first line
    usage: QRectF | None  # beside the slots: the second line ("2/2 in use")
    boxes: tuple[QRectF, ...]  # one per slot drawn
    captions: tuple[QRectF, ...]  # under each box (roomy), or its number beside it
    words: tuple[QRectF, ...]  # beside each box: its state (compact, where room allows)
    more: QRectF | None  # "+N" for the slots not drawn
    hidden: int


@dataclass(frozen=True)
class LaneLayout:
    density: Density
    small: QFont
    bold: QFont
    title: QRectF
    title_text: str
    status: QRectF
    shelf_in: Shelf | None
    shelf_out: Shelf | None
    stations: tuple[Station, ...]
    memory: Memory | None
    figure: float  # the worker figures' size
    chip: float  # a chip's height
    chip_width: float  # a chip's width (wider than high for long op numbers)
    fits: bool  # False: below the minimum, laid out at the minimum size (scale it down)
    pools: tuple[Memory, ...] = ()  # a shape's run: one shelf per pool, side by side


def fonts(base: QFont, density: Density) -> tuple[QFont, QFont]:
    """(small, bold) fonts of ``density`` in ``base``'s family."""
    small = QFont(base)
    small.setPixelSize(density.small_px)
    small.setBold(False)
    bold = QFont(base)
    bold.setPixelSize(density.bold_px)
    bold.setBold(True)
    return small, bold


def fit_text(variants: tuple[str, ...] | list[str], font: QFont, width: float) -> str:
    """The first variant that fits ``width`` pixels in ``font``, else the last one elided
    (possibly to nothing)."""
    metrics = QFontMetricsF(font)
    for text in variants:
        if metrics.horizontalAdvance(text) <= width:
            return text
    return metrics.elidedText(variants[-1], Qt.TextElideMode.ElideRight, max(0.0, width))


def chip_font_px(height: float) -> int:
    """Pixel size of the number on a chip ``height`` pixels high."""
    return max(CHIP_FONT_MIN, min(14, int(height * 0.5)))


def chip_width(height: float, digits: int, base: QFont) -> float:
    """A chip as wide as the widest op number of ``digits`` digits needs (at least
    square)."""
    font = QFont(base)
    font.setPixelSize(chip_font_px(height))
    font.setBold(False)
    return float(even(max(height, math.ceil(text_width("8" * digits, font)) + 6)))


def even(value: float) -> int:
    """``value`` rounded up to an even number of pixels (so that a centred chip's edges
    fall on whole pixels)."""
    return 2 * math.ceil(value / 2)


def px(value: float) -> float:
    """``value`` rounded to a whole pixel (halves up: Python's round() rounds halves to even)."""
    return float(math.floor(value + 0.5))


def text_width(text: str, font: QFont) -> float:
    return QFontMetricsF(font).horizontalAdvance(text)


def line_height(font: QFont) -> float:
    return float(math.ceil(QFontMetricsF(font).height()) + 1)


def memory_fixed(density: Density, small: QFont) -> float:
    heading = line_height(small) if density.captions_under_slots else 0.0
    return 4 + heading + 4


def slot_row(density: Density, small: QFont, box: float) -> float:
    if density.captions_under_slots:
        return box + 2 + line_height(small)
    return max(box, 2 * line_height(small)) + 2  # the heading's two lines sit beside the first row
