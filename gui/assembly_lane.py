"""Paints one lane of the assembly line from its layout (`gui.assembly_layout`) and the
engine's frame (`engine.analysis.assembly_model.assembly_frame`): the static parts once (cards,
titles, empty bars and slots), the moving parts every tick (status, workers, slots in
their states, chips, counts). Every text goes through `LanePainter.draw`."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from engine.analysis.assembly_model import (
    AssemblyFrame,
    Spot,
    assembly_frame,
    idle_durations,
)
from engine.analysis.derived import Derived
from engine.analysis.timeline import WorkersNow, workers_at
from engine.base.text import elided, format_time
from engine.indexes.assembly_slots import SLOT_WORDS, SlotState
from gui.assembly_paint import (
    chip_ink,
    chip_label,
    chip_pixmap,
    ease,
    paint_chip,
    paint_empty_slot,
    paint_slot,
)
from gui.assembly_parts import LaneLayout, Memory, Station, fit_text
from gui.assembly_texts import (
    memory_heading,
    memory_usage,
    pool_heading,
    pool_usage,
    slot_words,
    status_texts,
)
from gui.colours import OP_COLOURS, Theme, op_colour
from gui.icons import tinted

#: Device pixel ratio of the worker figures embedded in vector exports (sharp in print).
VECTOR_FIGURE_RATIO = 4.0
#: Each alignment's drawText flags, vertically centred (enum arithmetic is slow in Python
#: and every text of every frame goes through `LanePainter.draw`).
_CENTRED: dict[Qt.AlignmentFlag, int] = {}


class LanePainter:
    """Paints one lane: the static parts (cards, station titles, empty bars and slots) and
    the moving ones (status, workers, slots in use, chips, shelf counts)."""

    def __init__(
        self,
        painter: QPainter,
        theme: Theme,
        derived: Derived,
        time: float,
        rect: QRectF,
        layout: LaneLayout,
        travel: float,
        vector: bool = False,
    ) -> None:
        self.p = painter
        self.vector = vector  # draw shapes, not cached pixmaps (SVG, PDF)
        self.theme = theme
        self.derived = derived
        self.s = derived.schedule
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
        for pool, memory in zip(self.s.pools, lane.pools, strict=False):
            self._shelf_frame(memory, pool_heading(pool))
        self.p.restore()

    def paint_moving(self) -> None:
        self.p.save()
        self._transform()
        frame = self._frame()
        self._status(frame)
        self._workers(frame)
        if frame is not None:
            self._memory(frame)
            self._pools(frame)
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
        pools = tuple(len(memory.boxes) for memory in lane.pools)
        return assembly_frame(self.derived, self.t, self.travel, shelf, shown, pools)

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
        flags = _CENTRED.get(align)
        if flags is None:
            flags = _CENTRED[align] = int(align | Qt.AlignmentFlag.AlignVCenter)
        self.p.setFont(font)
        self.p.setPen(self.theme.colour(colour) if isinstance(colour, str) else colour)
        self.p.drawText(rect, flags, text)

    def fit(
        self,
        rect: QRectF,
        variants: tuple[str, ...],
        font: QFont,
        colour: str,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignHCenter,
    ) -> None:
        self.draw(rect, fit_text(variants, font, rect.width()), font, colour, align)

    def fit_heading(
        self, memory: Memory, headings: tuple[str, ...], usage: tuple[str, ...], font: QFont
    ) -> None:
        """A shelf's heading and use (``usage``, longest first). Roomy: one line above the
        slots, the first that fits of each of ``headings`` with the usage words it goes
        with (the longest, then shorter ones), then the usage alone; else the usage alone
        beside the slots."""
        if memory.usage is None:
            paired = zip(headings, (0, 1, 1, 2), strict=False)
            variants = (*(f"{h} · {usage[i]}" for h, i in paired), usage[1], usage[2])
            self.fit(memory.heading, variants, font, "muted", Qt.AlignmentFlag.AlignLeft)
        else:
            self.fit(memory.usage, usage, font, "muted", Qt.AlignmentFlag.AlignLeft)

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

    def _shelf_frame(self, memory: Memory, heading: tuple[str, ...]) -> None:
        """A shape's pool shelf: its card, every drawn slot as free, the slot numbers
        beside the slots and the heading's first line there (compact layouts), "+N"."""
        small = self.lane.small
        self._card(memory.card)
        for box in memory.boxes:
            paint_empty_slot(self.p, box, self.theme)
        if memory.usage is not None:
            for slot, caption in enumerate(memory.captions):
                self.draw(caption, str(slot + 1), small, "muted", Qt.AlignmentFlag.AlignRight)
            self.fit(memory.heading, heading, small, "muted", Qt.AlignmentFlag.AlignLeft)
        if memory.more is not None:
            self.fit(memory.more, (f"+{memory.hidden}",), small, "muted")

    # -- moving parts ----------------------------------------------------------------------

    def _status(self, frame: AssemblyFrame | None) -> None:
        makespan = frame_makespan(self.derived)
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
            idle = idle_durations(now, self.t, frame_makespan(self.derived))
        else:  # no tasks at all: every worker idle, never worked
            none = np.full(s.n_workers, -1, dtype=np.int64)
            now = WorkersNow(none, none, none, np.zeros(s.n_workers), np.zeros(s.n_workers))
            idle = np.zeros(s.n_workers)
        ratio = VECTOR_FIGURE_RATIO if self.vector else self.ratio
        for station in self.lane.stations:
            for cell in station.cells:
                op = int(now.op[cell.row])
                names = s.task_name  # (an imported run's: its ops are its tasks)
                named = s.task_title(op) if op >= 0 else None
                key = op if names is None else int(names[op])  # one kernel, one colour
                colour = op_colour(key) if op >= 0 else self.theme.colour("idle_hatch")
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
                    words: tuple[str, ...] = (
                        f"op {n} {stage} {pct}", f"op {n} {pct}", f"{n} · {pct}", f"{n}"
                    )  # fmt: skip
                    if named is not None:  # a kernel's or a copy's own name, cut to fit
                        words = (*(f"{elided(named, k)} {pct}" for k in (40, 20, 10)), pct)
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
        heading = memory_heading(self.s)
        self.fit_heading(memory, (heading[0], heading[0], heading[1]), usage, small)
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

    def _pools(self, frame: AssemblyFrame) -> None:
        """Each pool shelf of a shape's run: its heading with the slots in use, and each
        drawn slot in its state with the op in it (unless that op's chip sits in it) and
        what that op does in the shape's words ("6 · mma", "7 · waits mma")."""
        small = self.lane.small
        chips = frame.chips
        resting = chips.to_index[(chips.to_spot == Spot.SLOT) & (chips.fraction >= 1)]
        sitting = set(resting.tolist())
        stride = self.derived.assembly.pool_stride
        for p, (pool, memory, now) in enumerate(
            zip(self.s.pools, self.lane.pools, frame.pools, strict=False)
        ):
            heading, usage = pool_heading(pool), pool_usage(now.in_use, now.peak)
            self.fit_heading(memory, (heading[0], heading[0], heading[1], heading[2]), usage, small)
            slots = now.slots
            for slot, box in enumerate(memory.boxes):
                op, state = int(slots.op[slot]), int(slots.state[slot])
                word = slot_words(now.words[slot])
                if state != SlotState.FREE:
                    paint_slot(self.p, box, state, op, float(slots.fill[slot]), self.theme)
                    if p * stride + slot not in sitting:
                        self._number(box, op, "text")
                if memory.usage is None:
                    caption = (f"{op + 1} · {word}", word) if op >= 0 else (word,)
                    self.fit(memory.captions[slot], caption, small, "muted")
                elif memory.words:
                    self.fit(
                        memory.words[slot], (word,), small, "muted", Qt.AlignmentFlag.AlignLeft
                    )

    def _number(self, rect: QRectF, op: int, colour: str) -> None:
        text, font = chip_label(op, rect.width(), rect.height(), self.lane.small)
        self.draw(rect, text, font, colour, Qt.AlignmentFlag.AlignHCenter)

    def _shelf_counts(self, frame: AssemblyFrame) -> None:
        small = self.lane.small
        for shelf, count, word in (
            (self.lane.shelf_in, frame.waiting, "waiting"),
            (self.lane.shelf_out, frame.done, "done"),
        ):
            if shelf is None:
                continue
            hidden = count - len(shelf.spots)  # ops the shelf has no place to draw
            texts: tuple[str, ...]
            if hidden > 0:  # say so: "5 waiting" over four chips read as a miscount
                texts = (
                    f"{count:,} {word} (+{hidden:,} more)",
                    f"{len(shelf.spots)} of {count:,} {word}",
                    f"{count:,} (+{hidden:,})",
                )
            else:
                texts = (f"{count:,} {word}", f"{count:,}")
            self.fit(shelf.count, texts, small, "text")

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
        if lane.pools:
            pool, slot = divmod(index, self.derived.assembly.pool_stride)
            boxes = lane.pools[pool].boxes if pool < len(lane.pools) else ()
            return boxes[slot].center() if slot < len(boxes) else None
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
        + [memory.card.bottom() for memory in lane.pools]
        + [lane.shelf_in.card.bottom() if lane.shelf_in else 0.0]
    )
    width, height = right - rect.left(), bottom - rect.top()
    return min(1.0, rect.width() / max(1.0, width), rect.height() / max(1.0, height))


def frame_makespan(derived: Derived) -> float:
    """The Schedule's makespan; for pipelines computed once (a tick must not scan every
    task; `Schedule.makespan` is not cached)."""
    schedule = derived.schedule
    if schedule.is_pipeline and schedule.n_ops:
        return derived.assembly.makespan
    return schedule.makespan
