"""Where the app keeps its settings (QSettings, INI format, user scope).

Tests redirect the location with ``QSettings.setPath`` so they never touch the user's.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

ORGANIZATION = "PipeLab"
APPLICATION = "PipeLab"


def settings() -> QSettings:
    """The app's settings store (INI, so that ``QSettings.setPath`` can redirect it)."""
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
    )
