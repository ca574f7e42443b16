"""The assembly line: stations of workers, numbered shared-memory slots and op chips that
travel global memory → load → shared memory → compute → store → global memory, one lane
per Schedule, all on the same clock.

It only renders. What is where comes from `engine.assembly_model.assembly_frame`: every
worker's task, the state of each slot (free, reserved, loading, held, being written, with
the op in it) and, per chip, the spot it sits at and the spot it glides from just after
its op moved. Where the parts sit comes from `gui.assembly_layout` (minimum sizes, and a
compact layout below a width instead of shrinking them).

A tick repaints only what changes: the cards, titles and empty slots are drawn once into a
pixmap (per size, theme and lane shape) and blitted; each frame draws the figures, slots,
chips and their words on top, in time independent of the number of ops.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPaintEngine, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.assembly_model import (
    SLOT_WORDS,
    AssemblyFrame,
    SlotState,
    Spot,
    assembly_frame,
    assembly_index,
    idle_durations,
)
from engine.schedule import Schedule
from engine.timeline import WorkersNow, workers_at
from engine.view_model import format_time, typical_duration
from gui.assembly_layout import (
    LaneLayout,
    LaneSpec,
    Station,
    fit_text,
    lane_minimum,
    layout_lane,
)
from gui.assembly_paint import (
    chip_ink,
    chip_label,
    chip_pixmap,
    ease,
    paint_chip,
    paint_empty_slot,
    paint_slot,
)
from gui.clock import Clock
from gui.colours import LIGHT, OP_COLOURS, Theme, op_colour
from gui.icons import tinted

#: Paint engines that keep shapes (the assembly line draws no cached pixmaps into these).
VECTOR_ENGINES = (QPaintEngine.Type.SVG, QPaintEngine.Type.Pdf, QPaintEngine.Type.Picture)
#: A chip's glide after its op moves: wall-clock seconds at the playback speed, and at
#: most this share of a typical stage (so that glides never blur into one another).
GLIDE_SECONDS = 0.3
GLIDE_SHARE = 0.35
#: Device pixel ratio of the worker figures embedded in vector exports (sharp in print).
VECTOR_FIGURE_RATIO = 4.0
#: Margins around the lanes, and between two lanes.
MARGIN_X, MARGIN_Y, LANE_GAP = 10, 6, 8


class AssemblyLineView(QWidget):
    """Draws each Schedule as an assembly line at the clock's time."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._theme = theme
        self._schedules: list[Schedule] = []
        self._specs: list[LaneSpec] = []
        self._static: QPixmap | None = None
        self._static_key: tuple[object, ...] = ()
        self.static_paints = 0  # how often the static layer was drawn (ticks leave it alone)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAutoFillBackground(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)  # we fill every pixel
        self._update_minimum()
        clock.time_changed.connect(self.update)

    def sizeHint(self) -> QSize:
        return QSize(1000, 420)

    def minimumSizeHint(self) -> QSize:
        return self.minimum_size()

    def set_schedules(self, schedules: list[Schedule]) -> None:
        self._schedules = list(schedules)
        self._specs = [lane_spec(s) for s in self._schedules]
        self._update_minimum()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._static = None
        self.update()

    # -- geometry ------------------------------------------------------------------------

    def minimum_size(self) -> QSize:
        """The smallest size at which every lane keeps its figures, chips and slots at
        their minimum sizes and no text overlaps another (the tightest layout)."""
        sizes = [lane_minimum(spec, self.font()) for spec in self._specs] or [(320, 150)]
        width = max(w for w, _ in sizes) + 2 * MARGIN_X
        height = sum(h for _, h in sizes) + LANE_GAP * (len(sizes) - 1) + 2 * MARGIN_Y
        return QSize(width, height)

    def _update_minimum(self) -> None:
        self.setMinimumSize(self.minimum_size())
        self.updateGeometry()

    def lane_rects(self) -> list[QRectF]:
        """One rectangle per Schedule, stacked top to bottom."""
        n = max(1, len(self._schedules))
        area = QRectF(self.rect()).adjusted(MARGIN_X, MARGIN_Y, -MARGIN_X, -MARGIN_Y)
        height = (area.height() - LANE_GAP * (n - 1)) / n
        return [
            QRectF(area.left(), area.top() + i * (height + LANE_GAP), area.width(), height)
            for i in range(n)
        ]

    def layouts(self) -> list[LaneLayout]:
        """Each lane's layout at the current size."""
        return [
            layout_lane(rect, spec, self.font())
            for rect, spec in zip(self.lane_rects(), self._specs, strict=False)
        ]

    def station_rects(self) -> list[list[QRectF]]:
        """Per lane, the rectangle of each station in widget pixels (tests check there)."""
        return [
            [_LanePainter.to_widget(lane, rect, s.card) for s in lane.stations]
            for lane, rect in zip(self.layouts(), self.lane_rects(), strict=False)
        ]

    def figure_rects(self) -> list[list[QRectF]]:
        """Per lane, every drawn worker figure's rectangle in widget pixels."""
        return [
            [_LanePainter.to_widget(lane, rect, c.figure) for s in lane.stations for c in s.cells]
            for lane, rect in zip(self.layouts(), self.lane_rects(), strict=False)
        ]

    def travel(self, schedule: Schedule) -> float:
        """How long (schedule time) a chip glides after its op moves: only while playing,
        so that every still frame (stepping, scrubbing, exports) is exactly the engine's
        state at that instant."""
        if not self._clock.playing:
            return 0.0
        glide = GLIDE_SECONDS * self._clock.speed * self._clock.rate
        return min(glide, GLIDE_SHARE * typical_duration(schedule))

    # -- painting --------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            engine = painter.paintEngine()
            if engine is not None and engine.type() in VECTOR_ENGINES:
                self.paint_on(painter, self._clock.time)  # rendered into an SVG or a PDF
            else:
                painter.drawPixmap(0, 0, self._static_layer())
                painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                for lane in self._lanes(painter, self._clock.time):
                    lane.paint_moving()
        finally:
            painter.end()  # an exception with the painter still active would crash Qt

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
            _LanePainter(painter, self._theme, schedule, time, rect, layout, travel, vector)
            for rect, layout, schedule, travel in zip(
                self.lane_rects(),
                self.layouts(),
                self._schedules,
                [self.travel(s) for s in self._schedules],
                strict=False,
            )
        ]

    def _static_layer(self) -> QPixmap:
        """What does not change with time, drawn once per size, theme and the lanes'
        shape (an edited duration keeps the layer; other workers or buffers redraw it)."""
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self.font(), *self._specs)
        if self._static is None or self._static_key != key:
            pixmap = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(self._theme.colour("background"))
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for lane in self._lanes(painter, self._clock.time):
                lane.paint_static()
            painter.end()
            self._static, self._static_key = pixmap, key
            self.static_paints += 1
        return self._static


# -- what a lane shows of its Schedule ----------------------------------------------------


def _widest_digits(text: str) -> str:
    return "".join("8" if c.isdigit() else c for c in text)


def _widest_time(schedule: Schedule) -> str:
    """The widest text `format_time` gives for a time in this run."""
    sample = format_time(schedule.makespan * 0.987654321 or 8.888, schedule.time_unit)
    mantissa = "8.888e+08" if "e" in sample else "8.888"
    return f"{mantissa} {schedule.time_unit}"


def memory_heading(schedule: Schedule) -> tuple[str, ...]:
    """The shared-memory heading's variants, longest first."""
    b = schedule.buffers
    if b > 0:
        return (f"shared memory · {b} slot{'s' if b != 1 else ''}", "shared memory", "memory")
    return ("shared memory · unlimited", "shared memory", "memory")


def memory_usage(schedule: Schedule, in_use: int, peak: int) -> tuple[str, ...]:
    """How many slots are in use, in words, longest first."""
    b = schedule.buffers
    if b > 0:
        return (f"{in_use} of {b} in use", f"{in_use}/{b} in use", f"{in_use}/{b}")
    return (f"{in_use} in use · peak {peak}", f"{in_use} in use", f"{in_use}")


def status_texts(schedule: Schedule, time: float, makespan: float) -> tuple[tuple[str, ...], bool]:
    """The lane's status variants at ``time`` (longest first), and whether it is done."""
    unit = schedule.time_unit
    span = format_time(makespan, unit)
    if not len(schedule):
        return ("no tasks",), False
    if time >= makespan - 1e-9 * max(1.0, makespan):
        return (f"done in {span}", span), True
    now = format_time(time, unit)
    return (f"t = {now} of {span}", f"{now} / {span}", now), False


def lane_spec(schedule: Schedule) -> LaneSpec:
    """What the layout of ``schedule``'s lane depends on (its static signature)."""
    pipeline = schedule.is_pipeline and schedule.n_ops > 0
    slots = 0
    usage_widest: tuple[str, ...] = ("",)
    if pipeline:
        index = assembly_index(schedule)
        # A measured run may hold more slots than it was given: show them all.
        slots = max(schedule.buffers, index.plan.count)
        usage_widest = tuple(
            _widest_digits(t) for t in memory_usage(schedule, max(slots, index.peak), index.peak)
        )
    widest = _widest_time(schedule)
    title = f"{schedule.label or schedule.policy}" + (
        " (measured)" if schedule.source == "measured" else ""
    )
    units = []
    for unit in range(schedule.n_units):
        variants = [schedule.unit_title(unit), schedule.unit_names[unit]]
        units.append(tuple(dict.fromkeys(variants)))
    return LaneSpec(
        title=title,
        unit_titles=tuple(units),
        workers=tuple(schedule.workers),
        slots=slots,
        pipeline=pipeline,
        status_widest=(f"t = {widest} of {widest}", f"{widest} / {widest}", widest),
        memory_heading=memory_heading(schedule),
        usage_widest=usage_widest,
        digits=len(str(max(1, schedule.n_ops))),
    )


def static_signature(schedule: Schedule) -> tuple[object, ...]:
    """Everything the static layer of a lane shows about ``schedule``."""
    return (lane_spec(schedule),)


# -- one lane -----------------------------------------------------------------------------


class _LanePainter:
    """Paints one lane: the static parts (cards, station titles, empty bars and slots) and
    the moving ones (status, workers, slots in use, chips, shelf counts)."""

    def __init__(
        self,
        painter: QPainter,
        theme: Theme,
        schedule: Schedule,
        time: float,
        rect: QRectF,
        layout: LaneLayout,
        travel: float,
        vector: bool = False,
    ) -> None:
        self.p = painter
        self.vector = vector  # draw shapes, not cached pixmaps (SVG, PDF)
        self.theme = theme
        self.s = schedule
        self.t = time
        self.rect = rect
        self.lane = layout
        self.travel = travel
        self.ratio = 1.0 if vector else painter.device().devicePixelRatioF()
        self.figures = {c.row: c.figure for st in layout.stations for c in st.cells}

    @staticmethod
    def to_widget(lane: LaneLayout, rect: QRectF, part: QRectF) -> QRectF:
        """``part`` of ``lane`` in widget pixels (a lane below its minimum is scaled)."""
        if lane.fits:
            return QRectF(part)
        scale = _scale(lane, rect)
        return QRectF(
            rect.left() + (part.left() - rect.left()) * scale,
            rect.top() + (part.top() - rect.top()) * scale,
            part.width() * scale,
            part.height() * scale,
        )

    # -- the two layers ------------------------------------------------------------------

    def paint_static(self) -> None:
        self.p.save()
        self._transform()
        lane = self.lane
        self.draw(lane.title, lane.title_text, lane.bold, "text", Qt.AlignmentFlag.AlignLeft)
        for shelf in (lane.shelf_in, lane.shelf_out):
            if shelf is not None:
                self._card(shelf.card)
                for rect, text in shelf.titles:
                    self.draw(rect, text, lane.small, "muted", Qt.AlignmentFlag.AlignHCenter)
        for station in lane.stations:
            self._station(station)
        if lane.memory is not None:
            self._memory_frame()
        self.p.restore()

    def paint_moving(self) -> None:
        self.p.save()
        self._transform()
        frame = self._frame()
        self._status(frame)
        self._workers(frame)
        if frame is not None:
            self._memory(frame)
            self._shelf_counts(frame)
            self._chips(frame)
        self.p.restore()

    def _transform(self) -> None:
        if not self.lane.fits:  # below the minimum: the tightest layout, scaled down
            scale = _scale(self.lane, self.rect)
            self.p.translate(self.rect.topLeft())
            self.p.scale(scale, scale)
            self.p.translate(-self.rect.topLeft())

    def _frame(self) -> AssemblyFrame | None:
        lane = self.lane
        if lane.shelf_in is None or lane.shelf_out is None:
            return None  # not a pipeline: no ops travel
        shelf = max(len(lane.shelf_in.spots), len(lane.shelf_out.spots))
        shown = len(lane.memory.boxes) if lane.memory is not None else 0
        return assembly_frame(self.s, self.t, self.travel, shelf, shown)

    # -- texts -----------------------------------------------------------------------------

    def draw(
        self,
        rect: QRectF,
        text: str,
        font: QFont,
        colour: str | QColor,
        align: Qt.AlignmentFlag,
    ) -> None:
        """Draw ``text`` (already chosen to fit) in ``rect``, vertically centred, in a
        theme colour (by name) or ``colour``. Every text of the lane goes through here."""
        if not text:
            return
        self.p.setFont(font)
        self.p.setPen(self.theme.colour(colour) if isinstance(colour, str) else colour)
        self.p.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), text)

    def fit(
        self,
        rect: QRectF,
        variants: tuple[str, ...],
        font: QFont,
        colour: str,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignHCenter,
    ) -> None:
        self.draw(rect, fit_text(variants, font, rect.width()), font, colour, align)

    # -- static parts ----------------------------------------------------------------------

    def _card(self, rect: QRectF) -> None:
        self.p.setPen(QPen(self.theme.colour("grid"), 1))
        self.p.setBrush(self.theme.colour("surface"))
        self.p.drawRoundedRect(rect, 8, 8)

    def _station(self, station: Station) -> None:
        """Frame, title, empty progress bars and the "+k more" count of one station."""
        lane = self.lane
        self._card(station.card)
        self.draw(
            station.title, station.title_text, lane.bold, "text", Qt.AlignmentFlag.AlignHCenter
        )
        self.p.setPen(Qt.PenStyle.NoPen)
        self.p.setBrush(self.theme.colour("idle"))
        for cell in station.cells:
            self.p.drawRoundedRect(cell.bar, 2.5, 2.5)
        if station.more is not None:
            k = station.more_count
            self.fit(station.more, (f"+{k} more", f"+{k}"), lane.small, "muted")

    def _memory_frame(self) -> None:
        """The shared-memory card, every drawn slot as free, the slot numbers beside the
        slots (compact layouts), the heading's first line there, and "+N" for the rest."""
        memory, small = self.lane.memory, self.lane.small
        assert memory is not None
        self._card(memory.card)
        for box in memory.boxes:
            paint_empty_slot(self.p, box, self.theme)
        if memory.usage is not None:  # compact: numbers beside the slots, heading on two lines
            for slot, caption in enumerate(memory.captions):
                self.draw(caption, str(slot + 1), small, "muted", Qt.AlignmentFlag.AlignRight)
            self.fit(
                memory.heading, memory_heading(self.s), small, "muted", Qt.AlignmentFlag.AlignLeft
            )
        if memory.more is not None:
            self.fit(memory.more, (f"+{memory.hidden}",), small, "muted")

    # -- moving parts ----------------------------------------------------------------------

    def _status(self, frame: AssemblyFrame | None) -> None:
        makespan = frame_makespan(self.s)
        variants, done = status_texts(self.s, self.t, makespan)
        self.fit(
            self.lane.status,
            variants,
            self.lane.bold,
            "done" if done else "muted",
            Qt.AlignmentFlag.AlignRight,
        )

    def _workers(self, frame: AssemblyFrame | None) -> None:
        """Each drawn worker: its figure in its op's colour (grey when idle), its progress
        and what it does, or how long it has been idle."""
        s, small = self.s, self.lane.small
        if frame is not None:
            now, idle = frame.workers, frame.idle
        elif len(s):
            now = workers_at(s, self.t)
            idle = idle_durations(now, self.t, frame_makespan(s))
        else:  # no tasks at all: every worker idle, never worked
            none = np.full(s.n_workers, -1, dtype=np.int64)
            now = WorkersNow(none, none, none, np.zeros(s.n_workers), np.zeros(s.n_workers))
            idle = np.zeros(s.n_workers)
        ratio = VECTOR_FIGURE_RATIO if self.vector else self.ratio
        for station in self.lane.stations:
            for cell in station.cells:
                op = int(now.op[cell.row])
                colour = op_colour(op) if op >= 0 else self.theme.colour("idle_hatch")
                size = int(cell.figure.width())
                image = tinted("worker", size, size, colour.rgba(), ratio)
                self.p.drawImage(cell.figure.topLeft(), image)
                if op >= 0:
                    fraction = float(now.fraction[cell.row])
                    bar = cell.bar
                    self.p.setPen(Qt.PenStyle.NoPen)
                    self.p.setBrush(colour)
                    self.p.drawRoundedRect(
                        QRectF(bar.left(), bar.top(), bar.width() * fraction, bar.height()),
                        2.5,
                        2.5,
                    )
                    stage = s.stage_names[int(now.stage[cell.row])]
                    n, pct = op + 1, f"{fraction:.0%}"
                    words = (f"op {n} {stage} {pct}", f"op {n} {pct}", f"{n} · {pct}", f"{n}")
                    self.fit(cell.label, words, small, "text")
                else:
                    spent = format_time(float(idle[cell.row]), s.time_unit)
                    self.fit(cell.label, (f"idle {spent}", "idle"), small, "muted")

    def _memory(self, frame: AssemblyFrame) -> None:
        """The heading with the slots in use, and each drawn slot in its state with the op
        in it (unless that op's chip sits in it) and its caption."""
        memory, small = self.lane.memory, self.lane.small
        if memory is None:
            return
        usage = memory_usage(self.s, frame.in_use, frame.peak)
        if memory.usage is None:  # roomy: one heading line above the slots
            heading = memory_heading(self.s)
            variants = (
                f"{heading[0]} · {usage[0]}",
                f"{heading[0]} · {usage[1]}",
                f"{heading[1]} · {usage[1]}",
                usage[1],
                usage[2],
            )
            self.fit(memory.heading, variants, small, "muted", Qt.AlignmentFlag.AlignLeft)
        else:
            self.fit(memory.usage, usage, small, "muted", Qt.AlignmentFlag.AlignLeft)
        chips = frame.chips
        sitting = set(chips.to_index[(chips.to_spot == Spot.SLOT) & (chips.fraction >= 1)].tolist())
        for slot, box in enumerate(memory.boxes):
            op, state = int(frame.slots.op[slot]), int(frame.slots.state[slot])
            if state != SlotState.FREE:
                paint_slot(self.p, box, state, op, float(frame.slots.fill[slot]), self.theme)
                if slot not in sitting:
                    self._number(box, op, "text")
            word = SLOT_WORDS[SlotState(state)]
            if memory.usage is None:
                caption = (f"{slot + 1} · {word}", f"{slot + 1}")
                self.fit(memory.captions[slot], caption, small, "muted")
            elif memory.words:
                self.fit(memory.words[slot], (word,), small, "muted", Qt.AlignmentFlag.AlignLeft)

    def _number(self, rect: QRectF, op: int, colour: str) -> None:
        text, font = chip_label(op, rect.width(), rect.height(), self.lane.small)
        self.draw(rect, text, font, colour, Qt.AlignmentFlag.AlignHCenter)

    def _shelf_counts(self, frame: AssemblyFrame) -> None:
        small = self.lane.small
        for shelf, count, word in (
            (self.lane.shelf_in, frame.waiting, "waiting"),
            (self.lane.shelf_out, frame.done, "done"),
        ):
            if shelf is not None:
                self.fit(shelf.count, (f"{count:,} {word}", f"{count:,}"), small, "text")

    # -- chips ------------------------------------------------------------------------------

    def _spot(self, spot: int, index: int) -> QPointF | None:
        """Where a chip at ``spot`` / ``index`` sits (None: not drawn)."""
        lane, chip = self.lane, self.lane.chip
        if index < 0:
            return None
        if spot == Spot.INPUT or spot == Spot.OUTPUT:
            shelf = lane.shelf_in if spot == Spot.INPUT else lane.shelf_out
            if shelf is None or index >= len(shelf.spots):
                return None
            return shelf.spots[index]
        if spot == Spot.WORKER:
            figure = self.figures.get(index)
            if figure is None:
                return None
            width = lane.chip_width
            return QPointF(
                figure.right() - min(width, figure.width()) / 2, figure.bottom() - chip / 2
            )
        if lane.memory is None or index >= len(lane.memory.boxes):
            return None
        return lane.memory.boxes[index].center()

    def _chips(self, frame: AssemblyFrame) -> None:
        chips = frame.chips
        rows = zip(
            chips.op.tolist(),
            chips.from_spot.tolist(),
            chips.from_index.tolist(),
            chips.to_spot.tolist(),
            chips.to_index.tolist(),
            chips.fraction.tolist(),
            strict=True,
        )
        # Chips that glide are drawn last (on top), higher ops below lower ones.
        for op, from_spot, from_index, to_spot, to_index, fraction in sorted(
            rows, key=lambda r: (r[5] < 1, -r[0])
        ):
            here = self._spot(to_spot, to_index)
            if here is None:
                continue
            if fraction < 1:
                there = self._spot(from_spot, from_index)
                if there is not None:
                    here = there + (here - there) * ease(fraction)
            self._chip(op, here)

    def _chip(self, op: int, centre: QPointF) -> None:
        width, height = self.lane.chip_width, self.lane.chip
        rect = QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height)
        if self.vector:
            paint_chip(self.p, rect, op)
        else:
            w, h = round(width), round(height)
            corner = QPointF(math.floor(rect.left() + 0.5) - 1, math.floor(rect.top() + 0.5) - 1)
            self.p.drawPixmap(corner, chip_pixmap(op % len(OP_COLOURS), w, h, self.ratio))
            rect = QRectF(corner.x() + 1, corner.y() + 1, w, h)
        text, font = chip_label(op, width, height, self.lane.small)
        self.draw(rect, text, font, chip_ink(op), Qt.AlignmentFlag.AlignHCenter)


def _scale(lane: LaneLayout, rect: QRectF) -> float:
    right = max(
        [s.card.right() for s in lane.stations]
        + [lane.shelf_out.card.right() if lane.shelf_out else 0.0, lane.status.right()]
    )
    bottom = max(
        [s.card.bottom() for s in lane.stations]
        + [lane.memory.card.bottom() if lane.memory else 0.0]
        + [lane.shelf_in.card.bottom() if lane.shelf_in else 0.0]
    )
    width, height = right - rect.left(), bottom - rect.top()
    return min(1.0, rect.width() / max(1.0, width), rect.height() / max(1.0, height))


def frame_makespan(schedule: Schedule) -> float:
    """The Schedule's makespan; for pipelines computed once (a tick must not scan every
    task; `Schedule.makespan` is not cached)."""
    if schedule.is_pipeline and schedule.n_ops:
        return assembly_index(schedule).makespan
    return schedule.makespan
