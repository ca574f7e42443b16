"""Themes on the app: switching restyles every widget; applying the theme the app has
already restyles nothing (that re-polish cost every window of the suite 55 ms), and a
window made while the app has a theme is styled with it all the same."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QWidget

from gui import theme as themes
from gui.colours import DARK, LIGHT

RESTYLES = (QEvent.Type.StyleChange, QEvent.Type.Polish, QEvent.Type.PaletteChange)


class RestyleCounter(QObject):
    """Counts the style, polish and palette events a widget receives."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in RESTYLES:
            self.count += 1
        return False


@pytest.fixture
def app() -> Iterator[QApplication]:
    """The app, light; as it was (theme, palette, stylesheet) after the test."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    sheet, palette = app.styleSheet(), app.palette()
    themes.apply(app, LIGHT)
    yield app
    app.setPalette(palette)
    app.setStyleSheet(sheet)


def shown_button(qtbot: object) -> QPushButton:
    button = QPushButton("Run")
    qtbot.addWidget(button)  # type: ignore[attr-defined]
    button.show()
    qtbot.waitExposed(button)  # type: ignore[attr-defined]
    return button


def surface(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.Window)


def test_the_theme_the_app_has_already_restyles_nothing(app: QApplication, qtbot) -> None:
    button = shown_button(qtbot)
    counter = RestyleCounter()
    button.installEventFilter(counter)
    themes.apply(app, LIGHT)
    QApplication.processEvents()
    assert counter.count == 0
    assert surface(button) == QColor(LIGHT.surface)


def test_switching_themes_restyles_every_widget(app: QApplication, qtbot) -> None:
    button = shown_button(qtbot)
    counter = RestyleCounter()
    button.installEventFilter(counter)
    themes.apply(app, DARK)
    QApplication.processEvents()
    assert counter.count > 0
    assert surface(button) == QColor(DARK.surface)
    assert app.styleSheet() == themes.stylesheet(DARK)
    themes.apply(app, LIGHT)
    assert surface(button) == QColor(LIGHT.surface)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_a_window_made_under_the_theme_draws_in_it(app: QApplication, qtbot, theme) -> None:
    """A new top-level window after the theme went on (and was applied again: nothing
    happens then) is drawn in the theme's colours, not Qt's."""
    themes.apply(app, theme)
    themes.apply(app, theme)
    window = QWidget()
    window.resize(120, 80)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert surface(window) == QColor(theme.surface)
    image = window.grab().toImage()
    assert image.pixelColor(60, 40) == QColor(theme.surface)
