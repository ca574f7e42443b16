"""Where the window opens: a first start at 90% of the available screen (a laptop's
whole screen), centred; a saved geometry moved and shrunk into the screen it lands on (a
4K window on a laptop)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QRect, QSize

from gui.window_geometry import FIRST_LEAST, FRAME, first_geometry, fits, fitted

SCREENS = [QRect(0, 0, 1280, 720), QRect(0, 0, 1280, 800), QRect(0, 27, 1920, 1053)]
SCREENS += [QRect(1920, 0, 3840, 2160), QRect(-1280, 100, 1280, 800)]


@pytest.mark.parametrize("screen", SCREENS, ids=lambda r: f"{r.width()}x{r.height()}")
def test_a_first_start_takes_most_of_the_screen_centred(screen: QRect) -> None:
    window = first_geometry(screen)
    assert fits(window.marginsAdded(FRAME), screen)
    inner = screen.marginsRemoved(FRAME)
    least = FIRST_LEAST.boundedTo(inner.size())
    assert window.width() == max(round(0.9 * inner.width()), least.width())
    assert window.height() == max(round(0.9 * inner.height()), least.height())
    assert abs(window.center().x() - inner.center().x()) <= 1
    assert abs(window.center().y() - inner.center().y()) <= 1


def test_a_laptops_screen_is_used_whole_at_a_first_start() -> None:
    laptop = QRect(0, 0, 1280, 720)
    assert first_geometry(laptop) == laptop.marginsRemoved(FRAME)
    assert first_geometry(QRect(0, 0, 3840, 2160)).width() == round(0.9 * (3840 - 8))


def test_a_window_saved_on_a_4k_screen_fits_a_laptop() -> None:
    saved = QRect(200, 150, 3400, 1900)
    laptop = QRect(0, 0, 1280, 800)
    window = fitted(saved, laptop, QSize(936, 616))
    assert fits(window.marginsAdded(FRAME), laptop)
    assert window.size() == laptop.marginsRemoved(FRAME).size()


def test_a_window_that_fits_stays_where_it_was() -> None:
    saved = QRect(100, 80, 1000, 600)
    assert fitted(saved, QRect(0, 0, 1920, 1080)) == saved


rects = st.builds(
    QRect,
    st.integers(-5000, 5000),
    st.integers(-5000, 5000),
    st.integers(1, 8000),
    st.integers(1, 5000),
)
screens = st.builds(
    QRect,
    st.integers(-4000, 4000),
    st.integers(-2000, 2000),
    st.integers(1024, 7680),
    st.integers(600, 4320),
)


@given(rects, screens)
def test_fitted_always_lies_inside_the_screen(saved: QRect, screen: QRect) -> None:
    window = fitted(saved, screen, QSize(936, 616))
    assert fits(window.marginsAdded(FRAME), screen)
    assert window.width() <= saved.width() or window.width() <= 936
