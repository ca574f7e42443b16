"""How the Gantt's rows share the view's height, in pixels as well as in rows.

Rows are one unit of y apart; a group's title and the cursor's time label are drawn in
pixels. So the room they get is worked out from the view's height in pixels: above every
group a gap of at least `TITLE_ROOM` pixels (and at least `MIN_GAP` rows) where its title
sits clear of the rows above it, and under the last row a band of `CURSOR_ROOM` pixels for
the cursor's label (off the bars). Pure arithmetic on numbers: the view refits on every
resize, and tests need no widget.
"""

from __future__ import annotations

from dataclasses import dataclass

from gui.figure.bars import BAR_HEIGHT

#: Pixels above a group's first row for its title (12 px bold text and its gaps).
TITLE_ROOM = 22.0
#: Pixels under the last row for the cursor's time label.
CURSOR_ROOM = 16.0
#: The gap above a group is never less than this many rows (a tall view: as before).
MIN_GAP = 1.2
#: The least row pitch, in pixels, that the Gantt asks for (its minimum height).
MIN_PITCH = 15.0
#: Rows at least this many pixels apart keep every worker's name (the font shrinks first).
LABEL_MIN_PITCH = 10.0
#: The row names' font: this size where rows have the room, down to the smaller one.
LABEL_FONT, LABEL_FONT_SMALL = 12, 9


@dataclass(frozen=True)
class RowFit:
    """The rows' share of a view: ``gap`` rows above each group (its title band),
    ``pitch`` pixels per row, ``bottom`` rows under the last row (the cursor's band)."""

    gap: float
    pitch: float
    bottom: float


def fit_rows(height: float, n_rows: int, n_groups: int) -> RowFit:
    """Share ``height`` pixels between ``n_rows`` rows in ``n_groups`` groups: each gap
    `MIN_GAP` rows, or `TITLE_ROOM` pixels where rows are too thin for that, and a
    `CURSOR_ROOM` band at the bottom; the rows get the rest."""
    n_rows = max(1, n_rows)
    n_groups = max(1, n_groups)
    usable = max(1.0, height - CURSOR_ROOM)
    pitch = usable / (n_groups * MIN_GAP + n_rows)
    if pitch * MIN_GAP < TITLE_ROOM:  # thin rows: the titles take their pixels first
        pitch = max(1.0, usable - n_groups * TITLE_ROOM) / n_rows
    gap = max(MIN_GAP, TITLE_ROOM / pitch)
    return RowFit(gap=gap, pitch=pitch, bottom=CURSOR_ROOM / pitch)


def rows_height(n_rows: int, n_groups: int, pitch: float = MIN_PITCH) -> float:
    """The view height (pixels) at which rows are ``pitch`` pixels apart with every title
    and the cursor's band in their room."""
    if n_rows <= 0:
        return 0.0
    return n_rows * pitch + max(1, n_groups) * max(TITLE_ROOM, MIN_GAP * pitch) + CURSOR_ROOM


def label_font_size(pitch: float) -> int:
    """The row names' pixel size for rows ``pitch`` pixels apart: full size where they
    have the room, a little smaller in a short view (rather than skipping names)."""
    return int(max(LABEL_FONT_SMALL, min(LABEL_FONT, pitch - 1.0)))


#: Op labels on bars: this pixel size where bars have the room, down to the floor; bars
#: thinner than the floor's text get none (their hover still names the op).
BAR_LABEL_FONT, BAR_LABEL_FLOOR = 13, 8


def bar_label_size(bar_pixels: float) -> int | None:
    """The pixel size of the op labels on bars ``bar_pixels`` tall: 60% of the bar up to
    `BAR_LABEL_FONT`, at least `BAR_LABEL_FLOOR` while the bar is a pixel taller than
    that; None in a thinner bar (with three runs pinned at 1280 × 800 bars are some 9 px
    tall: labels once vanished under 10 px)."""
    if bar_pixels < BAR_LABEL_FLOOR + 1:
        return None
    return min(BAR_LABEL_FONT, max(BAR_LABEL_FLOOR, int(bar_pixels * 0.6)))


#: The least row pitch, in pixels, whose bars carry op labels (at the floor's size).
LABEL_PITCH = (BAR_LABEL_FLOOR + 1) / BAR_HEIGHT
