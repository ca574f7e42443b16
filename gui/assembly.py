"""The assembly line: stations of workers, shared-memory slots and op boxes that travel
global memory → load → shared memory → compute → store → global memory, one lane per
Schedule, all on the same clock.

It only renders: where things are comes from `engine.timeline.state_at` (workers, slots)
and `engine.view_model.op_motion` (boxes, including their glide between places).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.schedule import Schedule
from engine.timeline import state_at
from engine.view_model import format_time, op_motion, slot_assignment, typical_duration
from gui.clock import Clock
from gui.colours import LIGHT, Theme, ink_on, op_colour
from gui.icons import tinted

#: Most boxes drawn on a shelf, and most slots (or boxes) drawn in shared memory.
SHELF_BOXES = 6
MEMORY_SLOTS = 16
#: Most worker figures drawn per station (the rest are counted).
FIGURES = 6


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
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(180)
        self.setAutoFillBackground(False)
        clock.time_changed.connect(self.update)

    def sizeHint(self) -> QSize:
        return QSize(1000, 420)

    def set_schedules(self, schedules: list[Schedule]) -> None:
        self._schedules = list(schedules)
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
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
        self.paint_on(painter, self._clock.time)
        painter.end()

    def paint_on(self, painter: QPainter, time: float) -> None:
        """Paint every lane at ``time`` (also used by exports, onto any paint device)."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(QRectF(self.rect()), self._theme.colour("background"))
        for rect, schedule in zip(self.lane_rects(), self._schedules, strict=False):
            _LanePainter(painter, self._theme, schedule, time, rect).paint()


class _LanePainter:
    """Paints one lane: header, shelves, stations with workers, shared memory, op boxes."""

    def __init__(
        self, painter: QPainter, theme: Theme, schedule: Schedule, time: float, rect: QRectF
    ) -> None:
        self.p = painter
        self.theme = theme
        self.s = schedule
        self.t = time
        self.g = lane_geometry(rect, schedule.n_units)
        self.state = state_at(schedule, time)
        self.font = QFont(painter.font())
        self.font.setPixelSize(12)
        self.small = QFont(self.font)
        self.small.setPixelSize(11)
        self.bold = QFont(self.font)
        self.bold.setPixelSize(13)
        self.bold.setBold(True)
        self.figures: dict[int, QRectF] = {}  # timeline row → figure rectangle

    def paint(self) -> None:
        self._header()
        self._card(self.g.shelf_in, "global memory", "input")
        self._card(self.g.shelf_out, "global memory", "output")
        for unit, rect in enumerate(self.g.stations):
            self._station(unit, rect)
        self._memory()
        if self.s.is_pipeline and self.s.n_ops:
            self._boxes()

    # -- parts ---------------------------------------------------------------------------

    def _text(
        self, rect: QRectF, text: str, font: QFont, colour: str, align: Qt.AlignmentFlag
    ) -> None:
        self.p.setFont(font)
        self.p.setPen(self.theme.colour(colour))
        self.p.drawText(rect, int(align), text)

    def _header(self) -> None:
        s, unit = self.s, self.s.time_unit
        title = f"{s.label or s.policy}" + (" (measured)" if s.source == "measured" else "")
        self._text(self.g.header, title, self.bold, "text", Qt.AlignmentFlag.AlignLeft)
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

    def _station(self, unit: int, rect: QRectF) -> None:
        s, state = self.s, self.state
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(rect, 8, 8)
        k = s.workers[unit]
        title = f"{s.unit_names[unit]} unit" + (f" × {k}" if k > 1 else "")
        self._text(
            QRectF(rect.left(), rect.top() + 4, rect.width(), 18),
            title,
            self.bold,
            "text",
            Qt.AlignmentFlag.AlignHCenter,
        )
        shown = min(k, FIGURES)
        area = rect.adjusted(8, 26, -8, -6)
        cell_w = area.width() / shown
        text_h = 30.0
        size = max(12.0, min(cell_w * 0.8, area.height() - text_h, 76.0))
        first = int(s.worker_offsets[unit])
        for w in range(shown):
            row = first + w
            cell = QRectF(area.left() + w * cell_w, area.top(), cell_w, area.height())
            top = cell.top() + max(0.0, (cell.height() - text_h - size) / 2)
            figure = QRectF(cell.center().x() - size / 2, top, size, size)
            self.figures[row] = figure
            op = int(state.worker_op[row])
            colour = op_colour(op) if op >= 0 else self.theme.colour("idle_hatch")
            image = tinted("worker", int(size), int(size), colour.rgba())
            self.p.drawImage(figure, image)
            bar = QRectF(cell.left() + 6, figure.bottom() + 3, cell.width() - 12, 6)
            label = QRectF(cell.left(), bar.bottom() + 2, cell.width(), 16)
            self.p.setPen(Qt.PenStyle.NoPen)
            self.p.setBrush(self.theme.colour("idle"))
            self.p.drawRoundedRect(bar, 3, 3)
            if op >= 0:
                fraction = float(state.worker_fraction[row])
                self.p.setBrush(colour)
                self.p.drawRoundedRect(
                    QRectF(bar.left(), bar.top(), bar.width() * fraction, bar.height()), 3, 3
                )
                stage = s.stage_names[int(state.worker_stage[row])]
                words = f"op {op + 1} {stage} {fraction:.0%}"
                self._text(label, words, self.small, "text", Qt.AlignmentFlag.AlignHCenter)
            else:
                since = float(state.worker_idle_since[row])
                idle = max(0.0, self.t - (since if np.isfinite(since) else 0.0))
                words = f"idle {format_time(idle, s.time_unit)}"
                self._text(label, words, self.small, "muted", Qt.AlignmentFlag.AlignHCenter)
        if k > shown:
            more = QRectF(rect.left(), rect.bottom() - 16, rect.width() - 6, 14)
            self._text(more, f"+{k - shown} more", self.small, "muted", Qt.AlignmentFlag.AlignRight)

    def _memory_slots(self) -> tuple[int, int, int]:
        """(slots to draw, slots the run has or used, slots in use now)."""
        in_use = self.state.slots_in_use
        if self.s.buffers > 0:
            total = self.s.buffers
        elif self.s.is_pipeline and self.s.n_ops:
            total = int(slot_assignment(self.s).max()) + 1
        else:
            total = 0
        return min(total, MEMORY_SLOTS), total, in_use

    def _slot_rect(self, slot: int, drawn: int) -> QRectF:
        m = self.g.memory
        inner = m.adjusted(10, 22, -10, -6)
        step = min(self.g.box + 14, inner.width() / max(1, drawn))
        size = min(self.g.box + 6, step - 4, inner.height())
        return QRectF(
            inner.left() + slot * step, inner.top() + (inner.height() - size) / 2, size, size
        )

    def _memory(self) -> None:
        m = self.g.memory
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(m, 8, 8)
        drawn, total, in_use = self._memory_slots()
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
        if not drawn:
            return
        holders = np.flatnonzero(self.state.op_holds_slot) if self.s.is_pipeline else []
        slots = slot_assignment(self.s) if self.s.is_pipeline and self.s.n_ops else None
        held = {int(slots[op]): int(op) for op in holders} if slots is not None else {}
        for slot in range(drawn):
            rect = self._slot_rect(slot, drawn)
            if slot in held:
                fill = QColor(op_colour(held[slot]))
                fill.setAlpha(70)
                self.p.setBrush(fill)
                self.p.setPen(QPen(op_colour(held[slot]), 1.5))
            else:
                self.p.setBrush(Qt.BrushStyle.NoBrush)
                self.p.setPen(QPen(self.theme.colour("idle_hatch"), 1.2, Qt.PenStyle.DashLine))
            self.p.drawRoundedRect(rect, 4, 4)
        if total > drawn:
            last = self._slot_rect(drawn - 1, drawn)
            self._text(
                QRectF(last.right() + 4, last.top(), 80, last.height()),
                f"+{total - drawn}",
                self.small,
                "muted",
                Qt.AlignmentFlag.AlignVCenter,
            )

    # -- op boxes ------------------------------------------------------------------------

    def _boxes(self) -> None:
        s = self.s
        motion = op_motion(s, self.t, travel=0.35 * typical_duration(s))
        last_place = 2 * len(s.stage_names)
        waiting = np.flatnonzero(motion.place == 0)
        done = np.flatnonzero(motion.place == last_place)
        room = int((self.g.shelf_in.height() - 44 - 24) // (self.g.box + 5))
        fit = max(0, min(SHELF_BOXES, room))  # as many boxes as the shelf holds
        wait_rank = {int(op): r for r, op in enumerate(waiting[:fit].tolist())}
        done_rank = {int(op): r for r, op in enumerate(done[::-1][:fit].tolist())}
        slots = slot_assignment(s)
        drawn, _, _ = self._memory_slots()
        visible = (motion.place > 0) & (motion.place < last_place) | (motion.fraction > 0)
        candidates = set(np.flatnonzero(visible).tolist()) | set(wait_rank) | set(done_rank)
        self._shelf_counts(len(waiting), len(done))
        for op in sorted(candidates, reverse=True):
            here = self._spot(
                op, int(motion.place[op]), wait_rank, done_rank, slots, drawn, arriving=False
            )
            if here is None:
                continue
            fraction = float(motion.fraction[op])
            if fraction > 0:
                there = self._spot(
                    op,
                    int(motion.next_place[op]),
                    wait_rank,
                    done_rank,
                    slots,
                    drawn,
                    arriving=True,
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
        colour = op_colour(op)
        self.p.setPen(QPen(colour.darker(140), 1.2))
        self.p.setBrush(colour)
        self.p.drawRoundedRect(rect, 4, 4)
        font = QFont(self.small)
        label = str(op + 1)
        font.setPixelSize(max(8, int(size * (0.5 if len(label) < 3 else 0.36))))
        self.p.setFont(font)
        self.p.setPen(ink_on(colour))
        self.p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)

    def _shelf_counts(self, waiting: int, done: int) -> None:
        g = self.g
        for rect, count, word in ((g.shelf_in, waiting, "waiting"), (g.shelf_out, done, "done")):
            box = QRectF(rect.left(), rect.bottom() - 20, rect.width(), 16)
            self._text(box, f"{count:,} {word}", self.small, "text", Qt.AlignmentFlag.AlignHCenter)
