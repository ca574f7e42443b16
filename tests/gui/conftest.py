"""GUI test setup: settings in a temporary folder, and no test may leave a QTimer active or
a QThread running (napari's rule: a leaked timer fires into the next test)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Generator, Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, QThread, QTimer, Signal


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """QSettings (INI, user scope) point into a fresh temporary folder for every test."""
    folder = tmp_path_factory.mktemp("settings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    yield


@pytest.fixture(autouse=True)
def _earlier_widgets_deleted(qapp: object) -> None:
    """Delete what the tests before this one left to ``deleteLater`` (pytest-qt closes a
    test's widgets that way). Outside a running event loop Qt defers those deletions
    until one runs, and few tests run one: every window of the suite stayed alive (243
    widgets each, their signals and timers still connected), and each new window took
    longer than the last (0.35 s, then 0.73, 0.66, 0.69, 0.90 s five windows later)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


@pytest.fixture(autouse=True)
def _no_leaked_timers_or_threads(monkeypatch: pytest.MonkeyPatch, qapp: object) -> Iterator[None]:
    """Track every QTimer and QThread started during the test; fail if one is still
    active or running when the test (and its widgets' teardown) is over."""
    timers: weakref.WeakSet[QTimer] = weakref.WeakSet()
    threads: weakref.WeakSet[QThread] = weakref.WeakSet()
    start_timer, start_thread = QTimer.start, QThread.start

    def tracked_timer_start(timer: QTimer, *args: object) -> None:
        timers.add(timer)
        start_timer(timer, *args)

    def tracked_thread_start(thread: QThread, *args: object) -> None:
        threads.add(thread)
        start_thread(thread, *args)

    monkeypatch.setattr(QTimer, "start", tracked_timer_start)
    monkeypatch.setattr(QThread, "start", tracked_thread_start)
    yield
    active = []
    for timer in list(timers):
        try:
            if timer.isActive():
                active.append(f"QTimer {timer.objectName() or timer!r}")
                timer.stop()
        except RuntimeError:  # its C++ object is gone: it cannot fire
            pass
    for thread in list(threads):
        try:
            if thread.isRunning():
                active.append(f"QThread {thread.objectName() or thread!r}")
        except RuntimeError:
            pass
    assert not active, f"test left these running: {active}"


#: Emitted only by Qt's offscreen platform (it cannot pass a window's minimum size on to a
#: real window system); every other Qt warning still fails the test.
OFFSCREEN_ONLY = r"^This plugin does not support propagateSizeHints\(\)$"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/gui/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_ONLY))


@pytest.fixture
def window(qtbot: object) -> Iterator[object]:
    """The main window on the book example, shown at 1400×900 (settings isolated above)."""
    from gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)  # type: ignore[attr-defined]
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)  # type: ignore[attr-defined]
    yield win
    win.clock.pause()
    if win.gpu_panel is not None:
        win.gpu_panel.shutdown()


class ManualRunner(QObject):
    """A runner (see gui.run_worker.Runner) that runs nothing until the test says so:
    `finish(token)` drives that job to its end and emits its result, so races between
    edits play out in any order the test picks, without threads or sleeps."""

    landed = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[int, Callable[[], Generator[object, None, object]]] = {}
        self.cancels = 0

    def submit(self, token: int, job: Callable[[], Generator[object, None, object]]) -> None:
        self.jobs[token] = job

    def cancel(self) -> None:
        self.cancels += 1

    def shutdown(self) -> None:
        self.jobs.clear()

    def finish(self, token: int | None = None) -> None:
        """Run job ``token`` (the latest when None) to its end; emit landed or failed."""
        from engine.base.errors import PipeLabError

        token = max(self.jobs) if token is None else token
        steps = self.jobs.pop(token)()
        try:
            while True:
                next(steps)
        except StopIteration as stop:
            self.landed.emit(token, stop.value)
        except PipeLabError as error:
            self.failed.emit(token, str(error))


@pytest.fixture
def manual_runner() -> ManualRunner:
    return ManualRunner()


@pytest.fixture
def bar_paints(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each paint of a Gantt's bars from now on, one entry per paint (the BarsItem
    painted): the items keep no count of their own."""
    from gui.timeline_items import BarsItem

    painted: list[object] = []
    paint = BarsItem.paint

    def counting(self: BarsItem, *args: object) -> None:
        painted.append(self)
        paint(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(BarsItem, "paint", counting)
    return painted
