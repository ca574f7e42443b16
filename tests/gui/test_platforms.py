"""A QT_QPA_PLATFORM naming no plugin this Qt has: one line naming it and the ones there
are, exit 2, before Qt starts (Qt aborted with five lines and a core dump)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui.platforms import available_platforms, chosen_platforms, platform_problem

ROOT = Path(__file__).resolve().parents[2]


def test_the_plugins_qt_has_are_read_by_their_keys() -> None:
    available = available_platforms({})
    assert {"offscreen", "minimal"} <= set(available)
    assert all(name == name.lower() and "lib" not in name for name in available), available


@pytest.mark.parametrize(
    ("value", "names"),
    [("", []), ("xcb", ["xcb"]), ("wayland;xcb", ["wayland", "xcb"]), ("vnc:size=8x6", ["vnc"])],
)
def test_the_chosen_names(value: str, names: list[str]) -> None:
    assert chosen_platforms({"QT_QPA_PLATFORM": value}) == names


@pytest.mark.parametrize("value", ["", "offscreen", "OFFSCREEN", "bogus;offscreen", "vnc:size=8x6"])
def test_a_platform_qt_has_is_no_problem(value: str) -> None:
    assert platform_problem({"QT_QPA_PLATFORM": value}) == ""


@pytest.mark.parametrize("value", ["bogus", "bogus;nothing", "x\ny"])
def test_an_unknown_platform_is_one_line_naming_the_known_ones(value: str) -> None:
    problem = platform_problem({"QT_QPA_PLATFORM": value})
    assert "\n" not in problem
    assert problem.startswith("QT_QPA_PLATFORM='") and "offscreen" in problem, problem


@pytest.mark.parametrize("display", [None, ":99"])
def test_the_app_says_it_and_exits_2(tmp_path: Path, display: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="bogus", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    env["PIPELAB_QUIT_AFTER_MS"] = "1"  # should it start after all, it ends at once
    if display:
        env["DISPLAY"] = display
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "'bogus'" in result.stderr and "offscreen" in result.stderr, result.stderr
