"""A run's heading: its title ("pipelined · 3 ops · 2 slots") and its makespan label, and the
dashed makespan line over its rows.

The label sits on the title's line, left of the makespan line or right of it, wherever
it clears the title; where it fits on neither side (a narrow column, a long title, a
makespan near the right edge) it gets a line of its own under the title, never on top of
it. A title wider than the whole plot is cut with "…"; nothing else is.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.base.text import time_text
from engine.model.schedule import Schedule
from gui.figure.fonts import cap_height, fitted, text_width
from gui.figure.frame import Frame
from gui.figure.kinds import kind_of
from gui.figure.legend import MIN_TEXT
from gui.figure.model import Line, Text

#: Points from a run's top to its first row, in body text sizes (one heading line).
HEADING_HEIGHT = 1.45
#: A second heading line (the makespan label under the title), in text sizes.
SECOND_LINE = 1.3


def run_title(schedule: Schedule, name: str = "") -> str:
    """ "sequential · 3 ops · 1 slot", "pipelined (measured) · 1,000 ops", "4 warps, C = 10,
    L = 40" (``name``: the run's words instead of its label, "pinned pipelined")."""
    return kind_of(schedule).title(schedule, name)


@dataclass(frozen=True)
class Heading:
    """The run's title, its makespan label (None without a makespan in view) and the
    height from the run's top to its first row."""

    title: Text
    makespan: Text | None
    height: float


def lay_out_heading(schedule: Schedule, frame: Frame, top: float, title: str = "") -> Heading:
    """The heading of ``schedule`` from ``top`` (``title``: its words, `run_title` when
    not given)."""
    f, size, theme = frame.text, max(MIN_TEXT, frame.text), frame.theme
    right_edge = frame.plot_right + 0.5 * f
    words = fitted(title or run_title(schedule), size, right_edge - frame.plot_left, bold=True)
    baseline = top + cap_height(size) + 0.15 * f
    heading = Text(frame.plot_left, baseline, words, size, theme.text, bold=True, cls="run-title")
    span = schedule.makespan
    if not len(schedule) or not frame.t0 <= span <= frame.t1:
        return Heading(heading, None, HEADING_HEIGHT * f)
    label = f"makespan {time_text(span, schedule.time_unit)}"
    width = text_width(label, size)
    x = frame.x(span)
    title_end = frame.plot_left + text_width(words, size, bold=True)
    own_line = False
    if x - 0.4 * f - width >= title_end + f:  # left of the line, clear of the title
        x_text, anchor = x - 0.4 * f, "end"
    elif max(x + 0.4 * f, title_end + f) + width <= right_edge:  # right of it
        x_text, anchor = max(x + 0.4 * f, title_end + f), "start"
    else:  # a line of its own, beside the makespan line where it fits
        own_line = True
        baseline += SECOND_LINE * f
        if x + 0.4 * f + width <= right_edge:
            x_text, anchor = x + 0.4 * f, "start"
        else:
            x_text, anchor = max(x - 0.4 * f, frame.plot_left + width), "end"
    mark = Text(x_text, baseline, label, size, theme.text, anchor=anchor, cls="makespan-label")
    height = (HEADING_HEIGHT + (SECOND_LINE if own_line else 0.0)) * f
    return Heading(heading, mark, height)


def makespan_line(
    schedule: Schedule, frame: Frame, rows_top: float, rows_bottom: float
) -> Line | None:
    """The dashed makespan line over the run's rows (None when out of view)."""
    f, span = frame.text, schedule.makespan
    if not len(schedule) or not frame.t0 <= span <= frame.t1:
        return None
    x = frame.x(span)
    return Line(
        x,
        rows_top - 0.25 * f,
        x,
        rows_bottom + 0.2 * f,
        frame.theme.text,
        max(0.6, 0.11 * f),
        dash=(0.45 * f, 0.3 * f),
        cls="makespan",
    )
