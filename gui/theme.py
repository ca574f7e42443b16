"""Light and dark themes: the app palette (Fusion), the stylesheet, and which theme the
"system" setting means right now."""

from __future__ import annotations

from dataclasses import asdict

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from engine.base.resources import asset
from gui.colours import DARK, LIGHT, THEMES, Theme

STYLESHEET = asset("style.qss")
CHOICES = ("system", "light", "dark")


def resolve(choice: str) -> Theme:
    """The theme for a setting: "light", "dark", or "system" (the desktop's scheme)."""
    if choice in THEMES:
        return THEMES[choice]
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT


def stylesheet(theme: Theme) -> str:
    text = STYLESHEET.read_text(encoding="utf-8")
    for key, value in asdict(theme).items():
        text = text.replace("{" + key + "}", str(value))
    return text


def apply(app: QApplication, theme: Theme) -> None:
    """Give the whole application the theme's palette and stylesheet; nothing when it has
    both already. Setting them again re-polishes every widget (55 ms a window where a
    process makes many, as the tests do); a widget made while the app has them is
    polished with them anyway, and a window made so draws the same pixels."""
    palette = palette_of(theme)
    sheet = stylesheet(theme)
    if app.styleSheet() == sheet and app.palette() == palette:
        return  # (only `apply` sets the app's style, to Fusion, with these two)
    app.setStyle("Fusion")
    app.setPalette(palette)
    app.setStyleSheet(sheet)


def palette_of(theme: Theme) -> QPalette:
    """The theme's colours in a Qt palette (Fusion draws with it; the stylesheet names
    the rest)."""
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
