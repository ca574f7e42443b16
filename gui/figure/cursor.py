"""The time cursor of a figure: a line over each run's rows at the cursor's time (never
through the run titles) and its time, "t = 2.5 s", on a line of its own above them.

Where the line crosses a label in a bar ("op 3", "compute") it leaves a gap as tall as
the label's letters: the label stays legible and the eye still follows the line. Static
figures and each animation frame lay it out the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.base.text import time_text
from gui.figure.fonts import box_of, cap_height, descent, text_width
from gui.figure.frame import Frame
from gui.figure.model import Group, Line, Text


def lay_out_cursor(
    frame: Frame,
    time: float,
    runs: Sequence[tuple[float, float]],
    label_y: float,
    size: float,
    unit: str,
    labels: Sequence[Text] = (),
) -> Group:
    """The cursor at ``time``: over the rows of each of ``runs`` (top, bottom), its words
    with their baseline at ``label_y``, with gaps where it crosses the bar ``labels``."""
    f, theme = frame.text, frame.theme
    x = float(frame.x(time))
    words = f"t = {time_text(time, unit)}"
    right = x + 0.35 * f + text_width(words, size, bold=True) <= frame.plot_right + 0.5 * f
    label = Text(
        x + 0.35 * f if right else x - 0.35 * f,
        label_y,
        words,
        size,
        theme.cursor,
        anchor="start" if right else "end",
        bold=True,
        cls="cursor-label",
    )
    width = max(0.8, 0.15 * f)
    spans = [(label_y - cap_height(size) - 0.1 * f, label_y + 0.35 * f)]
    cuts = crossings(x, width, labels)
    for top, bottom in runs:
        spans.extend(cut(top - 0.15 * f, bottom + 0.15 * f, cuts))
    lines = [Line(x, a, x, b, theme.cursor, width, cls="cursor-line") for a, b in spans]
    return Group((*lines, label), id="cursor")


def crossings(x: float, width: float, labels: Sequence[Text]) -> list[tuple[float, float]]:
    """The (top, bottom) of the letters of each of ``labels`` that a line ``width`` wide
    at ``x`` would cross, with a little room around them, top to bottom."""
    found = []
    for text in labels:
        left, _, right, _ = box_of(text)
        room = 0.12 * text.size
        if left - room <= x + width / 2 and x - width / 2 <= right + room:
            top = text.y - cap_height(text.size) - room
            found.append((top, text.y + descent(text.size)))
    return sorted(found)


def cut(
    top: float, bottom: float, gaps: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """[top, bottom] without the sorted ``gaps``, as (top, bottom) pieces."""
    pieces = []
    for a, b in gaps:
        if b <= top or a >= bottom:
            continue
        if a > top:
            pieces.append((top, a))
        top = max(top, b)
    if bottom > top:
        pieces.append((top, bottom))
    return pieces
