"""The Gantt's rows in pixels (pure arithmetic, no widget): every group's title gets its
room at any height, the rows the rest, and the height for a row pitch inverts the fit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui.timeline_rows import (
    CURSOR_ROOM,
    LABEL_FONT,
    LABEL_FONT_SMALL,
    MIN_GAP,
    MIN_PITCH,
    TITLE_ROOM,
    fit_rows,
    label_font_size,
    rows_height,
)


@given(
    st.floats(min_value=120.0, max_value=4000.0),
    st.integers(min_value=1, max_value=60),
    st.integers(min_value=1, max_value=4),
)
def test_every_title_and_the_cursor_get_their_pixels(height, n_rows, n_groups) -> None:
    fit = fit_rows(height, n_rows, n_groups)
    assert fit.gap >= MIN_GAP
    assert fit.gap * fit.pitch >= TITLE_ROOM - 1e-6
    assert fit.bottom * fit.pitch == pytest.approx(CURSOR_ROOM)
    if n_groups * TITLE_ROOM + CURSOR_ROOM + n_rows <= height:  # the rows fit at all
        used = fit.pitch * (n_groups * fit.gap + n_rows + fit.bottom)
        assert used == pytest.approx(height)


@pytest.mark.parametrize(("n_rows", "n_groups"), [(3, 1), (6, 2), (9, 3), (27, 3)])
def test_the_height_for_a_pitch_gives_that_pitch(n_rows: int, n_groups: int) -> None:
    for pitch in (MIN_PITCH, 24.0, 60.0):
        fit = fit_rows(rows_height(n_rows, n_groups, pitch), n_rows, n_groups)
        assert fit.pitch == pytest.approx(pitch)


def test_names_shrink_a_little_in_short_rows() -> None:
    assert label_font_size(40.0) == LABEL_FONT
    assert label_font_size(11.0) == 10
    assert label_font_size(4.0) == LABEL_FONT_SMALL
