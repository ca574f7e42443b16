"""bench/gpu_check.py cannot pass by accident: non-zero exit without a device or when every
GPU test is skipped; the JSON is saved right after every step, also when a step raises or
times out; a step that ignores its cancel makes the rest skip; experiment 1 calibrates once.
On a fake CuPy at a small size; the GPU tests' own invocation runs for real, with Qt and
hypothesis made unimportable, as on the device image."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from gpu.errors import GpuError
from gpu.occupancy import OccupancyPoint, OccupancySweep, launch_shape
from gpu.params import Progress
from gpu.tile_result import TileParams

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "gpu_check.py"


def load_script() -> Any:
    """bench/gpu_check.py as a module (bench/ is not an installed package)."""
    spec = importlib.util.spec_from_file_location("pipelab_gpu_check", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PASSED = {"rc": 0, "summary": "4 passed, 30 deselected in 9.1s", "counts": {"passed": 4}}


def stand_in_sweep(cancel: threading.Event | None = None):
    yield Progress(0.5, "half")
    points = tuple(
        OccupancyPoint(launch_shape(w, 4), 1.0, int(1e6 * g), w, w, steps=64)
        for w, g in ((1, 100.0), (8, 800.0), (32, 2000.0), (64, 2000.0))
    )
    return OccupancySweep("Fake GPU", 4, 64, points, l2_bytes=50 << 20)


@pytest.fixture
def check(fake_cupy, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    module = load_script()
    fake_cupy()
    monkeypatch.setenv("OUT", str(tmp_path))
    monkeypatch.setattr(module, "SIZE", 1 << 20)  # experiment 1 and the copies: 1 MiB
    monkeypatch.setattr(
        module,
        "tile_params",
        lambda: TileParams(
            size_bytes=1 << 20,
            intensities=(0, 2),
            repeats=1,
            warmup=0,
            min_launches=2,
            min_window_ms=0.0,
            warmup_ms=1.0,
        ),
    )
    monkeypatch.setattr(module, "run_gpu_tests", lambda: dict(PASSED))
    monkeypatch.setattr(module, "sweep_occupancy", stand_in_sweep)
    saves: list[dict[str, Any]] = []
    real_save = module.save

    def recording_save(report: dict[str, Any]) -> None:
        real_save(report)
        saves.append(json.loads((tmp_path / "gpu_check.json").read_text()))

    monkeypatch.setattr(module, "save", recording_save)
    module.saves = saves
    return module


def report_of(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "gpu_check.json").read_text())


def test_a_full_run_passes_and_saves_after_every_step(check, tmp_path, capsys) -> None:
    assert check.main() == 0
    printed = capsys.readouterr().out
    assert "gpu check         PASSED (exit status 0)" in printed
    assert "exp2 HEADLINE     1 block(s)/SM" in printed and "occupancy         saturated" in printed
    report = report_of(tmp_path)
    keys = ["tests", "copies", "experiment1_streams3", "experiment1_streams2"]
    keys += ["experiment1_streams4", "experiment2", "occupancy"]
    assert set(keys) <= set(report) and report["exit_status"] == 0
    # Each step's figures were on disk in the save right after that step.
    first_seen = [next(i for i, saved in enumerate(check.saves) if key in saved) for key in keys]
    assert first_seen == sorted(first_seen) and len(set(first_seen)) == len(keys)
    assert all(report["steps"][key]["status"] == "ok" for key in keys)


def test_experiment_1_calibrates_once_for_every_stream_count(check, tmp_path, capsys) -> None:
    check.main()
    report = report_of(tmp_path)
    intensities = {report[f"experiment1_streams{n}"]["intensity"] for n in (2, 3, 4)}
    assert len(intensities) == 1
    assert report["experiment1_intensity"]["calibrated_on_streams"] == 3
    notes = report["experiment1_streams2"]["notes"]
    assert any(note.startswith("intensity ") and "as given" in note for note in notes)
    assert "calibrated once on the 3-stream run" in capsys.readouterr().out


@pytest.mark.usefixtures("no_cupy")
def test_without_cupy_the_check_exits_non_zero(monkeypatch, tmp_path, capsys) -> None:
    module = load_script()
    monkeypatch.setenv("OUT", str(tmp_path))
    assert module.main() == module.NO_DEVICE == 3
    printed = capsys.readouterr().out
    assert "NO DEVICE (exit status 3)" in printed and "CuPy is not installed" in printed
    report = report_of(tmp_path)
    assert report["detection"]["backend"] == "cpu" and report["exit_status"] == 3
    assert "nothing was measured" in report["errors"][0]


def test_without_a_device_the_check_exits_non_zero(fake_cupy, monkeypatch, tmp_path) -> None:
    module = load_script()
    fake_cupy(device_count=0)
    monkeypatch.setenv("OUT", str(tmp_path))
    assert module.main() == 3
    assert report_of(tmp_path)["detection"]["reason"] == "no CUDA device found"


def test_the_script_itself_exits_non_zero_here(tmp_path) -> None:
    """The real entry point, as the README runs it, on this machine (no CUDA device)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import cupy; cupy.cuda.runtime.getDeviceCount()"],
        capture_output=True,
        timeout=120,
    )
    if probe.returncode == 0:
        pytest.skip("a CUDA device works here: this checks the exit without one")
    done = subprocess.run(
        [sys.executable, "-u", str(SCRIPT)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"OUT": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "NO DEVICE" in done.stdout
    assert report_of(tmp_path)["exit_status"] == 3


def test_every_gpu_test_skipped_fails_the_check(check, monkeypatch, tmp_path, capsys) -> None:
    skipped = {"rc": 0, "summary": "4 skipped, 30 deselected in 0.5s", "counts": {"skipped": 4}}
    monkeypatch.setattr(check, "run_gpu_tests", lambda: skipped)
    assert check.main() == 1
    errors = report_of(tmp_path)["errors"]
    assert errors == ["every GPU test was skipped or none ran: 4 skipped, 30 deselected in 0.5s"]
    assert "FAILED (exit status 1)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("summary", "counts"),
    [
        ("4 passed, 30 deselected in 9.1s", {"passed": 4, "deselected": 30}),
        ("1 failed, 2 passed, 1 skipped in 3s", {"failed": 1, "passed": 2, "skipped": 1}),
        ("2 errors in 0.1s", {"error": 2}),
        ("no tests ran in 0.01s", {}),
    ],
)
def test_pytest_summaries_are_read(summary, counts) -> None:
    module = load_script()
    assert module.test_counts(summary) == counts
    verdict = module.tests_verdict({"rc": 0, "summary": summary, "counts": counts})
    assert (verdict == "") == (counts.get("passed", 0) > 0 and not counts.get("failed"))


def rising_sweep(cancel: threading.Event | None = None):
    yield Progress(0.5, "half")
    points = tuple(
        OccupancyPoint(launch_shape(w, 4), 1.0, int(1e6 * g), w, w, steps=64)
        for w, g in ((1, 100.0), (8, 800.0), (32, 3200.0), (64, 6400.0))
    )
    return OccupancySweep("Fake GPU", 4, 64, points, l2_bytes=50 << 20)


def test_no_knee_is_printed_for_a_sweep_that_did_not_saturate(check, monkeypatch, capsys) -> None:
    monkeypatch.setattr(check, "sweep_occupancy", rising_sweep)
    check.main()
    printed = capsys.readouterr().out
    lines = [line for line in printed.splitlines() if line.startswith("occupancy         ")]
    assert lines and "not saturated by W = 64" in lines[0]
    assert "fit: peak 6,400.0 GB/s, not saturated by W = 64" in printed  # the sweep's table
    assert "knee W =" not in printed


def test_the_summary_says_which_row_carries_which_claim(check, capsys) -> None:
    check.main()
    printed = capsys.readouterr().out
    assert "exp2 HEADLINE     1 block(s)/SM" in printed
    claims = [line for line in printed.splitlines() if line.startswith("  which claim")]
    assert len(claims) == 2
    assert "1 block(s)/SM: gain over synchronous" in claims[0] and "85%" not in claims[0]
    assert "8 block(s)/SM: share of copy bandwidth" in claims[1] and "85%" in claims[1]
    launch = next(line for line in printed.splitlines() if line.startswith("exp2 launch"))
    assert "device side" in launch and "included" not in launch


def failing_sweep(cancel=None):
    raise GpuError("the occupancy sweep broke on purpose")
    yield  # pragma: no cover


def test_a_failing_step_is_saved_and_the_others_run(check, monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(check, "sweep_occupancy", failing_sweep)
    assert check.main() == 1
    printed = capsys.readouterr().out
    assert "==== summary ====" in printed and "exp1 3 streams" in printed
    assert "ERROR             occupancy sweep: GpuError: the occupancy sweep broke" in printed
    report = report_of(tmp_path)
    assert report["errors"] == ["occupancy sweep: GpuError: the occupancy sweep broke on purpose"]
    assert report["steps"]["occupancy"]["status"] == "error"
    # The save right after the failing step already held its error.
    after = next(saved for saved in check.saves if "occupancy" in saved.get("steps", {}))
    assert after["errors"] == report["errors"]


def test_a_broken_test_step_still_gives_a_summary(check, monkeypatch, tmp_path, capsys) -> None:
    def broken() -> dict[str, object]:
        raise OSError("no pytest here")

    monkeypatch.setattr(check, "run_gpu_tests", broken)
    assert check.main() == 1
    printed = capsys.readouterr().out
    assert "gpu tests         not run" in printed and "total " in printed
    report = report_of(tmp_path)
    assert report["errors"][0] == "gpu tests: OSError: no pytest here"
    assert "the GPU tests did not run" in report["errors"]


def test_a_step_past_its_timeout_is_cancelled_saved_and_the_next_runs(
    check, monkeypatch, tmp_path, capsys
) -> None:
    def slow_tiles(params, cancel):
        yield Progress(0.0, "starting")
        cancel.wait(30)  # a sweep checks its cancel between steps
        from gpu.errors import Cancelled

        raise Cancelled()

    monkeypatch.setattr(check, "run_tiles", slow_tiles)
    monkeypatch.setitem(check.TIMEOUTS, "experiment 2", 0.2)
    assert check.main() == 1
    report = report_of(tmp_path)
    assert report["steps"]["experiment2"]["status"] == "timeout"
    assert report["errors"] == ["experiment 2: timed out after 0 s (cancelled)"]
    assert report["steps"]["occupancy"]["status"] == "ok"  # the next step ran
    after = next(saved for saved in check.saves if "experiment2" in saved.get("steps", {}))
    assert after["errors"] == report["errors"] and "occupancy" not in after


def test_a_step_that_ignores_its_cancel_skips_the_rest(check, monkeypatch, tmp_path) -> None:
    release = threading.Event()

    def stuck_tiles(params, cancel):
        yield Progress(0.0, "starting")
        release.wait(30)  # like a thread inside a CUDA call: deaf to the cancel
        raise GpuError("released")

    monkeypatch.setattr(check, "run_tiles", stuck_tiles)
    monkeypatch.setitem(check.TIMEOUTS, "experiment 2", 0.2)
    monkeypatch.setattr(check, "GRACE_S", 0.2)
    try:
        assert check.main() == 1
    finally:
        release.set()
    report = report_of(tmp_path)
    assert report["steps"]["experiment2"]["status"] == "timeout"
    assert report["steps"]["occupancy"] == {
        "status": "skipped",
        "why": "experiment 2 did not stop",
    }
    assert report["abandoned"] == "experiment 2"
    assert "did not stop: the remaining steps are skipped" in report["errors"][0]


BLOCKER = """
import sys


class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"PySide6", "pyqtgraph", "hypothesis", "pytestqt", "cupy"}:
            raise ImportError(f"{name} is not on the device image")


sys.meta_path.insert(0, Block())
"""


def test_the_gpu_tests_run_without_qt_or_hypothesis(tmp_path) -> None:
    """The device image has python3, numpy, pytest and CuPy only: the check's own pytest run
    must collect tests/gpu there. Here (no device) every gpu test skips with its reason,
    which the check counts as a failure."""
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    module = load_script()
    tests = module.run_gpu_tests(extra_env={"PYTHONPATH": str(tmp_path)})
    assert tests["rc"] == 0, tests
    assert tests["counts"].get("skipped", 0) >= 4 and not tests["counts"].get("passed")
    assert not tests["counts"].get("error"), tests
    assert all("no working CUDA device" in line for line in tests["skipped"])
    assert module.tests_verdict(tests).startswith("every GPU test was skipped")


def test_the_readme_gives_the_command_and_the_steps_fit_its_timeout() -> None:
    """The device tool kills a command at 600 s: the README's total timeout is under it, the
    run's budget under that, and every step at its full timeout, each with its grace (the
    three experiment-1 runs counted), fits the budget even before the budget cuts them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"timeout (\d+) python3 -u bench/gpu_check\.py", readme)
    assert found, "the README must give the exact command with a total timeout"
    total = int(found.group(1))
    assert total < 600
    module = load_script()
    timeouts = module.TIMEOUTS
    steps = len(timeouts) - 1 + len(module.STREAM_COUNTS)
    worst = sum(timeouts.values()) + (len(module.STREAM_COUNTS) - 1) * timeouts["experiment 1"]
    assert worst + steps * module.GRACE_S <= module.BUDGET_S <= 540
    assert total >= module.BUDGET_S + 20  # start-up, detection and the summary
    assert f"timeout {total} python3 -u bench/gpu_check.py" in SCRIPT.read_text()
    assert "timeout 840" not in readme


def test_a_step_gets_only_what_the_budget_has_left(check, monkeypatch, capsys) -> None:
    """Started 500 s ago, 40 s are left: the next step gets 30 s (its grace kept back),
    whatever its own timeout; with under `MIN_STEP_S` left, it is skipped and reported."""
    import time

    report: dict[str, Any] = {}
    checker = check.Checker(report, started=time.perf_counter() - (check.BUDGET_S - 40))
    assert checker.step("experiment 2", "experiment2", lambda cancel: {"ran": True}) == {
        "ran": True
    }
    limit = float(re.search(r"timeout (\d+) s", capsys.readouterr().out).group(1))
    assert 25 <= limit <= 30
    late = check.Checker(report, started=time.perf_counter() - (check.BUDGET_S - 12))
    assert late.step("occupancy sweep", "occupancy", lambda cancel: {"ran": True}) is None
    assert report["steps"]["occupancy"]["status"] == "skipped"
    assert "budget" in report["steps"]["occupancy"]["why"]
    assert report["errors"] == [f"occupancy sweep: skipped: {report['steps']['occupancy']['why']}"]
