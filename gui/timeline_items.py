"""The Gantt's graphics items: all bars of all Schedules in ONE cached item, and the marks
(group titles, makespans) in another. The cursor is a separate light item (see timeline.py).

Bars are grouped by colour and drawn with one ``drawRects`` call per colour over a
numpy-backed QRectF array, so 100k tasks cost a handful of paint calls. Idle time is the
hatched row background showing between bars. Both items use DeviceCoordinateCache: moving
the cursor over them blits their cached pixels and never calls their ``paint``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from pyqtgraph.Qt import internals
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from engine.schedule import Schedule
from engine.view_model import format_time
from gui.colours import OP_COLOURS, Theme, ink_on

BAR_HEIGHT = 0.72
#: Up to this many bars get a thin darker outline (beyond, outlines cost more than bars).
OUTLINE_LIMIT = 20_000
#: Bars narrower than this on screen (median width, in pixels) get no outline.
OUTLINE_MIN_PIXELS = 4.0
#: At most this many op labels are drawn (only bars wide enough for their text get one).
LABEL_LIMIT = 2_000


@dataclass(frozen=True)
class RowGroup:
    """Where one Schedule's rows sit: its first row's y and a title drawn above it."""

    schedule: Schedule
    first_row: float
    title: str


def layout_groups(schedules: list[Schedule]) -> list[RowGroup]:
    """Stack the Schedules' rows top to bottom, one header row above each group."""
    groups = []
    y = 1.0
    for schedule in schedules:
        title = f"{schedule.label or schedule.policy} · {schedule.source} · {schedule.n_ops:,} ops"
        groups.append(RowGroup(schedule, y, title))
        y += schedule.n_workers + 1.2
    return groups


def _rect_array(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], w: npt.NDArray[np.float64], h: float
) -> internals.PrimitiveArray:
    array = internals.PrimitiveArray(QRectF, 4)
    array.resize(len(x))
    memory = array.ndarray()
    memory[:, 0] = x
    memory[:, 1] = y
    memory[:, 2] = w
    memory[:, 3] = h
    return array


class BarsItem(pg.GraphicsObject):
    """Every task of every Schedule as a bar in its op's colour, over hatched idle rows."""

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self._groups: list[RowGroup] = []
        self._by_colour: list[tuple[QColor, internals.PrimitiveArray]] = []
        self._rows: internals.PrimitiveArray | None = None
        self._starts = np.zeros(0)
        self._ends = np.zeros(0)
        self._typical_width = 0.0
        self._ys = np.zeros(0)
        self._ops = np.zeros(0, dtype=np.int64)
        self._bounds = QRectF()
        self.hatch = True  # vector exports turn it off (SVG viewers smear pattern brushes)
        self.paint_count = 0  # how often paint ran: the benchmark checks ticks leave it alone
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_groups(self, groups: list[RowGroup]) -> None:
        self.prepareGeometryChange()
        self._groups = groups
        starts, ends, ys, ops, rows_x, rows_y, rows_w = [], [], [], [], [], [], []
        for group in groups:
            s = group.schedule
            starts.append(s.start)
            ends.append(s.end)
            ys.append(group.first_row + s.row.astype(np.float64))
            ops.append(s.op)
            rows_y.append(group.first_row + np.arange(s.n_workers, dtype=np.float64))
            rows_x.append(np.zeros(s.n_workers))
            rows_w.append(np.full(s.n_workers, s.makespan))
        self._starts = np.concatenate(starts) if starts else np.zeros(0)
        self._ends = np.concatenate(ends) if ends else np.zeros(0)
        widths = self._ends - self._starts
        self._typical_width = float(np.median(widths)) if len(widths) else 0.0
        self._ys = np.concatenate(ys) if ys else np.zeros(0)
        self._ops = np.concatenate(ops) if ops else np.zeros(0, dtype=np.int64)
        offset = (1 - BAR_HEIGHT) / 2
        colour_of = self._ops % len(OP_COLOURS)
        self._by_colour = []
        for index, name in enumerate(OP_COLOURS):
            mask = colour_of == index
            if mask.any():
                x = self._starts[mask]
                rects = _rect_array(
                    x, self._ys[mask] - 0.5 + offset, self._ends[mask] - x, BAR_HEIGHT
                )
                self._by_colour.append((QColor(name), rects))
        if rows_y:
            y = np.concatenate(rows_y) - 0.5 + offset
            self._rows = _rect_array(np.concatenate(rows_x), y, np.concatenate(rows_w), BAR_HEIGHT)
        else:
            self._rows = None
        if groups:
            right = max((g.schedule.makespan for g in groups), default=1.0) or 1.0
            bottom = groups[-1].first_row + groups[-1].schedule.n_workers
            self._bounds = QRectF(0.0, 0.0, right, bottom)
        else:
            self._bounds = QRectF()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update()

    @property
    def bar_count(self) -> int:
        return len(self._starts)

    def boundingRect(self) -> QRectF:
        return QRectF(self._bounds)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        theme = self._theme
        if self._rows is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.colour("idle"))
            painter.drawRects(*self._rows.drawargs())
            if self.hatch:
                hatch = QBrush(theme.colour("idle_hatch"), Qt.BrushStyle.BDiagPattern)
                hatch.setTransform(painter.transform().inverted()[0])  # hatch in screen pixels
                painter.setBrush(hatch)
                painter.drawRects(*self._rows.drawargs())
        outline = self._outlined(painter)
        for colour, rects in self._by_colour:
            if outline:
                pen = QPen(colour.darker(135))
                pen.setCosmetic(True)
                painter.setPen(pen)
            else:
                painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRects(*rects.drawargs())
        self._paint_labels(painter)

    def _outlined(self, painter: QPainter) -> bool:
        """Outline bars only when there are few and they are wide on screen: around a
        bar a pixel or two wide an outline costs more than the bar and hides its colour."""
        if not 0 < self.bar_count <= OUTLINE_LIMIT:
            return False
        return self._typical_width * abs(painter.transform().m11()) >= OUTLINE_MIN_PIXELS

    def _paint_labels(self, painter: QPainter) -> None:
        """Op numbers inside bars wide enough for them, drawn in screen pixels."""
        if not self.bar_count:
            return
        transform = painter.transform()
        sx, dx = transform.m11(), transform.m31()
        sy, dy = transform.m22(), transform.m32()
        view = self.viewRect()
        if view is None or sx <= 0:
            return
        visible = (self._ends > view.left()) & (self._starts < view.right())
        px_width = (self._ends - self._starts) * sx
        font = QFont(painter.font())
        font.setPixelSize(max(9, min(13, int(abs(sy) * BAR_HEIGHT * 0.6))))
        metrics = QFontMetricsF(font)
        narrow = metrics.horizontalAdvance("888") + 6
        candidates = np.flatnonzero(visible & (px_width >= narrow))
        if not len(candidates) or len(candidates) > LABEL_LIMIT or abs(sy) * BAR_HEIGHT < 10:
            return
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        for task in candidates.tolist():
            op = int(self._ops[task])
            left = max(float(self._starts[task]), view.left()) * sx + dx
            right = min(float(self._ends[task]), view.right()) * sx + dx
            text = f"op {op + 1}"
            if metrics.horizontalAdvance(text) + 6 > right - left:
                text = str(op + 1)
                if metrics.horizontalAdvance(text) + 4 > right - left:
                    continue
            centre_y = float(self._ys[task]) * sy + dy
            painter.setPen(ink_on(QColor(OP_COLOURS[op % len(OP_COLOURS)])))
            box = QRectF(left, centre_y - metrics.height() / 2, right - left, metrics.height())
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class MarksItem(pg.GraphicsObject):
    """Group titles and each Schedule's makespan: a dashed line with its value."""

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self._groups: list[RowGroup] = []
        self._bounds = QRectF()
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_groups(self, groups: list[RowGroup]) -> None:
        self.prepareGeometryChange()
        self._groups = groups
        if groups:
            right = max(g.schedule.makespan for g in groups) or 1.0
            bottom = groups[-1].first_row + groups[-1].schedule.n_workers
            self._bounds = QRectF(0.0, 0.0, right * 1.001, bottom)
        else:
            self._bounds = QRectF()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._bounds)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self._groups:
            return
        transform = painter.transform()
        view = self.viewRect()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        font = QFont(painter.font())
        font.setPixelSize(12)
        bold = QFont(font)
        bold.setBold(True)
        left_edge = transform.map(QPointF(view.left() if view is not None else 0.0, 0.0)).x()
        for group in self._groups:
            s = group.schedule
            top = transform.map(QPointF(0.0, group.first_row - 0.5)).y()
            bottom = transform.map(QPointF(0.0, group.first_row + s.n_workers - 0.5)).y()
            x = transform.map(QPointF(s.makespan, 0.0)).x()
            painter.setFont(bold)
            painter.setPen(self._theme.colour("text"))
            title_x = max(left_edge, 0.0) + 6
            painter.drawText(QPointF(title_x, top - 6), group.title)
            title_end = title_x + QFontMetricsF(bold).horizontalAdvance(group.title)
            pen = QPen(self._theme.colour("text"), 1.5, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(QPointF(x, top - 2), QPointF(x, bottom + 2))
            painter.setFont(font)
            label = f"makespan {format_time(s.makespan, s.time_unit)}"
            width = QFontMetricsF(font).horizontalAdvance(label)
            # Left of the dashed line, unless that would run into the group's title (a
            # short run beside a long one): then right of the title.
            label_x = x - width - 4
            if label_x < title_end + 12:
                label_x = max(x + 4, title_end + 12)
            painter.drawText(QPointF(label_x, top - 6), label)
        painter.restore()
