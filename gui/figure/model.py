"""What a figure is made of: positioned text, lines, rectangles (in batches, one fill each),
hatched areas and nested groups, in points from the figure's top-left corner.

`gui.figure.layout` computes one `Figure` from Schedules; `gui.figure.painter` draws it
with a QPainter (PNG, PDF, animation frames, the export dialog's preview) and
`gui.figure.svg` writes it as SVG. Both read the same primitives, so they cannot drift.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Text:
    """One line of text; ``y`` is its baseline, ``anchor`` which end of it sits at ``x``."""

    x: float
    y: float
    text: str
    size: float
    colour: str
    anchor: str = "start"  # "start" | "middle" | "end"
    bold: bool = False
    cls: str = ""


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    colour: str
    width: float
    dash: tuple[float, ...] = ()
    cls: str = ""


@dataclass(frozen=True, eq=False)
class Rects:
    """Rectangles of one fill (and optional outline). ``ops`` (optional, per rectangle):
    the op each one draws, so SVG readers can restyle single ops (class ``op-N``)."""

    x: FloatArray
    y: FloatArray
    w: FloatArray
    h: FloatArray
    fill: str
    stroke: str = ""
    stroke_width: float = 0.0
    cls: str = ""
    ops: IntArray | None = None

    def __len__(self) -> int:
        return len(self.x)


@dataclass(frozen=True, eq=False)
class Hatch:
    """Rectangles filled with hatch lines (no fill of their own: they lie over a pale
    one). Lines run in the directions ``angles`` (45 = "/", -45 = "\\"), ``spacing``
    apart, anchored at the figure's origin so every back end puts them at the same place."""

    x: FloatArray
    y: FloatArray
    w: FloatArray
    h: FloatArray
    reason: str
    angles: tuple[int, ...]
    spacing: float
    colour: str
    width: float
    cls: str = ""

    def __len__(self) -> int:
        return len(self.x)


@dataclass(frozen=True)
class Embed:
    """A place for a drawing that is not made of these primitives (the assembly line):
    the back end that can draw it does; the SVG writer refuses it."""

    x: float
    y: float
    w: float
    h: float
    name: str


@dataclass(frozen=True)
class Group:
    """Items that belong together (a run, a row, the axis, the legend); SVG writes a
    ``<g id=… class=…>`` so readers can restyle them."""

    items: tuple[Item, ...]
    id: str = ""
    cls: str = ""


Item = Text | Line | Rects | Hatch | Embed | Group


@dataclass(frozen=True)
class Figure:
    """A laid-out figure: ``width`` × ``height`` points, ``background`` (empty when
    transparent) and its items, back to front. ``plot`` is the time axis's mapping:
    x = plot_left + (t - t0) · scale, for drawing a cursor over the finished figure."""

    width: float
    height: float
    background: str
    items: tuple[Item, ...]
    plot_left: float = 0.0
    plot_right: float = 0.0
    plot_top: float = 0.0
    plot_bottom: float = 0.0
    t0: float = 0.0
    scale: float = 1.0
    time_unit: str = "s"
    cursor_label_y: float = 0.0  # baseline of the cursor's "t = …" (when a line is kept)
    runs: tuple[tuple[float, float], ...] = ()  # (top, bottom) of each run's rows
    meta: dict[str, str] = field(default_factory=dict)

    def x_of(self, time: float) -> float:
        return self.plot_left + (time - self.t0) * self.scale

    def walk(self) -> Iterator[Item]:
        """Every item that is not a group, back to front."""
        return walk(self.items)

    def texts(self, cls: str = "") -> list[Text]:
        """Every text item (of class ``cls`` when given), back to front."""
        return texts_of(self.items, cls)


def walk(items: tuple[Item, ...]) -> Iterator[Item]:
    """Every item of ``items`` and their groups that is not a group, back to front."""
    stack: list[Item] = list(reversed(items))
    while stack:
        item = stack.pop()
        if isinstance(item, Group):
            stack.extend(reversed(item.items))
        else:
            yield item


def texts_of(items: tuple[Item, ...], cls: str = "") -> list[Text]:
    """Every text item of ``items`` (of class ``cls`` when given), back to front."""
    return [
        item
        for item in walk(items)
        if isinstance(item, Text) and (not cls or cls in item.cls.split())
    ]
