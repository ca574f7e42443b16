"""`bench` end to end in a subprocess on the CPU backend at a small size: the table, valid
JSON, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--backend", "cpu", "--size", "2", "--chunks", "8", "--repeats", "2", "--intensity", "2"]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_table_shows_measured_and_model() -> None:
    result = bench(*SMALL, "--width", "90")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for label in (
        "sequential (measured)",
        "pipelined (measured)",
        "pipelined (model)",
        "overlap efficiency",
        "values against numpy: all correct",
        "pipelined on CPU threads",
        "model: pipelined",
    ):
        assert label in out, label
    assert "2 MiB float32 in 8 chunks, 3 staging buffers" in out
    assert result.stderr == ""


def test_json_is_valid_and_complete() -> None:
    result = bench(*SMALL, "--format", "json", "--streams", "2")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    streams = data["streams"]
    assert streams["backend"] == "cpu" and streams["streams"] == 2 and streams["intensity"] == 2
    assert streams["sequential"]["source"] == "measured"
    assert streams["pipelined"]["buffers"] == 2
    assert streams["predicted"]["source"] == "simulated"
    assert len(streams["pipelined"]["tasks"]) == 3 * 8
    assert streams["pipelined"]["workers"] == {
        "read thread": 1,
        "compute thread": 1,
        "write thread": 1,
    }
    assert streams["speedup"] == pytest.approx(
        streams["sequential_makespan"] / streams["pipelined_makespan"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chunks", "x"], "--chunks: invalid int value"),
        (["--chunks", "0"], "chunks must be between"),
        (["--size", "-1"], "--size must be more than 0"),
        (["--intensity", "lots"], "--intensity must be a whole number or auto"),
        (["--repeats", "0"], "repeats must be between"),
        (["--backend", "tpu"], "invalid choice"),
        (["--experiment", "tiles"], "experiment 2 (tiles) needs the cupy backend"),
    ],
)
def test_bad_flags_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = bench("--backend", "cpu", *args) if "--backend" not in args else bench(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_cupy_backend_without_cupy_is_one_line() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import cupy"], capture_output=True, text=True, timeout=60
    )
    if probe.returncode == 0:
        pytest.skip("CuPy is installed here; this checks the message where it is not")
    result = bench("--backend", "cupy", "--size", "1")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "pipelab: the cupy backend cannot run: CuPy is not installed "
        "(install the gpu extra: uv sync --extra gpu)"
    )
