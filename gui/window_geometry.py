"""Where the main window opens: at most the screen's available size, on that screen.

A first start takes `FIRST_SHARE` of the available geometry, centred, but at least
`FIRST_LEAST` where the screen has it (a laptop's screen is used whole: every pixel of
height goes to the rows and figures). A saved geometry is
restored only as far as it fits the screen the window lands on now: a window saved on a 4K
screen and reopened on a laptop is moved and shrunk to fit (Qt's own restore either keeps
it or refuses it outright). `first_geometry` and `fitted` are pure functions of
rectangles, so tests need no screen; `place` applies them to a window, and `refit` again
once the window's minimum size is known (its Gantt's rows raise it). `sized_by_open_tab`
makes a tab widget as small as its open page allows: a QTabWidget is otherwise at least as
big as its biggest page, and the Warps page beside the Pipeline tab's docks held the whole
window above 1,120 pixels wide once it had been opened.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMargins, QPoint, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSizePolicy, QTabWidget, QWidget

#: A first start opens at this share of the available screen, centred, ...
FIRST_SHARE = 0.9
#: ... but at least this big, as far as the screen allows.
FIRST_LEAST = QSize(1280, 800)
#: Room kept for the window manager's frame before the window is shown (its real frame is
#: unknown until then): a title bar above, thin borders around.
FRAME = QMargins(4, 32, 4, 4)


def first_geometry(available: QRect, share: float = FIRST_SHARE) -> QRect:
    """The client area of a first start: ``share`` of ``available`` (at least
    `FIRST_LEAST` where it fits), centred in it."""
    inner = available.marginsRemoved(FRAME)
    size = QSize(round(inner.width() * share), round(inner.height() * share))
    size = size.expandedTo(FIRST_LEAST).boundedTo(inner.size())
    left = inner.left() + (inner.width() - size.width()) // 2
    top = inner.top() + (inner.height() - size.height()) // 2
    return QRect(left, top, size.width(), size.height())


def fitted(geometry: QRect, available: QRect, minimum: QSize | None = None) -> QRect:
    """``geometry`` (a client area) shrunk and moved so that it, with a frame, lies inside
    ``available``; never below ``minimum`` (the window's least size) where that fits."""
    inner = available.marginsRemoved(FRAME)
    size = geometry.size().boundedTo(inner.size())
    if minimum is not None:
        size = size.expandedTo(minimum.boundedTo(inner.size()))
    left = min(max(geometry.left(), inner.left()), inner.right() + 1 - size.width())
    top = min(max(geometry.top(), inner.top()), inner.bottom() + 1 - size.height())
    return QRect(QPoint(left, top), size)


def fits(frame: QRect, available: QRect) -> bool:
    """Whether a window's frame lies inside the available geometry."""
    return available.contains(frame)


def available_geometry(window: QWidget) -> QRect:
    """The available geometry of the screen ``window`` is on (or the primary screen's)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def place(window: QWidget, saved: object) -> None:
    """Give ``window`` its ``saved`` geometry (`QWidget.saveGeometry` bytes) fitted to the
    screen, or, without one or when Qt refuses it, a first start's geometry."""
    available = available_geometry(window)
    if isinstance(saved, QByteArray) and window.restoreGeometry(saved):
        if not (window.isMaximized() or window.isFullScreen()):
            window.setGeometry(fitted(window.geometry(), available, window.minimumSizeHint()))
    else:  # a first start, or a geometry saved on a screen that is gone
        window.setGeometry(first_geometry(available))


def refit(window: QWidget) -> None:
    """If ``window`` is now under its minimum size (it grew since `place`: the first
    run's rows), fit it inside its screen again at that size: growing in place it would
    hang off the bottom of a laptop's screen."""
    least = window.minimumSizeHint()
    if window.isMaximized() or window.isFullScreen() or least.boundedTo(window.size()) == least:
        return
    geometry = fitted(window.geometry(), available_geometry(window), least)
    if geometry != window.geometry():
        window.setGeometry(geometry)


def sized_by_open_tab(tabs: QTabWidget) -> None:
    """Make ``tabs`` ask for the room its open page needs, not its biggest page's: the
    pages not shown get an ignored size policy (a stacked layout then skips their minimum
    and hint), the open one its own again, at every switch."""
    ignored = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)

    policies: dict[int, QSizePolicy] = {}  # each page's own policy, by its id

    def follow(current: int) -> None:
        for index in range(tabs.count()):
            page = tabs.widget(index)
            if page is None:
                continue
            own = policies.setdefault(id(page), page.sizePolicy())
            page.setSizePolicy(own if index == current else ignored)
        tabs.updateGeometry()

    tabs.currentChanged.connect(follow)
    follow(tabs.currentIndex())
