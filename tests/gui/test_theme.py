"""Themes on the app: switching restyles every widget and recolours every label with a
role; applying the theme the app has already restyles nothing (that re-polish cost every
window of the suite 55 ms), and a window made while the app has a theme is styled with it
all the same. The app has no stylesheet (it would polish every widget through
QStyleSheetStyle: start-up time)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget

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
    """The app, light; light again after the test."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    themes.apply(app, LIGHT)
    yield app
    themes.apply(app, LIGHT)


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
    assert app.styleSheet() == ""
    themes.apply(app, LIGHT)
    QApplication.processEvents()
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


def text_colour(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.WindowText)


def test_a_role_gives_its_font_and_padding_and_follows_the_theme(app, qtbot) -> None:
    """A labelled role keeps its font and padding and takes each theme's colour for it,
    also when made under the dark theme; a plain label keeps the theme's text colour."""
    headline, plain = QLabel("2.0×"), QLabel("speedup")
    for label in (headline, plain):
        qtbot.addWidget(label)
    themes.dress(headline, "headline")
    assert headline.objectName() == "headline"
    assert headline.font().pixelSize() == themes.ROLES["headline"].pixel_size
    assert (text_colour(headline), text_colour(plain)) == (QColor(LIGHT.done), QColor(LIGHT.text))
    themes.apply(app, DARK)
    QApplication.processEvents()
    assert (text_colour(headline), text_colour(plain)) == (QColor(DARK.done), QColor(DARK.text))
    assert surface(headline) == QColor(DARK.surface)  # the rest follows the app's palette
    title = QLabel("pipelined")
    qtbot.addWidget(title)
    themes.dress(title, "title")
    assert text_colour(title) == QColor(DARK.text)
    assert title.font().bold()
    assert title.contentsMargins().left() == themes.ROLES["title"].padding[0]
    themes.apply(app, LIGHT)
    QApplication.processEvents()
    assert text_colour(title) == QColor(LIGHT.text)
    assert text_colour(headline) == QColor(LIGHT.done)


def test_ruled_roles_draw_their_rules(app, qtbot) -> None:
    """The narration draws a rule above and below in the grid colour; a label without a
    rule in its role has no rule colour."""
    from gui.narration_box import NarrationBox

    box = NarrationBox()
    qtbot.addWidget(box)
    box.resize(300, 120)
    box.show()
    box.set_rows((("pipelined", "t = 0 s: nothing has started"),))
    QApplication.processEvents()
    image = box.label.grab().toImage()
    bottom = image.height() - 1
    assert bottom > 10
    assert image.pixelColor(150, 0) == QColor(LIGHT.grid)
    assert image.pixelColor(150, bottom) == QColor(LIGHT.grid)
    assert image.pixelColor(2, bottom // 2) == QColor(LIGHT.surface)  # its own background
    described = QLabel("why")
    qtbot.addWidget(described)
    themes.dress(described, "description")
    assert themes.rule_colour(described) is None
    assert themes.rule_colour(box.label) == QColor(LIGHT.grid)


def test_no_widget_sets_a_stylesheet() -> None:
    """A stylesheet on the app or on a widget sends it (and its children) through
    QStyleSheetStyle: start-up time. A new look is a role in `gui.theme.ROLES`."""
    gui_dir = Path(themes.__file__).parent
    offenders = [
        str(path.relative_to(gui_dir))
        for path in sorted(gui_dir.rglob("*.py"))
        if ".setStyleSheet(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
