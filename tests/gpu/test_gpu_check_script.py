"""bench/gpu_check.py's flow on a fake CuPy at a small size: every step runs and reports,
a failing step is listed and the others still run and print, the JSON is written as it
goes, and a summary comes out even when the gpu tests step itself broke."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from gpu.errors import GpuError
from gpu.tiles import TileParams


@pytest.fixture
def check(fake_cupy, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from bench import gpu_check

    fake_cupy()
    monkeypatch.setenv("OUT", str(tmp_path))
    monkeypatch.setattr(gpu_check, "MIB", 1 << 16)  # experiment 1 and the copies: 4 MiB
    monkeypatch.setattr(
        gpu_check, "TileParams", partial(TileParams, size_bytes=1 << 20, repeats=1, warmup=0)
    )
    return gpu_check


def failing_sweep():
    raise GpuError("the occupancy sweep broke on purpose")
    yield  # pragma: no cover


def test_a_failing_step_leaves_the_others_running(check, monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(check, "run_gpu_tests", lambda: {"rc": 0, "summary": "3 passed"})
    monkeypatch.setattr(check, "sweep_occupancy", failing_sweep)
    assert check.main() == 1
    printed = capsys.readouterr().out
    assert "==== summary ====" in printed
    assert "exp1 3 streams" in printed and "exp2 balanced" in printed
    assert "ERROR             occupancy sweep: GpuError: the occupancy sweep broke" in printed
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert {"copies", "experiment1_streams3", "experiment2", "total_seconds"} <= set(report)
    assert report["errors"] == ["occupancy sweep: GpuError: the occupancy sweep broke on purpose"]


def test_a_broken_test_step_still_gives_a_summary(check, monkeypatch, tmp_path, capsys) -> None:
    def broken() -> dict[str, object]:
        raise OSError("no pytest here")

    monkeypatch.setattr(check, "run_gpu_tests", broken)
    monkeypatch.setattr(check, "sweep_occupancy", failing_sweep)
    assert check.main() == 1
    printed = capsys.readouterr().out
    assert "gpu tests         not run" in printed
    assert "total " in printed
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["errors"][0] == "gpu tests: OSError: no pytest here"
