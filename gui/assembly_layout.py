"""Where every part of one assembly-line lane sits, from a laptop to 4K.

Figures, chips and slots never shrink below their minimum sizes. When a lane gets small the
layout compacts instead, one step at a time (`DENSITIES`): smaller gaps and fonts, one-line
captions, the shared-memory heading beside the slots and slot numbers beside each slot
instead of captions under them, fewer figures drawn (the rest counted), slots in two rows or
the last ones counted. Every text has its own rectangle and no two overlap; a text is chosen
from shorter variants (or elided) to fit its rectangle. Below `lane_minimum` the lane is laid
out at its minimum size and the painter scales it down as a whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

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
    return float(_even(max(height, math.ceil(_width("8" * digits, font)) + 6)))


def _even(value: float) -> int:
    """``value`` rounded up to an even number of pixels (so that a centred chip's edges
    fall on whole pixels)."""
    return 2 * math.ceil(value / 2)


def _px(value: float) -> float:
    """``value`` rounded to a whole pixel (halves up: Python's round() rounds halves to even)."""
    return float(math.floor(value + 0.5))


def _width(text: str, font: QFont) -> float:
    return QFontMetricsF(font).horizontalAdvance(text)


def _line(font: QFont) -> float:
    return float(math.ceil(QFontMetricsF(font).height()) + 1)


# -- the lane -----------------------------------------------------------------------------


def layout_lane(rect: QRectF, spec: LaneSpec, base: QFont) -> LaneLayout:
    """The roomiest layout of ``spec`` that fits ``rect``; if none does, the tightest one
    at the lane's minimum size from ``rect``'s corner (``fits`` False)."""
    return _cached_layout(
        _px(rect.left()), _px(rect.top()), rect.width(), rect.height(), spec, base
    )


@lru_cache(maxsize=64)
def _cached_layout(
    left: float, top: float, width: float, height: float, spec: LaneSpec, base: QFont
) -> LaneLayout:
    rect = QRectF(left, top, width, height)
    best: LaneLayout | None = None
    for density in DENSITIES:
        lane = _layout(rect, spec, base, density)
        if lane is None:
            continue
        if lane.figure >= FIGURE_COMFORT:
            return lane
        if best is None or lane.figure > best.figure + 4:
            best = lane
    if best is not None:
        return best
    min_w, min_h = lane_minimum(spec, base)
    floor = QRectF(left, top, max(width, min_w), max(height, min_h))
    lane = _layout(floor, spec, base, DENSITIES[-1])
    if lane is None:  # cannot happen: the minimum is searched with this very function
        raise AssertionError(f"no layout at the lane minimum {min_w}×{min_h}")
    return replace(lane, fits=False)


@lru_cache(maxsize=64)
def lane_minimum(spec: LaneSpec, base: QFont) -> tuple[int, int]:
    """The smallest (width, height) in which the tightest layout of ``spec`` fits."""
    tight = DENSITIES[-1]

    def fits(width: float, height: float) -> bool:
        return _layout(QRectF(0, 0, width, height), spec, base, tight) is not None

    def smallest(ok: object) -> int:
        lo, hi = 1, 4096
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):  # type: ignore[operator]
                hi = mid
            else:
                lo = mid + 1
        return lo

    width = smallest(lambda w: fits(w, 4096))
    height = smallest(lambda h: fits(width, h))
    return width, height


def _layout(rect: QRectF, spec: LaneSpec, base: QFont, density: Density) -> LaneLayout | None:
    small, bold = fonts(base, density)
    header_h = _line(bold) + 4
    header = _header(rect, header_h - 4, spec, bold)
    if header is None:
        return None
    title, status, title_text = header
    body = QRectF(rect.left(), rect.top() + header_h, rect.width(), rect.height() - header_h)
    columns = _columns(body, spec, density, small, base)
    if columns is None:
        return None
    shelf_in_x, station_x, shelf_out_x = columns
    by_width = min(
        _figure_width_limit(w, k, density)
        for (_, w), k in zip(station_x, spec.workers, strict=True)
    )
    free = body.height() - _station_fixed(small, bold)
    has_memory = spec.pipeline and spec.slots > 0
    span_left = station_x[0][0]
    span = QRectF(span_left, 0, station_x[-1][0] + station_x[-1][1] - span_left, 0)
    plan = None
    if has_memory:
        free -= density.gap + _memory_fixed(density, small)
        room = shelf_in_x[1] - 8  # a chip must fit its shelf
        plan = _memory_plan(span.width(), free, by_width, room, spec, density, small, base)
        if plan is None:
            return None
        free -= plan.rows * _slot_row(density, small, plan.box)
    figure = float(math.floor(min(free, by_width, FIGURE_MAX)))
    if figure < FIGURE_MIN:
        return None
    memory_h = 0.0
    if plan is not None:
        memory_h = _memory_fixed(density, small) + plan.rows * _slot_row(density, small, plan.box)
    station_h = body.height() - memory_h - (density.gap if has_memory else 0.0)
    stations = tuple(
        _station(QRectF(x, body.top(), w, station_h), unit, spec, density, small, bold, figure)
        for unit, (x, w) in enumerate(station_x)
    )
    chip = plan.chip if plan is not None else CHIP_MIN
    chip_w = plan.chip_width if plan is not None else CHIP_MIN
    memory = None
    if plan is not None:
        card = QRectF(span.left(), body.top() + station_h + density.gap, span.width(), memory_h)
        memory = _memory(card, spec, density, small, plan)
    shelf_in = shelf_out = None
    if spec.pipeline:
        shelf_in = _shelf(
            QRectF(shelf_in_x[0], body.top(), shelf_in_x[1], body.height()),
            ("global memory", "input"),
            density,
            small,
            chip,
            chip_w,
        )
        shelf_out = _shelf(
            QRectF(shelf_out_x[0], body.top(), shelf_out_x[1], body.height()),
            ("global memory", "output"),
            density,
            small,
            chip,
            chip_w,
        )
        if shelf_in is None or shelf_out is None:
            return None
    return LaneLayout(
        density,
        small,
        bold,
        title,
        title_text,
        status,
        shelf_in,
        shelf_out,
        stations,
        memory,
        figure,
        chip,
        chip_w,
        True,
    )


def _header(
    rect: QRectF, height: float, spec: LaneSpec, bold: QFont
) -> tuple[QRectF, QRectF, str] | None:
    """The title on the left and room for the widest status on the right."""
    for widest in spec.status_widest:
        room = math.ceil(_width(widest, bold)) + 2
        left = rect.width() - room - 12
        if left >= min(48.0, _width(spec.title, bold)):
            title = QRectF(rect.left(), rect.top(), left, height)
            status = QRectF(rect.right() - room, rect.top(), room, height)
            return title, status, fit_text((spec.title,), bold, left)
    return None


def _station_fixed(small: QFont, bold: QFont) -> float:
    """A station's height without its figure: title, bar, label and padding."""
    return 3 + _line(bold) + 2 + (3 + 5 + 2) + _line(small) + 3


def _memory_fixed(density: Density, small: QFont) -> float:
    heading = _line(small) if density.captions_under_slots else 0.0
    return 4 + heading + 4


def _slot_row(density: Density, small: QFont, box: float) -> float:
    if density.captions_under_slots:
        return box + 2 + _line(small)
    return max(box, 2 * _line(small)) + 2  # the heading's two lines sit beside the first row


def _shelf_fixed(density: Density, small: QFont) -> float:
    lines = 2 if density.two_line_shelf_titles else 1
    return 3 + lines * _line(small) + 4 + 2 + _line(small) + 3


def _shelf_min_width(density: Density, small: QFont, chip_w: float) -> float:
    return max(chip_w + 8, _width("9,999", small) + 6)


def _station_min_width(density: Density) -> float:
    return FIGURE_MIN + 8 + 2 * density.pad


def _columns(
    body: QRectF, spec: LaneSpec, density: Density, small: QFont, base: QFont
) -> tuple[tuple[float, float], list[tuple[float, float]], tuple[float, float]] | None:
    """(x, width) of the input shelf, of each station and of the output shelf."""
    shown = [min(k, 4) for k in spec.workers]
    weights = [1.4 + 0.7 * (k - 1) for k in shown]
    n_gaps = len(weights) - 1 + (2 if spec.pipeline else 0)
    shelf_w = 0.0
    if spec.pipeline:
        unit = (body.width() - density.gap * n_gaps) / (sum(weights) + 1.5)
        minimum = _shelf_min_width(density, small, chip_width(CHIP_MIN, spec.digits, base))
        shelf_w = max(minimum, min(unit * 0.75, 160.0))
    unit = (body.width() - density.gap * n_gaps - 2 * shelf_w) / sum(weights)
    if unit * min(weights) < _station_min_width(density):
        return None
    x = body.left()
    shelf_in = (x, shelf_w)
    if spec.pipeline:
        x += shelf_w + density.gap
    stations = []
    for weight in weights:
        stations.append((x, unit * weight))
        x += unit * weight + density.gap
    return shelf_in, stations, (x, shelf_w)


def _cells(inner: float, workers: int, figure: float) -> int:
    """How many figures of size ``figure`` a station ``inner`` pixels wide draws (at least
    one; a further cell counts the rest)."""
    count = min(workers, FIGURES)
    while count > 1:
        cells = count + (1 if workers > count else 0)
        if min(inner / cells - 8, inner / cells * 0.8) >= figure:
            break
        count -= 1
    return count


def _figure_width_limit(width: float, workers: int, density: Density) -> float:
    """The largest figure a station this wide allows with at least one figure drawn."""
    inner = width - 2 * density.pad
    shown = min(workers, FIGURES)
    for count in range(shown, 0, -1):
        cells = count + (1 if workers > count else 0)
        size = min(inner / cells - 8, inner / cells * 0.8)
        if size >= min(FIGURE_MAX, FIGURE_MIN * 1.5) or count == 1:
            return size
    return 0.0


def _station(
    card: QRectF,
    unit: int,
    spec: LaneSpec,
    density: Density,
    small: QFont,
    bold: QFont,
    figure: float,
) -> Station:
    k = spec.workers[unit]
    inner = card.adjusted(density.pad, 3, -density.pad, -3)
    title = QRectF(card.left() + 4, card.top() + 3, card.width() - 8, _line(bold))
    variants = [f"{t} × {k}" if k > 1 else t for t in spec.unit_titles[unit]]
    title_text = fit_text(variants, bold, title.width())
    count = _cells(inner.width(), k, figure)
    cell_w = inner.width() / (count + (1 if k > count else 0))
    label_h = _line(small)
    label_top = inner.bottom() - label_h
    top, bottom = title.bottom() + 2, label_top - (3 + 5 + 2)
    fig_top = _px(top + max(0.0, (bottom - top - figure) / 2))
    offset = sum(spec.workers[:unit])
    cells = []
    for w in range(count):
        left = inner.left() + w * cell_w
        figure_rect = QRectF(_px(left + (cell_w - figure) / 2), fig_top, figure, figure)
        bar = QRectF(left + 4, figure_rect.bottom() + 3, cell_w - 8, 5)
        label = QRectF(left, label_top, cell_w, label_h)
        cells.append(WorkerCell(offset + w, figure_rect, bar, label))
    more = None
    if k > count:
        more = QRectF(inner.left() + count * cell_w, fig_top, cell_w, figure)
    return Station(card, title, title_text, tuple(cells), more, k - count)


@dataclass(frozen=True)
class _MemoryPlan:
    box: float  # a slot's height
    box_width: float  # a slot's width: at least a chip's width and a margin
    chip: float
    chip_width: float
    rows: int
    drawn: int
    per_row: int
    heading_width: float  # beside the slots (compact densities); 0 above them
    words: bool  # the state word next to each slot number


def _memory_plan(
    width: float,
    free: float,
    by_width: float,
    chip_room: float,
    spec: LaneSpec,
    density: Density,
    small: QFont,
    base: QFont,
) -> _MemoryPlan | None:
    """Slot size, rows and slots drawn for shared memory ``width`` wide, where ``free`` is
    the height the figures and the slot rows share. None if one row of minimum slots and
    minimum figures does not fit."""
    inner = width - 2 * density.pad
    figure_cap = min(FIGURE_MAX, by_width)
    extra = _slot_row(density, small, 0.0) if density.captions_under_slots else 2.0
    best: _MemoryPlan | None = None
    wanted = min(spec.slots, MEMORY_SLOTS)
    for rows in (1, 2):
        # Figures and slots share the height: slots about half a figure, within limits,
        # and never leaving the figures less than their minimum.
        figure = min(figure_cap, (free - rows * extra) / (1 + SLOT_SHARE * rows))
        box = max(SLOT_MIN, min(SLOT_MAX, SLOT_SHARE * figure))
        box = float(math.floor(min(box, (free - FIGURE_MIN) / rows - extra)))
        if box < SLOT_MIN:
            break
        chip = float(_even(max(CHIP_MIN, min(CHIP_MAX, box - 6))))
        while chip > CHIP_MIN and chip_width(chip, spec.digits, base) > chip_room:
            chip -= 2
        chip_w = chip_width(chip, spec.digits, base)
        if chip_w > chip_room:
            break
        box_w = max(box, chip_w + 6)
        heading_width, words, per_row = _slot_columns(inner, box_w, rows, spec, density, small)
        if per_row < 1:
            break
        drawn = min(wanted, per_row * rows)
        if drawn < spec.slots:
            drawn = max(1, min(drawn, per_row * rows - 1))  # one cell for "+N"
        plan = _MemoryPlan(box, box_w, chip, chip_w, rows, drawn, per_row, heading_width, words)
        if best is None or drawn > best.drawn:
            best = plan
        if drawn == spec.slots:
            break
    return best


def _slot_columns(
    inner: float, box: float, rows: int, spec: LaneSpec, density: Density, small: QFont
) -> tuple[float, bool, int]:
    """(heading width, state words, slots per row): the longest heading and the words
    where every slot still fits in ``rows`` rows, else the shortest heading."""
    wanted = min(spec.slots, MEMORY_SLOTS)
    if density.captions_under_slots:
        return 0.0, True, int(inner // _slot_cell_width(density, small, box, True))
    per_row = 0
    heading_width = 0.0
    for heading, usage in zip(spec.memory_heading, spec.usage_widest, strict=False):
        heading_width = math.ceil(max(_width(heading, small), _width(usage, small))) + 2.0
        room = inner - heading_width - 8
        for words in (True, False):
            per_row = int(room // _slot_cell_width(density, small, box, words))
            if per_row * rows >= wanted:
                return heading_width, words, per_row
    return heading_width, False, per_row


def _slot_cell_width(density: Density, small: QFont, box: float, words: bool) -> float:
    """Width of one slot's cell, for a slot ``box`` pixels wide."""
    if density.captions_under_slots:
        return max(box + 10, _width("16 · reserved", small) + 6)
    cell = _width("16", small) + 6 + box + 8
    return cell + (_width("reserved", small) + 4 if words else 0.0)


def _memory(
    card: QRectF, spec: LaneSpec, density: Density, small: QFont, plan: _MemoryPlan
) -> Memory:
    line = _line(small)
    inner = card.adjusted(density.pad, 4, -density.pad, -4)
    under = density.captions_under_slots
    row_h = _slot_row(density, small, plan.box)
    usage = None
    if under:
        heading = QRectF(inner.left(), inner.top(), inner.width(), line)
        area = QRectF(
            inner.left(), heading.bottom(), inner.width(), inner.bottom() - heading.bottom()
        )
    else:
        top = inner.top() + (row_h - 2 - 2 * line) / 2
        heading = QRectF(inner.left(), top, plan.heading_width, line)
        usage = QRectF(inner.left(), top + line, plan.heading_width, line)
        area = inner.adjusted(plan.heading_width + 8, 0, 0, 0)
    cell_w = _slot_cell_width(density, small, plan.box_width, plan.words)
    number_w = _width("16", small) + 4
    boxes, captions, words = [], [], []
    for slot in range(plan.drawn):
        r, c = divmod(slot, plan.per_row)
        left, top = area.left() + c * cell_w, area.top() + r * row_h
        if under:
            box = QRectF(
                _px(left + (cell_w - plan.box_width) / 2), _px(top), plan.box_width, plan.box
            )
            captions.append(QRectF(left, box.bottom() + 2, cell_w, line))
        else:
            box = QRectF(
                _px(left + number_w + 2),
                _px(top + (row_h - 2 - plan.box) / 2),
                plan.box_width,
                plan.box,
            )
            captions.append(QRectF(left, box.center().y() - line / 2, number_w, line))
            if plan.words:
                word_left = box.right() + 4
                words.append(
                    QRectF(word_left, captions[-1].top(), left + cell_w - 4 - word_left, line)
                )
        boxes.append(box)
    more = None
    hidden = spec.slots - plan.drawn
    if hidden > 0:
        r, c = divmod(plan.drawn, plan.per_row)
        more = QRectF(area.left() + c * cell_w, area.top() + r * row_h, cell_w, row_h - 2)
    return Memory(card, heading, usage, tuple(boxes), tuple(captions), tuple(words), more, hidden)


def _shelf(
    card: QRectF,
    titles: tuple[str, str],
    density: Density,
    small: QFont,
    chip: float,
    chip_w: float,
) -> Shelf | None:
    line = _line(small)
    inner_w = card.width() - 4
    two_lines = density.two_line_shelf_titles and _width(titles[0], small) <= inner_w
    texts = titles if two_lines else (titles[1],)
    top = card.top() + 3
    rects = []
    for text in texts:
        rects.append(
            (QRectF(card.left() + 2, top, inner_w, line), fit_text((text,), small, inner_w))
        )
        top += line
    count = QRectF(card.left() + 2, card.bottom() - 3 - line, inner_w, line)
    area = QRectF(card.left() + 2, top + 4, inner_w, count.top() - 2 - (top + 4))
    step_x, step_y = chip_w + 4, chip + 4
    rows = min(SHELF_CHIPS, int((area.height() + 4) // step_y))
    if rows < 1 or chip_w > area.width():
        return None
    cols = max(1, min(2, int((area.width() + 4) // step_x)))
    if rows >= 4:
        cols = 1  # one column reads as a queue; two only where the shelf is short
    left = area.center().x() - (cols * step_x - 4) / 2 + chip_w / 2
    spots = []
    for i in range(min(SHELF_CHIPS, rows * cols)):
        c, r = divmod(i, rows)
        centre = QPointF(_px(left + c * step_x), _px(area.top() + chip / 2 + r * step_y))
        spots.append(centre)
    return Shelf(card, tuple(rects), count, tuple(spots))
