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
from dataclasses import replace
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont

from gui.assembly_memory import (
    MemoryPlan,
    memory_part,
    memory_plan,
    shelf_plans,
    slot_cell_width,
)
from gui.assembly_parts import (
    CHIP_MIN,
    DENSITIES,
    FIGURE_COMFORT,
    FIGURE_MAX,
    FIGURE_MIN,
    FIGURES,
    MEMORY_SLOTS,
    SHELF_CHIPS,
    SLOT_MIN,
    Density,
    LaneLayout,
    LaneSpec,
    Memory,
    PoolSpec,
    Shelf,
    Station,
    WorkerCell,
    chip_width,
    fit_text,
    fonts,
    line_height,
    memory_fixed,
    px,
    slot_row,
    text_width,
)

__all__ = ["lane_minimum", "layout_lane"]


# -- the lane -----------------------------------------------------------------------------


def layout_lane(rect: QRectF, spec: LaneSpec, base: QFont) -> LaneLayout:
    """The roomiest layout of ``spec`` that fits ``rect``; if none does, the tightest one
    at the lane's minimum size from ``rect``'s corner (``fits`` False)."""
    return _cached_layout(px(rect.left()), px(rect.top()), rect.width(), rect.height(), spec, base)


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
        # Up from 256 px (lanes need a few hundred; the probes at thousands cost the
        # most), doubling to 4096 at most, then halving the bracket.
        lo, hi = 1, 256
        while hi < 4096 and not ok(hi):  # type: ignore[operator]
            lo, hi = hi + 1, min(2 * hi, 4096)
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
    header_h = line_height(bold) + 4
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
    has_memory = spec.pipeline and (spec.slots > 0 or bool(spec.pools))
    span_left = station_x[0][0]
    span = QRectF(span_left, 0, station_x[-1][0] + station_x[-1][1] - span_left, 0)
    plans: tuple[MemoryPlan, ...] = ()
    widths: tuple[float, ...] = ()
    if has_memory:
        free -= density.gap + memory_fixed(density, small)
        room = shelf_in_x[1] - 8  # a chip must fit its shelf
        if spec.pools:
            widths = _pool_widths(span.width(), spec, density, small)
            found = shelf_plans(
                widths, spec.pools, free, by_width, room, spec.digits, density, small, base
            )
        else:
            one = memory_plan(span.width(), free, by_width, room, spec, density, small, base)
            found = (one,) if one is not None else None
        if found is None:
            return None
        plans = found
        free -= plans[0].rows * slot_row(density, small, plans[0].box)
    plan = plans[0] if plans else None
    figure = float(math.floor(min(free, by_width, FIGURE_MAX)))
    if figure < FIGURE_MIN:
        return None
    memory_h = 0.0
    if plan is not None:
        memory_h = memory_fixed(density, small) + plan.rows * slot_row(density, small, plan.box)
    station_h = body.height() - memory_h - (density.gap if has_memory else 0.0)
    stations = tuple(
        _station(QRectF(x, body.top(), w, station_h), unit, spec, density, small, bold, figure)
        for unit, (x, w) in enumerate(station_x)
    )
    chip = plan.chip if plan is not None else CHIP_MIN
    chip_w = plan.chip_width if plan is not None else CHIP_MIN
    memory = None
    pools: list[Memory] = []
    memory_top = body.top() + station_h + density.gap
    if plan is not None and not spec.pools:
        card = QRectF(span.left(), memory_top, span.width(), memory_h)
        memory = memory_part(card, spec.slots, density, small, plan)
    x = span.left()
    for width, pool, pool_plan in zip(widths, spec.pools, plans, strict=False):
        card = QRectF(px(x), memory_top, width, memory_h)
        pools.append(memory_part(card, pool.slots, density, small, pool_plan, spread=True))
        x += width + density.gap
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
        tuple(pools),
    )


def _pool_widths(width: float, spec: LaneSpec, density: Density, small: QFont) -> tuple[float, ...]:
    """The widths of a shape's pool shelves side by side across ``width``: each as wide as
    its slots need with their captions under them, and the rest shared out in proportion
    (whole pixels); short of room, the small shelves first get what they need."""
    under = density.captions_under_slots  # else: words beside a slot only where room
    needs = [
        min(pool.slots, MEMORY_SLOTS)
        * slot_cell_width(density, small, SLOT_MIN, under, pool.captions)
        + 2 * density.pad
        + (0.0 if under else _short_heading(pool, small) + 8)
        for pool in spec.pools
    ]
    room = width - density.gap * (len(needs) - 1)
    if sum(needs) > room:
        # Short of room: the smaller shelves get what they need while it is no more than
        # an even share of what is left; the larger ones share the rest (and count "+N").
        given = list(needs)
        left, rest = room, sorted(range(len(needs)), key=lambda i: needs[i])
        while rest:
            share = left / len(rest)
            i = rest.pop(0)
            given[i] = min(needs[i], share) if rest else left
            left -= given[i]
        needs = given
    widths = [math.floor(room * need / sum(needs)) for need in needs]
    widths[-1] = math.floor(room - sum(widths[:-1]))
    return tuple(float(w) for w in widths)


def _short_heading(pool: PoolSpec, small: QFont) -> float:
    """The width of a pool's shortest heading beside its slots (compact layouts)."""
    return max(text_width(pool.heading[-1], small), text_width(pool.usage_widest[-1], small)) + 2


def _header(
    rect: QRectF, height: float, spec: LaneSpec, bold: QFont
) -> tuple[QRectF, QRectF, str] | None:
    """The title on the left and room for the widest status on the right."""
    for widest in spec.status_widest:
        room = math.ceil(text_width(widest, bold)) + 2
        left = rect.width() - room - 12
        if left >= min(48.0, text_width(spec.title, bold)):
            title = QRectF(rect.left(), rect.top(), left, height)
            status = QRectF(rect.right() - room, rect.top(), room, height)
            return title, status, fit_text((spec.title,), bold, left)
    return None


def _station_fixed(small: QFont, bold: QFont) -> float:
    """A station's height without its figure: title, bar, label and padding."""
    return 3 + line_height(bold) + 2 + (3 + 5 + 2) + line_height(small) + 3


def _shelf_fixed(density: Density, small: QFont) -> float:
    lines = 2 if density.two_line_shelf_titles else 1
    return 3 + lines * line_height(small) + 4 + 2 + line_height(small) + 3


def _shelf_min_width(density: Density, small: QFont, chip_w: float) -> float:
    return max(chip_w + 8, text_width("9,999", small) + 6)


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
    title = QRectF(card.left() + 4, card.top() + 3, card.width() - 8, line_height(bold))
    variants = [f"{t} × {k}" if k > 1 else t for t in spec.unit_titles[unit]]
    title_text = fit_text(variants, bold, title.width())
    count = _cells(inner.width(), k, figure)
    cell_w = inner.width() / (count + (1 if k > count else 0))
    label_h = line_height(small)
    label_top = inner.bottom() - label_h
    top, bottom = title.bottom() + 2, label_top - (3 + 5 + 2)
    fig_top = px(top + max(0.0, (bottom - top - figure) / 2))
    offset = sum(spec.workers[:unit])
    cells = []
    for w in range(count):
        left = inner.left() + w * cell_w
        figure_rect = QRectF(px(left + (cell_w - figure) / 2), fig_top, figure, figure)
        bar = QRectF(left + 4, figure_rect.bottom() + 3, cell_w - 8, 5)
        label = QRectF(left, label_top, cell_w, label_h)
        cells.append(WorkerCell(offset + w, figure_rect, bar, label))
    more = None
    if k > count:
        more = QRectF(inner.left() + count * cell_w, fig_top, cell_w, figure)
    return Station(card, title, title_text, tuple(cells), more, k - count)


def _shelf(
    card: QRectF,
    titles: tuple[str, str],
    density: Density,
    small: QFont,
    chip: float,
    chip_w: float,
) -> Shelf | None:
    line = line_height(small)
    inner_w = card.width() - 4
    two_lines = density.two_line_shelf_titles and text_width(titles[0], small) <= inner_w
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
        centre = QPointF(px(left + c * step_x), px(area.top() + chip / 2 + r * step_y))
        spots.append(centre)
    return Shelf(card, tuple(rects), count, tuple(spots))
