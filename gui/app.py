"""Start the desktop app: `run_app` is what `uv run main.py` calls.

Start-up stays light: only the window's own modules load here; exporting (Pillow, SVG and
PDF writers) and anything GPU-related load when first used.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from engine.base.errors import PipeLabError
from engine.base.validation import shown
from engine.model.scenario import Scenario, load_preset
from engine.model.shape_file import ShapedScenario, load_any_preset
from gui.errors import install_excepthook
from gui.memory import hold_freed_memory
from gui.platforms import platform_problem
from gui.scenario_edits import check_app_size, load_for_app
from gui.settings import APPLICATION, ORGANIZATION, settings

if TYPE_CHECKING:
    from gui.main_window import MainWindow


def make_app(argv: list[str] | None = None) -> QApplication:
    """The QApplication (created once), with the names QSettings uses."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        hold_freed_memory()  # once for the process, before any worker thread starts
        app = QApplication(sys.argv[:1] if argv is None else argv)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("PipeLab")
    return app


def initial_scenario(
    scenario_path: str | None, preset: str | None
) -> tuple[Scenario, str, ShapedScenario | None]:
    """What to open: the given file or preset, else the last scenario (and the shape the
    app was editing, if it was), else the book example; a pipeline shape comes third, the
    book-shaped scenario under it first (the form's book fields keep it).

    Raises PipeLabError for a bad file or preset name given on the command line, or one
    bigger than the app shows (`check_app_size`, as File → Open refuses it).
    """
    given = None
    if scenario_path:
        given, name = load_for_app(scenario_path), ""
    elif preset:
        given, name = load_any_preset(preset), preset
    if isinstance(given, ShapedScenario):
        return load_preset("book"), "book", given
    if given is not None:
        return given, name, None
    return (*_last_scenario(), _last_shape())


def _last_scenario() -> tuple[Scenario, str]:
    """The scenario the app showed when it was last closed, else the book example."""
    store = settings()
    text = store.value("scenario/toml")
    if isinstance(text, str) and text:
        try:
            name = str(store.value("scenario/preset", ""))
            return check_app_size(Scenario.from_toml(text, source="last scenario")), name
        except PipeLabError:
            pass  # a stale or damaged setting: fall back to the book example
    return load_preset("book"), "book"


def _last_shape() -> ShapedScenario | None:
    """The pipeline shape the app was editing when it was last closed, if it was."""
    text = settings().value("scenario/shape")
    if isinstance(text, str) and text:
        try:
            shape = ShapedScenario.from_toml(text, source="last shape")
            check_app_size(shape)
            return shape
        except PipeLabError:
            pass  # a stale or damaged setting: the book-shaped scenario alone
    return None


def make_window(scenario_path: str | None = None, preset: str | None = None) -> MainWindow:
    """Create the app (if needed) and the main window on the chosen scenario."""
    scenario, name, shape = initial_scenario(scenario_path, preset)
    window = window_on(scenario, name)
    if shape is not None:
        window.model.open_shape(shape, wait=True, preset=_shape_preset(scenario_path, preset))
    return window


def _shape_preset(scenario_path: str | None, preset: str | None) -> str:
    """The preset name of the shape `initial_scenario` gave: the one asked for, else the
    one the app was editing when it was last closed ("" for a file's)."""
    if scenario_path is None and preset is None:
        return str(settings().value("scenario/shape_preset", ""))
    return preset or ""


def window_on(scenario: Scenario, preset: str) -> MainWindow:
    """Create the app (if needed) and the main window on ``scenario`` (``preset``: its
    preset's name, "" when it is none)."""
    make_app()
    from gui.main_window import MainWindow

    return MainWindow(scenario=scenario, preset=preset) if not preset else MainWindow(preset=preset)


#: Set to a number of milliseconds, the app quits by itself that long after it started:
#: the install test starts the installed app offscreen this way (and smoke checks may too).
QUIT_AFTER_VARIABLE = "PIPELAB_QUIT_AFTER_MS"
#: The longest a Qt timer waits (a C int of ms, about 24.8 days).
MAX_QUIT_AFTER_MS = 2**31 - 1


def quit_after_ms() -> int | None:
    """The ``PIPELAB_QUIT_AFTER_MS`` setting, or None when unset; PipeLabError (one line)
    unless a whole number from 0 to `MAX_QUIT_AFTER_MS` (Qt's timers take an int: a bigger
    number ended in an OverflowError once the window was up)."""
    text = os.environ.get(QUIT_AFTER_VARIABLE, "").strip()
    if not text:
        return None
    try:
        ms = int(text) if text.isascii() and text.isdigit() else -1
    except ValueError:  # more digits than Python converts
        ms = -1
    if not 0 <= ms <= MAX_QUIT_AFTER_MS:
        raise PipeLabError(
            f"{QUIT_AFTER_VARIABLE} must be a whole number of ms from 0 to "
            f"{MAX_QUIT_AFTER_MS:,}, not {shown(text)}"
        )
    return ms


#: Qt platforms that draw without a window system (tests, screenshots, remote framebuffers).
HEADLESS_PLATFORMS = (
    "offscreen",
    "minimal",
    "minimalegl",
    "vnc",
    "linuxfb",
    "eglfs",
    "vkkhrdisplay",
)


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str:
    """Why no window can open here ("" when one can): on Linux and the BSDs, Qt's X11 and
    Wayland platforms need a display, and without one Qt aborts the process after seven
    lines about plugins. Said before Qt starts, in one line with what to use instead."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin", "cygwin")):
        return ""
    chosen = [p.split(":")[0].strip() for p in environ.get("QT_QPA_PLATFORM", "").split(";")]
    if any(name in HEADLESS_PLATFORMS for name in chosen):
        return ""
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return ""
    return (
        "no display to open the app's window on (neither DISPLAY nor WAYLAND_DISPLAY is set): "
        "use `pipelab simulate` or `pipelab export` for tables and images, or set "
        "QT_QPA_PLATFORM=offscreen"
    )


def run_app(
    scenario_path: str | None = None, preset: str | None = None, profile: str | None = None
) -> int:
    """Open PipeLab on the book example (or the given preset / scenario file / recorded
    profile) and run it.

    An exception raised in any slot is shown as one line under the scenario form (and,
    unless it is a PipeLabError, logged with its traceback): the app stays up."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    quit_after = quit_after_ms()
    opened = initial_scenario(scenario_path, preset)  # a bad file: a line, before any window
    external = None
    if profile is not None:
        from gui.profile_open import profile_run

        external = profile_run(profile)  # read before any window, as a scenario file is
    problem = platform_problem() or display_problem()
    if problem:
        raise PipeLabError(problem)
    app = make_app()
    scenario, name, shape = opened
    window = window_on(scenario, name)
    if shape is not None:
        window.model.open_shape(shape, wait=True, preset=_shape_preset(scenario_path, preset))
    if external is not None:
        window.show_schedules(list(external.schedules), external.title, external.description)
    install_excepthook(window.show_error)
    window.show()
    if quit_after is not None:
        QTimer.singleShot(quit_after, window.close)  # closing saves state as a user's would
        QTimer.singleShot(quit_after, app.quit)
    return int(app.exec())
