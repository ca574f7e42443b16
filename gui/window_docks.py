"""The Pipeline tab's docks as first placed: the Scenario form above the Stats and help
tabs where the window is tall enough for the whole form and the whole stats, else all
three as tabs of one column (a laptop): the form and the stats keep their size and the
user switches between them, rather than both being squeezed into scroll areas.

Docks saved stacked on a tall screen and restored on a short one are tabified the same way
(`tabify_if_stacked`); Qt's restoreState puts them back exactly as saved."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow

#: A dock's title bar and frame, and what stacking two docks takes beyond their own heights
#: (the menu bar, the separator).
DOCK_TITLE = 40
STACKED_DOCKS_SPARE = 40
#: The docks' column: a quarter of the window, within these bounds.
WIDTH_RANGE = (320, 420)


def arrange_docks(
    window: QMainWindow,
    docks: tuple[QDockWidget, QDockWidget, QDockWidget],
    height: int,
    form_height: int,
    stacked_height: int,
) -> None:
    """Place (scenario, stats, help) on the right of ``window``, ``height`` pixels tall:
    stacked when ``height`` ≥ ``stacked_height`` (the form gets ``form_height``), else
    as tabs.

    Meant for docks as first placed (a first start, or a saved state Qt refused): moving
    docks out of a tab group again leaves Qt's old tab bar on screen."""
    scenario, stats, help_ = docks
    right = Qt.DockWidgetArea.RightDockWidgetArea
    for dock in docks:
        dock.setFloating(False)
        if window.dockWidgetArea(dock) != right:
            window.addDockWidget(right, dock)
        dock.show()
    stacked = height >= stacked_height
    if stacked:
        window.splitDockWidget(scenario, stats, Qt.Orientation.Vertical)
        window.tabifyDockWidget(stats, help_)
        window.resizeDocks(
            [scenario, stats], [form_height, max(1, height - form_height)], Qt.Orientation.Vertical
        )
        stats.raise_()
    else:
        _tabify(window, docks)
    low, high = WIDTH_RANGE
    width = min(high, max(low, round(0.25 * max(window.width(), 1280))))
    window.resizeDocks([scenario], [width], Qt.Orientation.Horizontal)


def _tabify(window: QMainWindow, docks: tuple[QDockWidget, QDockWidget, QDockWidget]) -> None:
    scenario, stats, help_ = docks
    window.tabifyDockWidget(scenario, stats)
    window.tabifyDockWidget(stats, help_)
    scenario.raise_()


def is_stacked(window: QMainWindow, docks: tuple[QDockWidget, QDockWidget, QDockWidget]) -> bool:
    """Whether the Scenario and Stats docks are both docked in view but not tabs of one
    group (one above the other, or side by side)."""
    scenario, stats, _ = docks
    docked = all(not dock.isFloating() and not dock.isHidden() for dock in (scenario, stats))
    return docked and stats not in window.tabifiedDockWidgets(scenario)


def tabify_if_stacked(
    window: QMainWindow,
    docks: tuple[QDockWidget, QDockWidget, QDockWidget],
    height: int,
    stacked_height: int,
) -> bool:
    """Make (scenario, stats, help) tabs of one group when ``height`` is under
    ``stacked_height`` and the Scenario and Stats docks are stacked (a state saved on a
    taller screen); True if it did. Floating or closed docks stay as they are."""
    if height >= stacked_height or not is_stacked(window, docks):
        return False
    _tabify(window, docks)
    return True
