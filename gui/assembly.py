"""The assembly line: stations of workers, numbered shared-memory slots and op chips that
travel global memory → load → shared memory → compute → store → global memory, one lane
per Schedule, all on the same clock.

It only renders. What is where comes from `engine.analysis.assembly_model.assembly_frame`: every
worker's task, the state of each slot (free, reserved, loading, held, being written, with
the op in it) and, per chip, the spot it sits at and the spot it glides from just after
its op moved. Where the parts sit comes from `gui.assembly_layout` (minimum sizes, and a
compact layout below a width instead of shrinking them).

A tick repaints only what changes: the cards, titles and empty slots are drawn once into a
pixmap (per size, theme and lane shape) and blitted; each frame draws the figures, slots,
chips and their words on top, in time independent of the number of ops.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QPaintEngine, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.analysis.derived import Derived
from engine.analysis.view_model import typical_duration
from engine.model.schedule import Schedule
from gui.assembly_lane import LanePainter
from gui.assembly_layout import lane_minimum, layout_lane
from gui.assembly_parts import LaneLayout, LaneSpec
from gui.assembly_texts import lane_spec, static_signature
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.figure.rows import derived_list

#: Paint engines that keep shapes (the assembly line draws no cached pixmaps into these).
VECTOR_ENGINES = (QPaintEngine.Type.SVG, QPaintEngine.Type.Pdf, QPaintEngine.Type.Picture)
#: A chip's glide after its op moves: wall-clock seconds at the playback speed, and at
#: most this share of a typical stage (so that glides never blur into one another).
GLIDE_SECONDS = 0.3
GLIDE_SHARE = 0.35
#: Margins around the lanes, and between two lanes.
MARGIN_X, MARGIN_Y, LANE_GAP = 10, 6, 8
#: Each lane's static layer reaches this many pixels past its rectangle (less than half
#: the gap: the layers of two lanes never overlap).
LAYER_PAD = 3


class AssemblyLineView(QWidget):
    """Draws each Schedule as an assembly line at the clock's time."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._theme = theme
        self._schedules: list[Schedule] = []
        self._derived: list[Derived] = []  # each Schedule's (its run's), held while shown
        self._specs: list[LaneSpec] = []
        self._static: QPixmap | None = None
        self._static_key: tuple[object, ...] = ()
        self._lane_layers: dict[tuple[object, ...], tuple[QPoint, QPixmap]] = {}
        self.static_paints = 0  # how often the static layer was drawn (ticks leave it alone)
        self.lane_paints = 0  # how often a lane's part of it was drawn
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAutoFillBackground(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)  # we fill every pixel
        self._update_minimum()
        clock.time_changed.connect(self.update)

    def sizeHint(self) -> QSize:
        return QSize(1000, 420)

    def minimumSizeHint(self) -> QSize:
        return self.minimum_size()

    @property
    def schedules(self) -> list[Schedule]:
        """The Schedules animated, one lane each."""
        return list(self._schedules)

    @property
    def derived(self) -> list[Derived]:
        """Each animated Schedule's `Derived`."""
        return list(self._derived)

    def set_schedules(
        self, schedules: list[Schedule], derived: list[Derived] | None = None
    ) -> None:
        """Animate these Schedules, one lane each; ``derived``: each one's `Derived` (its
        run's; a new one each when not given)."""
        self._derived = derived_list(schedules, derived)
        self._schedules = list(schedules)
        self._specs = [lane_spec(d) for d in self._derived]
        self._update_minimum()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._static = None
        self._lane_layers = {}
        self.update()

    # -- geometry ------------------------------------------------------------------------

    def minimum_size(self) -> QSize:
        """The smallest size at which every lane keeps its figures, chips and slots at
        their minimum sizes and no text overlaps another (the tightest layout)."""
        return self._minimum_of(self._specs)

    def minimum_for(self, derived: list[Derived]) -> QSize:
        """`minimum_size` as it would be with these Schedules' lanes, each given by its
        `Derived` (nothing is set)."""
        return self._minimum_of([lane_spec(d) for d in derived])

    def _minimum_of(self, specs: list[LaneSpec]) -> QSize:
        sizes = [lane_minimum(spec, self.font()) for spec in specs] or [(320, 150)]
        width = max(w for w, _ in sizes) + 2 * MARGIN_X
        height = sum(h for _, h in sizes) + LANE_GAP * (len(sizes) - 1) + 2 * MARGIN_Y
        return QSize(width, height)

    def _update_minimum(self) -> None:
        minimum = self.minimum_size()
        if minimum != self.minimumSize():  # else the layouts above would redo for nothing
            self.setMinimumSize(minimum)
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
            [LanePainter.to_widget(lane, rect, s.card) for s in lane.stations]
            for lane, rect in zip(self.layouts(), self.lane_rects(), strict=False)
        ]

    def figure_rects(self) -> list[list[QRectF]]:
        """Per lane, every drawn worker figure's rectangle in widget pixels."""
        return [
            [LanePainter.to_widget(lane, rect, c.figure) for s in lane.stations for c in s.cells]
            for lane, rect in zip(self.layouts(), self.lane_rects(), strict=False)
        ]

    def travel(self, derived: Derived) -> float:
        """How long (schedule time) a chip glides after its op moves: only while playing,
        so that every still frame (stepping, scrubbing, exports) is exactly the engine's
        state at that instant."""
        if not self._clock.playing:
            return 0.0
        glide = GLIDE_SECONDS * self._clock.speed * self._clock.rate
        return min(glide, GLIDE_SHARE * typical_duration(derived))

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

    def _lanes(self, painter: QPainter, time: float, vector: bool = False) -> list[LanePainter]:
        return [
            LanePainter(painter, self._theme, derived, time, rect, layout, travel, vector)
            for rect, layout, derived, travel in zip(
                self.lane_rects(),
                self.layouts(),
                self._derived,
                [self.travel(d) for d in self._derived],
                strict=False,
            )
        ]

    def _static_layer(self) -> QPixmap:
        """What does not change with time, drawn once per size, theme and the lanes'
        shape (an edited duration keeps the layer; other workers or buffers redraw it).
        Each lane's part is kept apart (`_lane_layer`): an edit of the slots redraws the
        pipelined lane's only (the sequential run has one slot whatever the scenario)."""
        ratio = self.devicePixelRatioF()
        font = self.font()
        key = (self.width(), self.height(), ratio, font, *self._specs)
        if self._static is None or self._static_key != key:
            pixmap = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(self._theme.colour("background"))
            painter = QPainter(pixmap)
            kept: dict[tuple[object, ...], tuple[QPoint, QPixmap]] = {}
            lanes = zip(self.lane_rects(), self.layouts(), self._derived, self._specs, strict=False)
            for rect, layout, derived, spec in lanes:
                # Outlines reach a pixel past the lane's rectangle; lanes are further apart.
                area = rect.toAlignedRect().adjusted(-LAYER_PAD, -LAYER_PAD, LAYER_PAD, LAYER_PAD)
                area = area.intersected(self.rect())
                lane_key = (area.getRect(), rect.getRect(), ratio, font.key(), spec)
                drawn = self._lane_layers.get(lane_key) or kept.get(lane_key)
                if drawn is None:
                    layer = self._lane_layer(derived, rect, layout, area, ratio)
                    drawn = (area.topLeft(), layer)
                kept[lane_key] = drawn
                painter.drawPixmap(*drawn)
            painter.end()
            self._lane_layers = kept
            self._static, self._static_key = pixmap, key
            self.static_paints += 1
        return self._static

    def _lane_layer(
        self, derived: Derived, rect: QRectF, layout: LaneLayout, area: QRect, ratio: float
    ) -> QPixmap:
        """One lane's static parts on the background, over ``area`` (its rectangle
        widened to whole pixels and `LAYER_PAD`: shifted by whole pixels, the picture is
        the one drawn in place)."""
        pixmap = QPixmap(round(area.width() * ratio), round(area.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(self._theme.colour("background"))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # The lane's own coordinates (widget pixels) through the window, not the world
        # transform: what it draws is where it lands in the widget.
        painter.setWindow(area)
        painter.setViewport(0, 0, area.width(), area.height())
        lane = LanePainter(painter, self._theme, derived, self._clock.time, rect, layout, 0.0)
        lane.paint_static()
        painter.end()
        self.lane_paints += 1
        return pixmap


__all__ = ["AssemblyLineView", "LanePainter", "lane_spec", "static_signature"]
