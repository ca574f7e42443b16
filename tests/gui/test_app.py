"""Starting the app: the PIPELAB_QUIT_AFTER_MS hook the install test uses."""

from __future__ import annotations

import pytest

from engine.base.errors import PipeLabError
from gui.app import QUIT_AFTER_VARIABLE, quit_after_ms


def test_unset_means_run_until_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(QUIT_AFTER_VARIABLE, raising=False)
    assert quit_after_ms() is None
    monkeypatch.setenv(QUIT_AFTER_VARIABLE, " ")
    assert quit_after_ms() is None


def test_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(QUIT_AFTER_VARIABLE, "2500")
    assert quit_after_ms() == 2500


@pytest.mark.parametrize("text", ["soon", "-1", "1.5"])
def test_anything_else_is_one_line(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(QUIT_AFTER_VARIABLE, text)
    with pytest.raises(PipeLabError, match=QUIT_AFTER_VARIABLE):
        quit_after_ms()


@pytest.mark.parametrize(
    ("environ", "platform", "refused"),
    [
        ({}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "freebsd14", True),
        ({"DISPLAY": ":0"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, "linux", False),
        ({}, "win32", False),
        ({}, "darwin", False),
    ],
)
def test_no_display_is_said_before_qt_starts(environ: dict, platform: str, refused: bool) -> None:
    from gui.app import display_problem

    problem = display_problem(environ, platform)
    assert bool(problem) == refused
    if refused:
        assert "no display" in problem and "pipelab export" in problem and "\n" not in problem


@pytest.mark.parametrize("text", ["99999999999999999999", "2147483648", "9" * 5000, "１２"])
def test_a_number_past_what_qt_timers_hold_is_one_line(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """99999999999999999999 once ended in an OverflowError from QTimer once the app was up."""
    monkeypatch.setenv(QUIT_AFTER_VARIABLE, text)
    with pytest.raises(PipeLabError, match="from 0 to 2,147,483,647") as raised:
        quit_after_ms()
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 200


def test_the_largest_timer_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(QUIT_AFTER_VARIABLE, str(2**31 - 1))
    assert quit_after_ms() == 2**31 - 1
