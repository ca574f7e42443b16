"""The Gantt's graphics items: all bars of all Schedules in ONE cached item, the marks
(group titles, makespans) in another, and the row axis. The cursor is a separate light
item (see timeline.py).

Rows are workers or ops (`gui.figure.rows`). What a frame draws follows the pixels, not
the tasks: `gui.figure.bars.plan_bars` (shared with every export) keeps the tasks at least
two pixels wide as bars, grouped by colour into one ``drawRects`` call each, and draws the
rest as density: each pixel column's busy share per row, a few shaded rectangles per row.
Zooming in widens bars and brings them back. Idle spans are hatched in their reason's
style (`gui.colours.IDLE_STYLES`). Both items use DeviceCoordinateCache: moving the cursor
blits their cached pixels and never calls their ``paint``; a zoom, pan or resize repaints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from pyqtgraph.Qt import internals
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from engine.analysis.derived import Derived
from engine.base.text import count_words, format_time
from engine.model.columns import median_of, sorted_unique
from engine.model.schedule import Schedule
from gui.colours import OP_COLOURS, Theme, density_colours, idle_style, ink_on
from gui.figure.bars import BAR_HEIGHT, THIN_PIXELS, BarPlan, LazyRows, plan_bars
from gui.figure.kinds import kind_of
from gui.figure.legend import Entry, legend_entries, legend_figure
from gui.figure.model import Figure
from gui.figure.painter import render_image
from gui.figure.row_labels import nice_step
from gui.figure.rows import idle_spans_in, row_count, row_label, rows_of, task_index
from gui.timeline_rows import LABEL_MIN_PITCH, MIN_GAP, bar_label_size, label_font_size

#: Up to this many bars get a thin darker outline (beyond, outlines cost more than bars).
OUTLINE_LIMIT = 20_000
#: Bars narrower than this on screen (median width, in pixels) get no outline.
OUTLINE_MIN_PIXELS = 4.0
#: At most this many op labels are drawn (only bars wide enough for their text get one).
LABEL_LIMIT = 2_000
#: Op numbers (one row per op) keep at least this many pixels apart.
LABEL_PIXELS = 13.0
#: Qt's hatch brush of each hatch direction set (pixel patterns: cheap on screen).
HATCH_BRUSHES = {
    (45,): Qt.BrushStyle.BDiagPattern,
    (-45,): Qt.BrushStyle.FDiagPattern,
    (45, -45): Qt.BrushStyle.DiagCrossPattern,
    (0,): Qt.BrushStyle.HorPattern,
    (90,): Qt.BrushStyle.VerPattern,
}


@dataclass(frozen=True)
class RowGroup:
    """Where one Schedule's rows sit: its first row's y, a title drawn above it, and
    whether its rows are workers or ops; with the Schedule's `Derived` (its run's), which
    the bars, hatches and hover read."""

    derived: Derived
    first_row: float
    title: str
    rows: str = "workers"

    @property
    def schedule(self) -> Schedule:
        return self.derived.schedule

    @property
    def n_rows(self) -> int:
        return row_count(self.schedule, self.rows)


def layout_groups(
    derived: list[Derived], rows: str = "workers", gap: float = MIN_GAP
) -> list[RowGroup]:
    """Stack the Schedules' rows (each given by its `Derived`) top to bottom, from y = 0,
    with ``gap`` rows between a group's first row and the rows above it (or the top) for
    its title; the view works ``gap`` out from its height in pixels
    (`gui.timeline_rows.fit_rows`)."""
    groups = []
    y = gap + 0.5
    for one in derived:
        schedule = one.schedule
        ops = count_words(schedule.n_ops, *kind_of(schedule).op_nouns)  # "3 ops", "98 activities"
        title = f"{schedule.label or schedule.policy} · {schedule.source} · {ops}"
        group = RowGroup(one, y, title, rows)
        groups.append(group)
        y += group.n_rows + gap
    return groups


def _rect_array(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    h: float | npt.NDArray[np.float64],
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
    """Every task of every Schedule as a bar in its op's colour (or, where bars are
    thinner than a pixel, as density), over pale rows with hatched idle spans."""

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self._groups: list[RowGroup] = []
        self._bounds = QRectF()
        self.hatch = True  # hatch idle spans (the exports draw their own figure)
        # The last paint's plans, by what they were planned from: a repaint of a group
        # whose Schedule and view are unchanged (the sequential run of an edit of the
        # slots, a theme change) plans nothing again.
        self._plans: dict[tuple[object, ...], BarPlan] = {}
        self._planned: dict[tuple[object, ...], BarPlan] = {}
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_groups(self, groups: list[RowGroup]) -> None:
        self.prepareGeometryChange()
        self._groups = groups
        if groups:
            right = max((g.schedule.makespan for g in groups), default=1.0) or 1.0
            bottom = groups[-1].first_row + groups[-1].n_rows
            self._bounds = QRectF(0.0, 0.0, right, bottom)
        else:
            self._bounds = QRectF()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update()

    @property
    def bar_count(self) -> int:
        return sum(len(g.schedule) for g in self._groups)

    def boundingRect(self) -> QRectF:
        return QRectF(self._bounds)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        view = self.viewRect()
        transform = painter.transform()
        sx, sy = abs(transform.m11()), abs(transform.m22())
        if view is None or sx <= 0 or sy <= 0:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        labels: list[tuple[RowGroup, np.ndarray, np.ndarray]] = []
        self._planned = {}
        for group in self._groups:
            drawn = self._paint_group(painter, group, view, sx, sy)
            if drawn is not None:
                labels.append((group, *drawn))
        self._plans = self._planned  # only this paint's: the old runs' go with them
        for group, wide, rows in labels:
            self._paint_labels(painter, group, wide, rows)

    def _paint_group(
        self, painter: QPainter, group: RowGroup, view: QRectF, sx: float, sy: float
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Plan and draw one group for the view: O(pixels + visible work), not O(tasks)
        (rows per worker: through the tasks' index; rows per op: the ops in view)."""
        s, theme = group.schedule, self._theme
        offset = group.first_row
        r0 = max(0, int(np.floor(view.top() - offset - 0.5)))
        r1 = min(group.n_rows, int(np.ceil(view.bottom() - offset + 0.5)) + 1)
        t0, t1 = max(0.0, view.left()), min(s.makespan, view.right())
        if s.makespan <= 0 or r1 <= r0 or t1 <= t0:
            return None
        tasks: slice | np.ndarray | None
        rows: npt.NDArray[np.int64] | LazyRows
        if group.rows == "workers":
            tasks, index = None, task_index(group.derived)
            start, end, n_rows, first = s.start, s.end, group.n_rows, 0
            rows = LazyRows(s.rows_of, lambda: s.row)  # (the column is not kept)
        elif s.op_major:  # only the ops in view: one slice of the columns
            stages = len(s.stage_names)
            tasks, index = slice(r0 * stages, r1 * stages), None
            start, end, rows = s.start[tasks], s.end[tasks], s.op[tasks] - r0
            n_rows, first = r1 - r0, r0
        else:  # only the ops in view
            tasks, index = self._op_tasks(s, r0, r1), None
            start, end, rows = s.start[tasks], s.end[tasks], s.op[tasks] - r0
            n_rows, first = r1 - r0, r0
        key = (s, group.rows, r0, r1, t0, t1, sx, sy)
        plan = self._plans.get(key)
        if plan is None:
            plan = plan_bars(
                start,
                end,
                rows,
                n_rows=n_rows,
                t0=t0,
                t1=t1,
                pixels=(t1 - t0) * sx,
                row_pixels=sy,
                capacity=s.n_workers if group.rows == "ops" else None,
                index=index,
            )
        self._planned[key] = plan
        painter.setPen(Qt.PenStyle.NoPen)
        if group.rows == "workers":
            self._paint_idle_rows(painter, group, s.makespan)
        if self.hatch and not plan.banded and plan.gaps:
            self._paint_hatch(painter, group, t0, t1, sx, r0, r1)
        if plan.density is not None and len(plan.density):
            base = "idle" if group.rows == "workers" else "background"
            colours = density_colours(theme, base)
            runs = plan.density
            for level in sorted_unique(runs.level).tolist():
                mask = runs.level == level
                array = _rect_array(
                    runs.t[mask],
                    runs.top[mask] + offset + first,
                    runs.length[mask],
                    runs.bottom[mask] - runs.top[mask],
                )
                painter.setBrush(colours[level])
                painter.drawRects(*array.drawargs())
        if tasks is None:
            wide = plan.wide
        elif isinstance(tasks, slice):
            wide = plan.wide + tasks.start
        else:
            wide = tasks[plan.wide]
        if not len(wide):
            return None
        task_row = rows_of(s, group.rows, wide)
        starts, ends = s.start[wide], s.end[wide]
        ys = task_row + offset - BAR_HEIGHT / 2
        outline = len(wide) <= OUTLINE_LIMIT and median_of(ends - starts) * sx >= OUTLINE_MIN_PIXELS
        colour_of = kind_of(s).colour_keys(s, wide) % len(OP_COLOURS)  # (a kernel: its name)
        for colour_index, name in enumerate(OP_COLOURS):
            mask = colour_of == colour_index
            if not mask.any():
                continue
            colour = QColor(name)
            if outline:
                pen = QPen(colour.darker(135))
                pen.setCosmetic(True)
                painter.setPen(pen)
            else:
                painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            array = _rect_array(starts[mask], ys[mask], ends[mask] - starts[mask], BAR_HEIGHT)
            painter.drawRects(*array.drawargs())
        return wide, task_row

    @staticmethod
    def _op_tasks(s: Schedule, r0: int, r1: int) -> np.ndarray:
        """The tasks of ops r0 .. r1 - 1."""
        if s.is_pipeline:
            return np.asarray(
                s.task_of(np.arange(r0, r1)[:, None], np.arange(len(s.stage_names))).ravel(),
                dtype=np.int64,
            )
        return np.flatnonzero((s.op >= r0) & (s.op < r1))

    def _paint_idle_rows(self, painter: QPainter, group: RowGroup, span: float) -> None:
        n = group.n_rows
        y = group.first_row + np.arange(n, dtype=np.float64) - BAR_HEIGHT / 2
        array = _rect_array(np.zeros(n), y, np.full(n, span), BAR_HEIGHT)
        painter.setBrush(self._theme.colour("idle"))
        painter.drawRects(*array.drawargs())

    def _paint_hatch(
        self, painter: QPainter, group: RowGroup, t0: float, t1: float, sx: float, r0: int, r1: int
    ) -> None:
        """Waits at least `THIN_PIXELS` wide in their reason's style: its tint where it
        differs from what lies under (the pale idle row; one row per op: the background),
        then its hatch (the pattern in screen pixels, whatever the zoom)."""
        shortest = THIN_PIXELS / sx
        spans = idle_spans_in(group.derived, group.rows, t0, t1, range(r0, r1), shortest)
        if not len(spans):
            return
        if spans.engine is not None:  # those in view and long enough only
            found = np.arange(len(spans))
        else:  # all of them (op by op): those of the ops in view
            lo, hi = np.searchsorted(spans.row, [r0, r1])
            found = np.arange(lo, hi)
            found = found[(spans.end[found] - spans.start[found] >= shortest)]
            found = found[(spans.end[found] >= t0) & (spans.start[found] <= t1)]
        if not len(found):
            return
        screen = painter.transform().inverted()[0]
        theme = self._theme
        under = theme.idle if group.rows == "workers" else theme.background
        codes = spans.code[found]
        for code, reason in enumerate(spans.reasons):
            pick = found[codes == code]
            if not len(pick):
                continue
            style = idle_style(reason)
            a = np.maximum(spans.start[pick], t0)
            b = np.minimum(spans.end[pick], t1)
            y = spans.row[pick] + group.first_row - BAR_HEIGHT / 2
            array = _rect_array(a, y, b - a, BAR_HEIGHT)
            tint = getattr(theme, style.tint)
            if tint != under:
                painter.setBrush(QColor(tint))
                painter.drawRects(*array.drawargs())
            brush_style = HATCH_BRUSHES.get(style.angles)
            if brush_style is None:
                continue
            brush = QBrush(theme.colour("idle_hatch"), brush_style)
            brush.setTransform(screen)
            painter.setBrush(brush)
            painter.drawRects(*array.drawargs())

    def _paint_labels(
        self, painter: QPainter, group: RowGroup, wide: np.ndarray, rows: np.ndarray
    ) -> None:
        """Op numbers (an imported activity: its name; one row per op: stage names)
        inside bars wide enough for them, drawn in screen pixels."""
        transform = painter.transform()
        sx, dx = transform.m11(), transform.m31()
        sy, dy = transform.m22(), transform.m32()
        view = self.viewRect()
        if view is None or sx <= 0:
            return
        s = group.schedule
        starts = np.maximum(s.start[wide], view.left())
        ends = np.minimum(s.end[wide], view.right())
        px_width = (ends - starts) * sx
        size = bar_label_size(abs(sy) * BAR_HEIGHT)
        if size is None:
            return
        font = QFont(painter.font())
        font.setPixelSize(size)
        metrics = QFontMetricsF(font)
        candidates = np.flatnonzero(px_width >= metrics.horizontalAdvance("8") + 4)
        if not len(candidates) or len(candidates) > LABEL_LIMIT:
            return
        kind = kind_of(s)
        keys = kind.colour_keys(s, wide[candidates])
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        for k, key in zip(candidates.tolist(), keys.tolist(), strict=True):
            task = int(wide[k])
            left, right = float(starts[k]) * sx + dx, float(ends[k]) * sx + dx
            if group.rows == "ops":
                name = s.stage_names[int(s.stage[task])]
                words = [name, name[:1]]
            else:
                words = kind.bar_words(s, int(s.op[task]))  # "op 3"; a kernel's name
            text = next((w for w in words if metrics.horizontalAdvance(w) + 6 <= right - left), "")
            if not text:
                continue
            centre_y = (float(rows[k]) + group.first_row) * sy + dy
            painter.setPen(ink_on(QColor(OP_COLOURS[key % len(OP_COLOURS)])))
            box = QRectF(left, centre_y - metrics.height() / 2, right - left, metrics.height())
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class RowAxis(pg.AxisItem):
    """The left axis: every worker row's name (in a slightly smaller font where rows are
    short: skipped only when rows are under `LABEL_MIN_PITCH` pixels apart), or op
    numbers at a round step that keeps labels apart (one row per op can mean 10^5 rows)."""

    def __init__(self) -> None:
        super().__init__("left")
        self._groups: list[RowGroup] = []
        self._rows_drawn: tuple[object, ...] = ()  # `_rows_signature` of the drawn ticks
        self._words: dict[float, str] = {}
        self._font_size = label_font_size(LABEL_PIXELS)

    def set_groups(self, groups: list[RowGroup]) -> None:
        rows = _rows_signature(groups)
        self._groups = groups
        if rows == self._rows_drawn and ticks_drawn(self):
            return  # an edit that keeps the rows and their names: the ticks stand
        self._rows_drawn = rows
        self.picture = None  # redraw the ticks
        self.fit_width()
        self.update()

    def setRange(self, mn: float, mx: float) -> None:
        """pyqtgraph redraws the ticks at every range it is told, changed or not (each
        edit tells it the rows' range again); the rows' labels only move with the range.
        A resize redraws them (`resizeEvent`); this axis draws no grid."""
        if ticks_drawn(self) and [mn, mx] == self.range:
            return
        super().setRange(mn, mx)

    @property
    def font_size(self) -> int:
        """The names' pixel size now."""
        return self._font_size

    def apply_font(self) -> None:
        """Set the tick font at the size the rows allow (the theme sets it afresh)."""
        font = QFont()
        font.setPixelSize(self._font_size)
        self.setStyle(tickFont=font)
        self.fit_width()

    def set_row_pitch(self, pitch: float) -> None:
        """Size worker names for rows ``pitch`` pixels apart (op numbers keep full size)."""
        workers = not self._groups or self._groups[0].rows == "workers"
        size = label_font_size(pitch if workers else LABEL_PIXELS)
        if size != self._font_size:
            self._font_size = size
            self.apply_font()

    def longest_label(self) -> str:
        """The widest words any row may show: every worker row's name, or the first and
        last op's ("op 1,000,000")."""
        words = [""]
        for group in self._groups:
            n = group.n_rows
            rows = range(n) if group.rows == "workers" else {0, max(0, n - 1)}
            words += [row_label(group.schedule, group.rows, r) for r in rows if r < n]
        font = self.style.get("tickFont") or self.font()
        metrics = QFontMetricsF(font)
        return max(words, key=metrics.horizontalAdvance)

    def fit_width(self) -> None:
        """Make room for the longest row label in the tick font (pyqtgraph widens an axis
        only after it has drawn a label too wide, and then clips the first frame)."""
        font = self.style.get("tickFont") or self.font()
        text = QFontMetricsF(font).horizontalAdvance(self.longest_label())
        offset = self.style["tickTextOffset"][0] + max(0, self.style["tickLength"])
        self.setWidth(int(np.ceil(text + offset + 6)))

    def labels(self, low: float, high: float, pixels: float) -> list[tuple[float, str]]:
        """(row coordinate, words) of the rows labelled when rows ``low`` to ``high``
        are shown over ``pixels`` pixels."""
        low, high = sorted((low, high))
        per_row = pixels / max(high - low, 1e-9)
        out: list[tuple[float, str]] = []
        for group in self._groups:
            n = group.n_rows
            first = max(0, int(np.ceil(low - group.first_row)))
            last = min(n - 1, int(np.floor(high - group.first_row)))
            if last < first:
                continue
            spacing = LABEL_MIN_PITCH if group.rows == "workers" else LABEL_PIXELS
            step = max(1, int(nice_step(spacing / per_row))) if per_row < spacing else 1
            rows: list[int]
            if step <= 2:
                rows = list(range(first - first % step, last + 1, step))
            else:  # op 1, then round numbers: op 250, op 500, …
                multiples = range(max(1, (first + 1) // step) * step - 1, last + 1, step)
                rows = [0, *(r for r in multiples if r >= step // 2)]
            rows = [r for r in rows if first <= r <= last]
            out += [(group.first_row + r, row_label(group.schedule, group.rows, r)) for r in rows]
        return out

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        labels = self.labels(minVal, maxVal, size)
        self._words = dict(labels)
        return [(1.0, [value for value, _ in labels])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [self._words.get(value, "") for value in values]


def ticks_drawn(axis: pg.AxisItem) -> bool:
    """Whether ``axis`` holds its drawn ticks (pyqtgraph's ``picture``; None: redraw)."""
    return getattr(axis, "picture", None) is not None


def _rows_signature(groups: list[RowGroup]) -> tuple[object, ...]:
    """What the row axis draws from the groups: where each starts, its rows and (worker
    rows) their names; op rows are named by number."""
    return tuple(
        (
            g.first_row,
            g.rows,
            g.n_rows,
            tuple(g.schedule.row_label(r) for r in range(g.n_rows)) if g.rows == "workers" else (),
        )
        for g in groups
    )


@dataclass(frozen=True)
class MarkBoxes:
    """Where the last paint put one group's title and makespan label, beside the pixel
    rows they must stay clear of (all in the paint's pixels, y down): the top edge of the
    group's first row, the bottom of the bars of the group above (or the view's top),
    and the view's right edge. Tests check these; nothing else reads them."""

    title: QRectF
    label: QRectF
    rows_top: float
    above_bottom: float
    right_edge: float


#: The group titles' and makespan labels' text, in px.
MARK_TEXT_PX = 12
#: From the plot's left edge to a group's title, px.
MARK_INSET = 6.0
#: From a makespan label to its dashed line (and to the plot's right edge), px.
MARK_GAP = 4.0
#: The least room between a group's title and its makespan label, px.
MARK_SEPARATION = 12.0
#: From a group's first row's top edge up to the baseline of its title, px.
MARK_BASELINE = 6.0
#: The dashed makespan line: its width, and how far it runs past the group's rows, px.
MAKESPAN_PEN = 1.5
MAKESPAN_OVERHANG = 2.0


class MarksItem(pg.GraphicsObject):
    """Group titles and each Schedule's makespan: a dashed line with its value. Both
    texts stay inside the view: a makespan label that would run off its right edge moves
    left, and a title that would run into its label is cut with "…"."""

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self._groups: list[RowGroup] = []
        self._bounds = QRectF()
        self._right = 0.0
        self.drawn: list[MarkBoxes] = []  # per group, from the last paint
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_groups(self, groups: list[RowGroup]) -> None:
        self._groups = groups
        self._fit_bounds()

    def set_right(self, right: float) -> None:
        """The latest time the view may show: labels are drawn up to there (the cached
        picture is clipped to the bounds)."""
        if right != self._right:
            self._right = right
            self._fit_bounds()

    def _fit_bounds(self) -> None:
        self.prepareGeometryChange()
        if self._groups:
            right = max(g.schedule.makespan for g in self._groups) or 1.0
            right = max(right * 1.001, self._right)
            bottom = self._groups[-1].first_row + self._groups[-1].n_rows
            self._bounds = QRectF(0.0, 0.0, right, bottom)
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
        self.drawn = []
        if not self._groups:
            return
        transform = painter.transform()
        view = self.viewRect()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        font = QFont(painter.font())
        font.setPixelSize(MARK_TEXT_PX)
        bold = QFont(font)
        bold.setBold(True)
        plain, heavy = QFontMetricsF(font), QFontMetricsF(bold)
        left_edge = transform.map(QPointF(view.left() if view is not None else 0.0, 0.0)).x()
        right_edge = (
            transform.map(QPointF(view.right(), 0.0)).x() if view is not None else float("inf")
        )
        above = transform.map(QPointF(0.0, view.top() if view is not None else 0.0)).y()
        for group in self._groups:
            s = group.schedule
            top = transform.map(QPointF(0.0, group.first_row - 0.5)).y()
            bottom = transform.map(QPointF(0.0, group.first_row + group.n_rows - 0.5)).y()
            x = transform.map(QPointF(s.makespan, 0.0)).x()
            label = f"makespan {format_time(s.makespan, s.time_unit)}"
            width = plain.horizontalAdvance(label)
            title_x = max(left_edge, 0.0) + MARK_INSET
            title_end = title_x + heavy.horizontalAdvance(group.title)
            # Left of the dashed line, unless that would run into the group's title (a
            # short run beside a long one): then right of the title; never past the edge.
            label_x = x - width - MARK_GAP
            if label_x < title_end + MARK_SEPARATION:
                label_x = max(x + MARK_GAP, title_end + MARK_SEPARATION)
            label_x = max(title_x, min(label_x, right_edge - width - MARK_GAP))
            title = group.title
            if title_end + MARK_SEPARATION > label_x:
                room = max(0.0, label_x - MARK_SEPARATION - title_x)
                title = heavy.elidedText(title, Qt.TextElideMode.ElideRight, room)
            painter.setFont(bold)
            painter.setPen(self._theme.colour("text"))
            baseline = top - MARK_BASELINE
            painter.drawText(QPointF(title_x, baseline), title)
            pen = QPen(self._theme.colour("text"), MAKESPAN_PEN, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(
                QPointF(x, top - MAKESPAN_OVERHANG), QPointF(x, bottom + MAKESPAN_OVERHANG)
            )
            painter.setFont(font)
            painter.drawText(QPointF(label_x, baseline), label)
            title_box = QRectF(title_x, baseline - heavy.ascent(), 0.0, heavy.height())
            title_box.setWidth(heavy.horizontalAdvance(title))
            label_box = QRectF(label_x, baseline - plain.ascent(), width, plain.height())
            self.drawn.append(MarkBoxes(title_box, label_box, top, above, right_edge))
            last_bar = group.first_row + group.n_rows - 1 + BAR_HEIGHT / 2
            above = transform.map(QPointF(0.0, last_bar)).y()
        painter.restore()


class LegendItem(pg.GraphicsWidget):
    """The Gantt's legend line: what each hatch means ("Idle: [///] waiting for input …"),
    for the wait reasons the shown runs have. Laid out by `gui.figure.legend` (the
    exported figures' own legend) and painted with the figure painter into a cached
    image; it wraps to the plot's width and is hidden when there is nothing to explain."""

    #: Text size, in pixels (the axes' tick font).
    TEXT = 12.0

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self._entries: list[Entry] = []
        self._rows = "workers"
        self._image: QImage | None = None
        self._image_key: tuple[object, ...] = ()
        #: Layouts by width, for these entries, rows and theme (asked for at every paint,
        #: resize and size hint: laying out costs about as much as painting).
        self._figures: dict[float, Figure] = {}
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._fit()

    @property
    def words(self) -> list[str]:
        """The entries' words, in order (what a reader sees)."""
        return [e.words for e in self._entries]

    def set_reasons(self, reasons: Iterable[str], rows: str, slot: str = "") -> None:
        """Show an entry for each of ``reasons`` (in the shared table's order) after the
        title of ``rows`` ("Idle:" for worker rows, "Ops wait:" for op rows); ``slot``:
        the slot wait's words where the runs name their pools
        (`engine.reasons.pool_waits.slot_words`)."""
        entries = legend_entries(reasons, rows, density=False, makespan=False, slot=slot)
        if entries == self._entries and rows == self._rows:
            return  # an edit that keeps the reasons: nothing to lay out or repaint
        self._entries, self._rows = entries, rows
        self._figures = {}
        self._fit()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._image = None
        self._figures = {}
        self.update()

    def figure(self, width: float | None = None) -> Figure:
        """The legend laid out at ``width`` (default: the current width; units: pixels)."""
        width = max(120.0, width if width is not None else float(self.size().width()) or 600.0)
        figure = self._figures.get(width)
        if figure is None:
            if len(self._figures) >= 8:
                self._figures.clear()
            figure = legend_figure(self._entries, width, self.TEXT, self._theme, self._rows)
            self._figures[width] = figure
        return figure

    def height_for(self, width: float) -> float:
        """The legend's height at ``width`` pixels (0 when it has nothing to say)."""
        return self.figure(width).height if self._entries else 0.0

    def _fit(self) -> None:
        height = self.figure().height if self._entries else 0.0
        self.setMinimumHeight(height)
        self.setMaximumHeight(height)
        self.setVisible(bool(self._entries))
        self._image = None
        self.update()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)
        if self._entries and self.figure().height != self.maximumHeight():
            self._fit()
        self._image = None

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self._entries:
            return
        device = painter.device()
        ratio = float(device.devicePixelRatioF()) if device is not None else 1.0
        figure = self.figure()
        key = (figure.width, ratio, self._theme, self._rows, tuple(self._entries))
        if self._image is None or key != self._image_key:
            image = render_image(figure, ratio)
            image.setDevicePixelRatio(ratio)
            self._image, self._image_key = image, key
        painter.drawImage(QPointF(0.0, 0.0), self._image)
