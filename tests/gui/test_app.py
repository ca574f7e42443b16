"""Starting the app: the PIPELAB_QUIT_AFTER_MS hook the install test uses."""

from __future__ import annotations

import pytest

from engine.errors import PipeLabError
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
