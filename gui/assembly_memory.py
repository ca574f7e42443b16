"""The shared-memory band of a lane: how large its slots are, how many rows and columns,
where the heading and each slot's number and state go."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont

from gui.assembly_parts import (
    CHIP_MAX,
    CHIP_MIN,
    FIGURE_MAX,
    FIGURE_MIN,
    MEMORY_SLOTS,
    SLOT_MAX,
    SLOT_MIN,
    SLOT_SHARE,
    Density,
    LaneSpec,
    Memory,
    PoolSpec,
    chip_width,
    even,
    line_height,
    px,
    slot_row,
    text_width,
)

#: The widest captions of a book's slot: under it, and its state beside it.
BOOK_CAPTIONS: tuple[tuple[str, ...], tuple[str, ...]] = (("16 · reserved",), ("reserved",))


@dataclass(frozen=True)
class MemoryPlan:
    box: float  # a slot's height
    box_width: float  # a slot's width: at least a chip's width and a margin
    chip: float
    chip_width: float
    rows: int
    drawn: int
    per_row: int
    heading_width: float  # beside the slots (compact densities); 0 above them
    words: bool  # the state word next to each slot number
    captions: tuple[tuple[str, ...], tuple[str, ...]] = BOOK_CAPTIONS  # under / beside a slot


def book_shelf(spec: LaneSpec) -> PoolSpec:
    """The book's one shared memory as a shelf."""
    return PoolSpec(spec.slots, spec.memory_heading, spec.usage_widest, BOOK_CAPTIONS, False)


def memory_plan(
    width: float,
    free: float,
    by_width: float,
    chip_room: float,
    spec: LaneSpec,
    density: Density,
    small: QFont,
    base: QFont,
) -> MemoryPlan | None:
    """Slot size, rows and slots drawn for shared memory ``width`` wide, where ``free`` is
    the height the figures and the slot rows share. None if one row of minimum slots and
    minimum figures does not fit."""
    plans = shelf_plans(
        (width,), (book_shelf(spec),), free, by_width, chip_room, spec.digits, density, small, base
    )
    return plans[0] if plans is not None else None


def shelf_plans(
    widths: tuple[float, ...],
    shelves: tuple[PoolSpec, ...],
    free: float,
    by_width: float,
    chip_room: float,
    digits: int,
    density: Density,
    small: QFont,
    base: QFont,
) -> tuple[MemoryPlan, ...] | None:
    """`memory_plan` for shelves side by side, ``widths[i]`` wide each: slots of one size
    in as many rows on every shelf (they read as one band), the most slots drawn in all."""
    figure_cap = min(FIGURE_MAX, by_width)
    extra = slot_row(density, small, 0.0) if density.captions_under_slots else 2.0
    best: tuple[MemoryPlan, ...] | None = None
    for rows in (1, 2):
        # Figures and slots share the height: slots about half a figure, within limits,
        # and never leaving the figures less than their minimum.
        figure = min(figure_cap, (free - rows * extra) / (1 + SLOT_SHARE * rows))
        box = max(SLOT_MIN, min(SLOT_MAX, SLOT_SHARE * figure))
        box = float(math.floor(min(box, (free - FIGURE_MIN) / rows - extra)))
        if box < SLOT_MIN:
            break
        chip = float(even(max(CHIP_MIN, min(CHIP_MAX, box - 6))))
        while chip > CHIP_MIN and chip_width(chip, digits, base) > chip_room:
            chip -= 2
        chip_w = chip_width(chip, digits, base)
        if chip_w > chip_room:
            break
        box_w = max(box, chip_w + 6)
        plans = []
        for width, shelf in zip(widths, shelves, strict=True):
            inner = width - 2 * density.pad
            heading_width, words, per_row = _slot_columns(inner, box_w, rows, shelf, density, small)
            if per_row < 1:
                return best
            drawn = min(min(shelf.slots, MEMORY_SLOTS), per_row * rows)
            if drawn < shelf.slots:
                drawn = max(1, min(drawn, per_row * rows - 1))  # one cell for "+N"
            plans.append(
                MemoryPlan(
                    box,
                    box_w,
                    chip,
                    chip_w,
                    rows,
                    drawn,
                    per_row,
                    heading_width,
                    words,
                    shelf.captions,
                )
            )
        if best is None or sum(p.drawn for p in plans) > sum(p.drawn for p in best):
            best = tuple(plans)
        if all(p.drawn == shelf.slots for p, shelf in zip(plans, shelves, strict=True)):
            break
    return best


def _slot_columns(
    inner: float, box: float, rows: int, shelf: PoolSpec, density: Density, small: QFont
) -> tuple[float, bool, int]:
    """(heading width, state words, slots per row): the longest heading and the words
    where every slot still fits in ``rows`` rows, else the shortest heading."""
    wanted = min(shelf.slots, MEMORY_SLOTS)
    if density.captions_under_slots:
        return 0.0, True, int(inner // slot_cell_width(density, small, box, True, shelf.captions))
    per_row = 0
    heading_width = 0.0
    headings = list(zip(shelf.heading, shelf.usage_widest, strict=False))
    if shelf.words_first:
        tries = [(h, w) for w in (True, False) for h in headings]
    else:
        tries = [(h, w) for h in headings for w in (True, False)]
    for (heading, usage), words in tries:
        heading_width = math.ceil(max(text_width(heading, small), text_width(usage, small))) + 2.0
        room = inner - heading_width - 8
        per_row = int(room // slot_cell_width(density, small, box, words, shelf.captions))
        if per_row * rows >= wanted:
            return heading_width, words, per_row
    return heading_width, False, per_row


def slot_cell_width(
    density: Density,
    small: QFont,
    box: float,
    words: bool,
    captions: tuple[tuple[str, ...], tuple[str, ...]] = BOOK_CAPTIONS,
) -> float:
    """Width of one slot's cell, for a slot ``box`` pixels wide whose captions are among
    ``captions`` (under it; its state beside it)."""
    if density.captions_under_slots:
        return max(box + 10, max(text_width(t, small) for t in captions[0]) + 6)
    cell = text_width("16", small) + 6 + box + 8
    return cell + (max(text_width(t, small) for t in captions[1]) + 4 if words else 0.0)


def memory_part(
    card: QRectF,
    slots: int,
    density: Density,
    small: QFont,
    plan: MemoryPlan,
    spread: bool = False,
) -> Memory:
    """Where the heading, each slot, its caption and "+N" go in a shelf's ``card`` that
    has ``slots`` slots; ``spread``: cells share out the room left (a shape's pools)."""
    line = line_height(small)
    inner = card.adjusted(density.pad, 4, -density.pad, -4)
    under = density.captions_under_slots
    row_h = slot_row(density, small, plan.box)
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
    cell_w = slot_cell_width(density, small, plan.box_width, plan.words, plan.captions)
    if spread:  # share out the room (up to half a cell more): longer captions fit
        cells = min(plan.per_row, plan.drawn + (1 if slots > plan.drawn else 0))
        cell_w = max(cell_w, min(1.5 * cell_w, area.width() / max(1, cells)))
    number_w = text_width("16", small) + 4
    boxes, captions, words = [], [], []
    for slot in range(plan.drawn):
        r, c = divmod(slot, plan.per_row)
        left, top = area.left() + c * cell_w, area.top() + r * row_h
        if under:
            box = QRectF(
                px(left + (cell_w - plan.box_width) / 2), px(top), plan.box_width, plan.box
            )
            captions.append(QRectF(left, box.bottom() + 2, cell_w, line))
        else:
            box = QRectF(
                px(left + number_w + 2),
                px(top + (row_h - 2 - plan.box) / 2),
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
    hidden = slots - plan.drawn
    if hidden > 0:
        r, c = divmod(plan.drawn, plan.per_row)
        more = QRectF(area.left() + c * cell_w, area.top() + r * row_h, cell_w, row_h - 2)
    return Memory(card, heading, usage, tuple(boxes), tuple(captions), tuple(words), more, hidden)
