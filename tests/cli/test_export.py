"""The `export` command through a subprocess, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # the command must go offscreen by itself
    env.pop("DISPLAY", None)
    return subprocess.run(
        [sys.executable, "main.py", "export", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_png_svg_pdf_json(tmp_path: Path) -> None:
    png, svg, pdf, trace = (tmp_path / f"t.{s}" for s in ("png", "svg", "pdf", "json"))
    result = run("--preset", "book", "--out", str(png), "--width", "1000", "--assembly")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert Image.open(png).width == 1000
    assert run("--preset", "double-buffering", "--out", str(svg)).returncode == 0
    assert "<svg" in svg.read_text()
    assert run("--ops", "5", "--policy", "pipelined", "--out", str(pdf)).returncode == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert run("--out", str(trace)).returncode == 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 18


def test_gif(tmp_path: Path) -> None:
    gif = tmp_path / "t.gif"
    result = run("--out", str(gif), "--width", "400", "--fps", "1", "--policy", "pipelined")
    assert result.returncode == 0, result.stderr
    assert Image.open(gif).n_frames == 6  # 5 s at 1 fps, both ends


@pytest.mark.parametrize(
    ("out", "words"),
    [("t.bmp", "unknown export format '.bmp'"), ("nowhere/t.png", "does not exist")],
)
def test_bad_target_is_one_line_exit_2(tmp_path: Path, out: str, words: str) -> None:
    result = run("--out", str(tmp_path / out))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and words in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_bad_scenario_flag_is_one_line_exit_2(tmp_path: Path) -> None:
    result = run("--ops", "0", "--out", str(tmp_path / "t.png"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_a_nan_time_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    png = tmp_path / "t.png"
    result = run("--out", str(png), "--assembly", "--time", "nan")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "--time must be a finite number" in result.stderr
    assert list(tmp_path.iterdir()) == []
