"""The assembly line: stations of workers, shared-memory slots and op boxes that travel
global memory → load → shared memory → compute → store → global memory, one lane per
Schedule, all on the same clock.

It only renders: where things are comes from the engine — `engine.timeline.workers_at`
(the workers' part of `state_at`), and `engine.view_model.ops_now` (op boxes and their
glide, as `op_motion` gives them, for the ops in flight and on the shelves only) and
`slot_holders`.

A tick repaints only what moves: the cards, stations, titles and empty slots are drawn
once into a pixmap (per size, theme and Schedules) and blitted; each frame draws the worker
figures, progress, counts and op boxes on top, in time independent of the number of ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPaintEngine, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.schedule import Schedule
from engine.timeline import workers_at
from engine.view_model import (
    OpsNow,
    format_time,
    idle_time,
    ops_now,
    slot_assignment,
    slot_holders,
    typical_duration,
)
from gui.clock import Clock
from gui.colours import LIGHT, OP_COLOURS, Theme, ink_on, op_colour
from gui.icons import tinted

#: Most boxes drawn on a shelf, and most slots (or boxes) drawn in shared memory.
SHELF_BOXES = 6
MEMORY_SLOTS = 16
#: Most worker figures drawn per station (the rest are counted).
FIGURES = 6
#: Paint engines that keep shapes (the assembly line draws no cached pixmaps into these).
VECTOR_ENGINES = (QPaintEngine.Type.SVG, QPaintEngine.Type.Pdf, QPaintEngine.Type.Picture)


@dataclass(frozen=True)
class LaneGeometry:
    """Where the parts of one lane sit, in widget pixels."""

    header: QRectF
    shelf_in: QRectF
    stations: tuple[QRectF, ...]
    shelf_out: QRectF
    memory: QRectF
    box: float


def lane_geometry(rect: QRectF, n_units: int) -> LaneGeometry:
    """Columns: input shelf, one station per unit, output shelf; shared memory below."""
    header = QRectF(rect.left(), rect.top(), rect.width(), 22.0)
    body = rect.adjusted(0, 24, 0, -4)
    weights = [0.75] + [1.4] * n_units + [0.75]
    gap = 14.0
    unit = (body.width() - gap * (len(weights) - 1)) / sum(weights)
    columns, x = [], body.left()
    for weight in weights:
        columns.append((x, unit * weight))
        x += unit * weight + gap
    station_h = body.height() * 0.64
    memory_h = body.height() - station_h - 8
    shelf_in = QRectF(columns[0][0], body.top(), columns[0][1], body.height())
    shelf_out = QRectF(columns[-1][0], body.top(), columns[-1][1], body.height())
    stations = tuple(QRectF(cx, body.top(), cw, station_h) for cx, cw in columns[1:-1])
    memory = QRectF(
        columns[1][0],
        body.top() + station_h + 8,
        columns[-2][0] + columns[-2][1] - columns[1][0],
        memory_h,
    )
    box = max(12.0, min(30.0, memory_h * 0.42, shelf_in.width() * 0.42))
    return LaneGeometry(header, shelf_in, stations, shelf_out, memory, box)


class AssemblyLineView(QWidget):
    """Draws each Schedule as an assembly line at the clock's time."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._theme = theme
        self._schedules: list[Schedule] = []
        self._static: QPixmap | None = None
        self._static_key: tuple[object, ...] = ()
        self.static_paints = 0  # how often the static layer was drawn (ticks leave it alone)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(180)
        self.setAutoFillBackground(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)  # we fill every pixel
        clock.time_changed.connect(self.update)

    def sizeHint(self) -> QSize:
        return QSize(1000, 420)

    def set_schedules(self, schedules: list[Schedule]) -> None:
        self._schedules = list(schedules)
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._static = None
        self.update()

    def lane_rects(self) -> list[QRectF]:
        """One rectangle per Schedule, stacked top to bottom."""
        n = max(1, len(self._schedules))
        area = QRectF(self.rect()).adjusted(12, 6, -12, -6)
        height = area.height() / n
        return [
            QRectF(area.left(), area.top() + i * height, area.width(), height - 8) for i in range(n)
        ]

    def station_rects(self) -> list[list[QRectF]]:
        """Per lane, the rectangle of each station (tests check the pixels there)."""
        return [
            list(lane_geometry(rect, s.n_units).stations)
            for rect, s in zip(self.lane_rects(), self._schedules, strict=False)
        ]

    # -- painting --------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        engine = painter.paintEngine()
        if engine is not None and engine.type() in VECTOR_ENGINES:
            self.paint_on(painter, self._clock.time)  # rendered into an SVG or a PDF
        else:
            painter.drawPixmap(0, 0, self._static_layer())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for lane in self._lanes(painter, self._clock.time):
                lane.paint_moving()
        painter.end()

    def paint_on(self, painter: QPainter, time: float) -> None:
        """Paint every lane at ``time`` with shapes only (no cached pixmaps), onto any
        paint device: what vector exports get."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(QRectF(self.rect()), self._theme.colour("background"))
        for lane in self._lanes(painter, time, vector=True):
            lane.paint_static()
            lane.paint_moving()

    def _lanes(self, painter: QPainter, time: float, vector: bool = False) -> list[_LanePainter]:
        return [
            _LanePainter(painter, self._theme, schedule, time, rect, vector)
            for rect, schedule in zip(self.lane_rects(), self._schedules, strict=False)
        ]

    def _static_layer(self) -> QPixmap:
        """What does not change with time, drawn once per size, theme and the Schedules'
        shape (an edited duration keeps the layer; other workers or buffers redraw it)."""
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, *(static_signature(s) for s in self._schedules))
        if self._static is None or self._static_key != key:
            pixmap = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(self._theme.colour("background"))
            painter = QPainter(pixmap)
            painter.setFont(self.font())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for lane in self._lanes(painter, self._clock.time):
                lane.paint_static()
            painter.end()
            self._static, self._static_key = pixmap, key
            self.static_paints += 1
        return self._static


def static_signature(schedule: Schedule) -> tuple[object, ...]:
    """Everything the static layer of a lane shows about ``schedule``."""
    slots = 0
    if schedule.buffers <= 0 and schedule.is_pipeline and schedule.n_ops:
        slots = int(slot_assignment(schedule).max()) + 1
    return (
        schedule.label,
        schedule.policy,
        schedule.source,
        schedule.workers,
        schedule.unit_names,
        schedule.buffers,
        slots,
    )


class _LanePainter:
    """Paints one lane: the static parts (cards, station frames, empty slots, titles) and
    the moving ones (status, workers, slots in use, op boxes, shelf counts)."""

    def __init__(
        self,
        painter: QPainter,
        theme: Theme,
        schedule: Schedule,
        time: float,
        rect: QRectF,
        vector: bool = False,
    ) -> None:
        self.p = painter
        self.vector = vector  # draw shapes, not cached pixmaps (SVG, PDF)
        self.theme = theme
        self.s = schedule
        self.t = time
        self.g = lane_geometry(rect, schedule.n_units)
        self.font = QFont(painter.font())
        self.font.setPixelSize(12)
        self.small = QFont(self.font)
        self.small.setPixelSize(11)
        self.bold = QFont(self.font)
        self.bold.setPixelSize(13)
        self.bold.setBold(True)
        self.cells: list[tuple[int, QRectF, QRectF, QRectF, QRectF]] = []
        for unit, station in enumerate(self.g.stations):
            self.cells += self._worker_cells(unit, station)
        # timeline row → figure rectangle (where a box sits while that worker holds it)
        self.figures = {row: figure for row, _, figure, _, _ in self.cells}

    def paint_static(self) -> None:
        s = self.s
        title = f"{s.label or s.policy}" + (" (measured)" if s.source == "measured" else "")
        self._text(self.g.header, title, self.bold, "text", Qt.AlignmentFlag.AlignLeft)
        self._card(self.g.shelf_in, "global memory", "input")
        self._card(self.g.shelf_out, "global memory", "output")
        for unit, rect in enumerate(self.g.stations):
            self._station(unit, rect)
        self._memory_frame()

    def paint_moving(self) -> None:
        self._status()
        self._workers()
        ops = self._ops_now()
        self._memory_in_use(ops)
        if ops is not None:
            self._boxes(ops)

    # -- parts ---------------------------------------------------------------------------

    def _text(
        self, rect: QRectF, text: str, font: QFont, colour: str, align: Qt.AlignmentFlag
    ) -> None:
        self.p.setFont(font)
        self.p.setPen(self.theme.colour(colour))
        self.p.drawText(rect, int(align), text)

    def _status(self) -> None:
        s, unit = self.s, self.s.time_unit
        done = self.t >= s.makespan - 1e-9 * max(1.0, s.makespan) and len(s)
        status = (
            f"done in {format_time(s.makespan, unit)}"
            if done
            else f"t = {format_time(self.t, unit)} of {format_time(s.makespan, unit)}"
        )
        self._text(
            self.g.header,
            status,
            self.bold,
            "done" if done else "muted",
            Qt.AlignmentFlag.AlignRight,
        )

    def _card(self, rect: QRectF, title: str, subtitle: str) -> None:
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(rect, 8, 8)
        top = QRectF(rect.left(), rect.top() + 4, rect.width(), 16)
        self._text(top, title, self.small, "muted", Qt.AlignmentFlag.AlignHCenter)
        sub = QRectF(rect.left(), rect.top() + 18, rect.width(), 16)
        self._text(sub, subtitle, self.small, "muted", Qt.AlignmentFlag.AlignHCenter)

    def _worker_cells(
        self, unit: int, rect: QRectF
    ) -> list[tuple[int, QRectF, QRectF, QRectF, QRectF]]:
        """(timeline row, cell, figure, progress bar, label) of each drawn worker."""
        k = self.s.workers[unit]
        shown = min(k, FIGURES)
        area = rect.adjusted(8, 26, -8, -6)
        cell_w = area.width() / shown
        text_h = 30.0
        size = max(12.0, min(cell_w * 0.8, area.height() - text_h, 76.0))
        first = int(self.s.worker_offsets[unit])
        cells = []
        for w in range(shown):
            cell = QRectF(area.left() + w * cell_w, area.top(), cell_w, area.height())
            top = cell.top() + max(0.0, (cell.height() - text_h - size) / 2)
            figure = QRectF(cell.center().x() - size / 2, top, size, size)
            bar = QRectF(cell.left() + 6, figure.bottom() + 3, cell.width() - 12, 6)
            label = QRectF(cell.left(), bar.bottom() + 2, cell.width(), 16)
            cells.append((first + w, cell, figure, bar, label))
        return cells

    def _station(self, unit: int, rect: QRectF) -> None:
        """Frame, title, empty progress bars and the "+k more" count of one station."""
        s = self.s
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(rect, 8, 8)
        k = s.workers[unit]
        title = s.unit_title(unit) + (f" × {k}" if k > 1 else "")
        self._text(
            QRectF(rect.left(), rect.top() + 4, rect.width(), 18),
            title,
            self.bold,
            "text",
            Qt.AlignmentFlag.AlignHCenter,
        )
        self.p.setPen(Qt.PenStyle.NoPen)
        self.p.setBrush(self.theme.colour("idle"))
        for _, _, _, bar, _ in self._worker_cells(unit, rect):
            self.p.drawRoundedRect(bar, 3, 3)
        shown = min(k, FIGURES)
        if k > shown:
            more = QRectF(rect.left(), rect.bottom() - 16, rect.width() - 6, 14)
            self._text(more, f"+{k - shown} more", self.small, "muted", Qt.AlignmentFlag.AlignRight)

    def _workers(self) -> None:
        """Each drawn worker: its figure in its op's colour (grey when idle), its progress
        and what it does, or how long it has been idle."""
        s = self.s
        now = workers_at(s, self.t)
        for row, _, figure, bar, label in self.cells:
            op = int(now.op[row])
            colour = op_colour(op) if op >= 0 else self.theme.colour("idle_hatch")
            size = int(figure.width())
            self.p.drawImage(figure, tinted("worker", size, size, colour.rgba()))
            if op >= 0:
                fraction = float(now.fraction[row])
                self.p.setPen(Qt.PenStyle.NoPen)
                self.p.setBrush(colour)
                self.p.drawRoundedRect(
                    QRectF(bar.left(), bar.top(), bar.width() * fraction, bar.height()), 3, 3
                )
                stage = s.stage_names[int(now.stage[row])]
                words = f"op {op + 1} {stage} {fraction:.0%}"
                self._text(label, words, self.small, "text", Qt.AlignmentFlag.AlignHCenter)
            else:
                idle = idle_time(s, float(now.idle_since[row]), self.t)
                words = f"idle {format_time(idle, s.time_unit)}"
                self._text(label, words, self.small, "muted", Qt.AlignmentFlag.AlignHCenter)

    def _ops_now(self) -> OpsNow | None:
        """The ops in flight and on the shelves now (pipelines only)."""
        if not (self.s.is_pipeline and self.s.n_ops):
            return None
        return ops_now(self.s, self.t, 0.35 * typical_duration(self.s), SHELF_BOXES)

    def _memory_slots(self) -> tuple[int, int]:
        """(slots to draw, slots the run has or used)."""
        if self.s.buffers > 0:
            total = self.s.buffers
        elif self.s.is_pipeline and self.s.n_ops:
            total = int(slot_assignment(self.s).max()) + 1
        else:
            total = 0
        return min(total, MEMORY_SLOTS), total

    def _slot_rect(self, slot: int, drawn: int) -> QRectF:
        m = self.g.memory
        inner = m.adjusted(10, 22, -10, -6)
        step = min(self.g.box + 14, inner.width() / max(1, drawn))
        size = min(self.g.box + 6, step - 4, inner.height())
        return QRectF(
            inner.left() + slot * step, inner.top() + (inner.height() - size) / 2, size, size
        )

    def _memory_frame(self) -> None:
        """The shared-memory box with every slot drawn empty, and "+N" for the rest."""
        m = self.g.memory
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(m, 8, 8)
        drawn, total = self._memory_slots()
        self.p.setBrush(Qt.BrushStyle.NoBrush)
        self.p.setPen(QPen(self.theme.colour("idle_hatch"), 1.2, Qt.PenStyle.DashLine))
        for slot in range(drawn):
            self.p.drawRoundedRect(self._slot_rect(slot, drawn), 4, 4)
        if total > drawn:
            last = self._slot_rect(drawn - 1, drawn)
            self._text(
                QRectF(last.right() + 4, last.top(), 80, last.height()),
                f"+{total - drawn}",
                self.small,
                "muted",
                Qt.AlignmentFlag.AlignVCenter,
            )

    def _memory_in_use(self, ops: OpsNow | None) -> None:
        """The title with the count in use, and each drawn slot that an op holds, filled."""
        m = self.g.memory
        in_use = ops.slots_in_use if ops is not None else 0
        if self.s.buffers > 0:
            plural = "s" if self.s.buffers != 1 else ""
            title = f"shared memory · {self.s.buffers} slot{plural} · {in_use} in use"
        else:
            title = f"shared memory · unlimited slots · {in_use} in use"
        self._text(
            QRectF(m.left() + 10, m.top() + 3, m.width() - 20, 18),
            title,
            self.small,
            "muted",
            Qt.AlignmentFlag.AlignLeft,
        )
        drawn, _ = self._memory_slots()
        if ops is None or not drawn:
            return
        ratio = 1.0 if self.vector else self.p.device().devicePixelRatioF()
        for slot, op in enumerate(slot_holders(self.s, self.t, drawn).tolist()):
            if op < 0:
                continue
            rect = self._slot_rect(slot, drawn)
            if rect.width() < 1:
                continue  # squeezed out of a tiny widget
            if self.vector:
                paint_held_slot(self.p, rect, op)
            else:
                pixels = round(rect.width())
                image = held_slot_image(op % len(OP_COLOURS), pixels, ratio)
                corner = QPointF(
                    rect.center().x() - pixels / 2 - 1, rect.center().y() - pixels / 2 - 1
                )
                self.p.drawPixmap(corner, image)

    # -- op boxes ------------------------------------------------------------------------

    def _boxes(self, now: OpsNow) -> None:
        room = int((self.g.shelf_in.height() - 44 - 24) // (self.g.box + 5))
        fit = max(0, min(SHELF_BOXES, room))  # as many boxes as the shelf holds
        wait_rank = {int(op): r for r, op in enumerate(now.first_waiting[:fit].tolist())}
        done_rank = {int(op): r for r, op in enumerate(now.last_done[:fit].tolist())}
        slots = slot_assignment(self.s)
        drawn, _ = self._memory_slots()
        motion = {
            int(op): (int(place), int(next_place), float(fraction))
            for op, place, next_place, fraction in zip(
                now.ops.tolist(),
                now.place.tolist(),
                now.next_place.tolist(),
                now.fraction.tolist(),
                strict=True,
            )
        }
        candidates = set(now.moving.tolist()) | set(wait_rank) | set(done_rank)
        self._shelf_counts(now.waiting, now.done)
        for op in sorted(candidates, reverse=True):
            place, next_place, fraction = motion[op]
            here = self._spot(op, place, wait_rank, done_rank, slots, drawn, arriving=False)
            if here is None:
                continue
            if fraction > 0:
                there = self._spot(
                    op, next_place, wait_rank, done_rank, slots, drawn, arriving=True
                )
                if there is not None:
                    ease = fraction * fraction * (3 - 2 * fraction)
                    here = here + (there - here) * ease
            self._box(op, here)

    def _spot(
        self,
        op: int,
        place: int,
        wait_rank: dict[int, int],
        done_rank: dict[int, int],
        slots: np.ndarray,
        drawn: int,
        arriving: bool,
    ) -> QPointF | None:
        g, size = self.g, self.g.box
        last_place = 2 * len(self.s.stage_names)
        if place == 0:
            rank = 0 if arriving else wait_rank.get(op)
            if rank is None:
                return None
            return QPointF(
                g.shelf_in.center().x(), g.shelf_in.top() + 44 + size / 2 + rank * (size + 5)
            )
        if place >= last_place:
            rank = 0 if arriving else done_rank.get(op)
            if rank is None:
                return None
            return QPointF(
                g.shelf_out.center().x(), g.shelf_out.top() + 44 + size / 2 + rank * (size + 5)
            )
        if place % 2 == 1:
            stage = place // 2
            task = int(self.s.op_task_index[op, stage])
            figure = self.figures.get(int(self.s.row[task]))
            if figure is None:
                return None
            return QPointF(figure.right() - size * 0.15, figure.bottom() - size * 0.55)
        slot = int(slots[op])
        if slot >= drawn:
            return None
        return self._slot_rect(slot, drawn).center()

    def _box(self, op: int, centre: QPointF) -> None:
        size = self.g.box
        rect = QRectF(centre.x() - size / 2, centre.y() - size / 2, size, size)
        if self.vector:
            paint_box(self.p, rect, op, self.small)
            return
        # The box is one of a few cached pixmaps (one per colour); only its number is drawn.
        pixels = round(size)
        ratio = self.p.device().devicePixelRatioF()
        corner = QPointF(centre.x() - pixels / 2 - 1, centre.y() - pixels / 2 - 1)
        self.p.drawPixmap(corner, box_image(op % len(OP_COLOURS), pixels, ratio))
        label = str(op + 1)
        self.p.setFont(self._box_font(label))
        self.p.setPen(ink_on(op_colour(op)))
        self.p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)

    def _box_font(self, label: str) -> QFont:
        return box_font(self.small, int(self.g.box), len(label))

    def _shelf_counts(self, waiting: int, done: int) -> None:
        g = self.g
        for rect, count, word in ((g.shelf_in, waiting, "waiting"), (g.shelf_out, done, "done")):
            box = QRectF(rect.left(), rect.bottom() - 20, rect.width(), 16)
            self._text(box, f"{count:,} {word}", self.small, "text", Qt.AlignmentFlag.AlignHCenter)


def box_font(base: QFont, size: int, digits: int) -> QFont:
    """The font of an op's number in a box ``size`` pixels wide."""
    font = QFont(base)
    font.setPixelSize(max(8, int(size * (0.5 if digits < 3 else 0.36))))
    return font


def paint_box(painter: QPainter, rect: QRectF, op: int, font: QFont | None) -> None:
    """One op's box: a rounded square in its colour with its number (from 1), or without
    a number when ``font`` is None."""
    colour = op_colour(op)
    painter.setPen(QPen(colour.darker(140), 1.2))
    painter.setBrush(colour)
    painter.drawRoundedRect(rect, 4, 4)
    if font is not None:
        label = str(op + 1)
        painter.setFont(box_font(font, int(rect.width()), len(label)))
        painter.setPen(ink_on(colour))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)


@lru_cache(maxsize=64)
def box_image(colour_index: int, size: int, ratio: float) -> QPixmap:
    """An empty op box in colour ``colour_index``, drawn once (with a pixel of margin for
    its outline): a tick blits these instead of drawing antialiased rounded squares."""
    pixmap = QPixmap(round((size + 2) * ratio), round((size + 2) * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    paint_box(painter, QRectF(1, 1, size, size), colour_index, None)
    painter.end()
    return pixmap


def paint_held_slot(painter: QPainter, rect: QRectF, op: int) -> None:
    """A shared-memory slot that op ``op`` holds: tinted with the op's colour."""
    fill = QColor(op_colour(op))
    fill.setAlpha(70)
    painter.setBrush(fill)
    painter.setPen(QPen(op_colour(op), 1.5))
    painter.drawRoundedRect(rect, 4, 4)


@lru_cache(maxsize=64)
def held_slot_image(colour_index: int, size: int, ratio: float) -> QPixmap:
    """`paint_held_slot` drawn once per colour and size (see `box_image`)."""
    pixmap = QPixmap(round((size + 2) * ratio), round((size + 2) * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    paint_held_slot(painter, QRectF(1, 1, size, size), colour_index)
    painter.end()
    return pixmap
