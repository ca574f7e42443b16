"""Light and dark themes: the app palette (Fusion), the text roles some labels take, and
which theme the "system" setting means right now.

No stylesheet: an application stylesheet makes Qt polish and paint every widget through
QStyleSheetStyle (about 35 ms of the first window's 500 ms here, `bench/gui_startup.py`),
for the dozen labels that need a font or a colour of their own. A role gives those its
font and padding once and its colour for the theme; `apply` recolours them all."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from gui.colours import DARK, LIGHT, THEMES, Theme

CHOICES = ("system", "light", "dark")
#: The palette role a role's `TextRole.rule` colour travels in, for the widget to draw.
RULE_ROLE = QPalette.ColorRole.Mid


@dataclass(frozen=True)
class TextRole:
    """How a label of one role reads: its colour and the colour of its rules (`Theme`
    fields), its font (``pixel_size`` 0: the app's) and padding (horizontal, vertical)."""

    colour: str
    pixel_size: int = 0
    bold: bool = False
    monospace: bool = False
    padding: tuple[int, int] = (0, 0)
    rule: str | None = None


#: Each role is the object name of the widgets that take it.
ROLES = {
    "narration": TextRole("text", pixel_size=14, padding=(12, 7), rule="grid"),
    "message": TextRole("cursor", bold=True, padding=(4, 4)),
    "description": TextRole("muted"),
    "headline": TextRole("done", pixel_size=16),
    "readout": TextRole("text", monospace=True),
    "title": TextRole("text", pixel_size=15, bold=True, padding=(12, 4)),
    "externalBanner": TextRole("text", rule="cursor"),
    "externalText": TextRole("text", bold=True),
}

_applied: list[Theme] = [LIGHT]  # the theme `apply` last gave the app


def resolve(choice: str) -> Theme:
    """The theme for a setting: "light", "dark", or "system" (the desktop's scheme)."""
    if choice in THEMES:
        return THEMES[choice]
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT


def apply(app: QApplication, theme: Theme) -> None:
    """Give the whole application the theme's palette, and every widget with a role its
    colours; nothing when the app has them already."""
    palette = palette_of(theme)
    if app.palette() == palette and _applied[0] == theme and app.style().name() == "fusion":
        return
    _applied[0] = theme
    if app.style().name() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(palette)
    for widget in app.allWidgets():
        role = ROLES.get(widget.objectName())
        if role is not None:
            _colour(widget, role, theme)


def dress(widget: QWidget, role: str) -> None:
    """Give ``widget`` the role ``role`` (a key of `ROLES`, and its object name from now
    on): its font and padding, and its colours in the theme the app has."""
    spec = ROLES[role]
    widget.setObjectName(role)
    font = QFont(widget.font())
    if spec.pixel_size:
        font.setPixelSize(spec.pixel_size)
    if spec.bold:
        font.setBold(True)
    if spec.monospace:
        font.setFamily("monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
    widget.setFont(font)
    across, down = spec.padding
    widget.setContentsMargins(across, down, across, down)
    _colour(widget, spec, _applied[0])


def rule_colour(widget: QWidget) -> QColor | None:
    """The colour ``widget`` draws its role's rules in (None: its role has none)."""
    role = ROLES.get(widget.objectName())
    return None if role is None or role.rule is None else widget.palette().color(RULE_ROLE)


def _colour(widget: QWidget, role: TextRole, theme: Theme) -> None:
    palette = QPalette()  # sets only these roles: the others follow the app's palette
    palette.setColor(QPalette.ColorRole.WindowText, QColor(getattr(theme, role.colour)))
    if role.rule is not None:
        palette.setColor(RULE_ROLE, QColor(getattr(theme, role.rule)))
    widget.setPalette(palette)


def palette_of(theme: Theme) -> QPalette:
    """The theme's colours in a Qt palette (Fusion draws with it; `ROLES` name the rest)."""
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.surface,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.background,
        QPalette.ColorRole.AlternateBase: theme.surface,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.surface,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.background,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.Highlight: theme.accent,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Link: theme.accent,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(theme.muted))
    return palette
