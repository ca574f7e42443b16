"""The frame a run is laid into: the plot's x mapping from time to points, the text size, the
theme, the rows mode and the device resolution. Every part of a run's layout (heading, row
labels, bars, cursor) reads it; it reads nothing of theirs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gui.colours import Theme
from gui.figure.legend import hatch_spacing, hatch_width
from gui.figure.model import FloatArray


@dataclass(frozen=True)
class Frame:
    """The figure's frame a run is laid into: the plot's x mapping, text size, theme."""

    plot_left: float
    plot_right: float
    t0: float
    t1: float
    text: float
    theme: Theme
    rows: str
    resolution: float  # device pixels per point

    @property
    def scale(self) -> float:
        return (self.plot_right - self.plot_left) / (self.t1 - self.t0)

    def x(self, t: float) -> float:
        return self.plot_left + (t - self.t0) * self.scale

    def xs(self, t: FloatArray) -> FloatArray:
        return np.asarray(self.plot_left + (t - self.t0) * self.scale, dtype=np.float64)

    def hatch_spacing(self) -> float:
        return hatch_spacing(self.text)

    def hatch_width(self) -> float:
        return hatch_width(self.text)
