"""Colours: one per op (the same in the assembly line, the Gantt and every export) and the
light and dark themes' neutrals. Idle time is never an op colour: it is pale and hatched."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor

#: Tableau 10 without its grey (grey means idle): distinct, readable on light and dark.
OP_COLOURS: tuple[str, ...] = (
    "#4E79A7",
    "#F28E2B",
    "#E15759",
    "#76B7B2",
    "#59A14F",
    "#EDC948",
    "#B07AA1",
    "#FF9DA7",
    "#9C755F",
)

_QCOLOURS = tuple(QColor(c) for c in OP_COLOURS)


def op_colour(op: int) -> QColor:
    """The colour of op ``op`` (0-based), cycling through the palette."""
    return QColor(_QCOLOURS[op % len(_QCOLOURS)])


def ink_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    luminance = 0.299 * colour.red() + 0.587 * colour.green() + 0.114 * colour.blue()
    return QColor("#1b1b1b") if luminance > 150 else QColor("#ffffff")


@dataclass(frozen=True)
class Theme:
    """The neutrals of one theme (hex strings)."""

    name: str
    background: str
    surface: str
    text: str
    muted: str
    grid: str
    idle: str
    idle_hatch: str
    cursor: str
    accent: str
    done: str

    def colour(self, field: str) -> QColor:
        return QColor(getattr(self, field))


LIGHT = Theme(
    name="light",
    background="#ffffff",
    surface="#f3f4f6",
    text="#1f2328",
    muted="#5b6270",
    grid="#d0d4da",
    idle="#eceef1",
    idle_hatch="#c3c8d0",
    cursor="#d1242f",
    accent="#0969da",
    done="#1a7f37",
)

DARK = Theme(
    name="dark",
    background="#16181c",
    surface="#22252b",
    text="#e6e8eb",
    muted="#9aa3af",
    grid="#3a3f47",
    idle="#262a31",
    idle_hatch="#4a505a",
    cursor="#ff6b6b",
    accent="#58a6ff",
    done="#3fb950",
)

THEMES = {"light": LIGHT, "dark": DARK}
