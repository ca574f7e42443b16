"""The device check: the GPU tests, both experiments at full size and the occupancy sweep
(warp latency hiding), a short summary last.

    timeout 570 python3 -u bench/gpu_check.py     # the device image's python3: CuPy, numpy, pytest

Needs neither uv nor the project installed (the repository root goes on sys.path), and no
PySide6 or hypothesis: engine/ and gpu/ import with numpy alone, and the GPU tests run with
a bare pytest config that loads only tests/gpu's conftest (tests check both).

It cannot pass by accident. Exit status:
- 0: a CUDA device worked through CuPy, every step ran and at least one GPU test passed;
- 1: a step failed or timed out, a GPU test failed, or every GPU test was skipped;
- 3: no CUDA device through CuPy (nothing measured; the reason is printed and saved).

Every step has its own timeout (`TIMEOUTS`), and the whole run a budget (`BUDGET_S`, from
the script's start): a step gets the smaller of its timeout and what the budget has left
after a grace (`GRACE_S`), and is skipped when that is under `MIN_STEP_S`. So the run ends
inside `BUDGET_S` whatever the steps do, and the README's outer `timeout 570` (under the
device tool's 600 s per command) only ever catches interpreter start-up, the CUDA context
and the summary. A step past its limit is cancelled (the experiments stop between chunks or
sweep steps), and when it does not stop the remaining device steps are skipped. A clean run
on an H200 is estimated at 2-4 minutes.

What was measured is written to $OUT/gpu_check.json (./gpu_check.json when OUT is unset)
immediately after every step, whatever the step's outcome, so a run killed at any point
still reports. Output is flushed line by line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from gpu.detect import detect  # noqa: E402
from gpu.experiments import run_to_end  # noqa: E402
from gpu.occupancy import sweep_occupancy  # noqa: E402
from gpu.params import MIB, PipelineParams, Progress  # noqa: E402
from gpu.report import pipeline_rows, tile_rows  # noqa: E402
from gpu.streams import copy_bandwidth, run_cupy_pipeline  # noqa: E402
from gpu.tile_result import TileParams  # noqa: E402
from gpu.tiles import run_tiles  # noqa: E402

#: Experiment 1's data size and the copies' (256 MiB); tests make it smaller.
SIZE = 256 * MIB
STREAM_COUNTS = (3, 2, 4)
#: Seconds each step may take, about 3× what it is estimated to need on an H200: the tests
#: (a pytest process, NVRTC compiles every kernel once, small runs of both experiments and
#: a 5-point sweep) ~30-40 s; the copies (256 MiB each way, 7 windows of >= 20 copies,
#: pinned allocation) ~3-5 s; experiment 1 per stream count (2 × 256 MiB pinned, a
#: calibration, 2 × 6 runs) ~5-10 s; experiment 2 (2 passes × 7 intensities × 4 timings ×
#: 13 windows, a 256 MiB input built and checked with numpy) ~20-40 s; the occupancy sweep
#: (16 points × 5 windows, each launch reading >= 4 × L2) ~5-15 s.
TIMEOUTS = {
    "gpu tests": 120.0,
    "copy bandwidth": 30.0,
    "experiment 1": 40.0,  # each of the three stream counts
    "experiment 2": 120.0,
    "occupancy sweep": 75.0,
}
#: After a timeout, how long a cancelled step may take to stop before the rest is skipped.
GRACE_S = 10.0
#: The whole run, from the script's start: no step is given time past it (with its grace).
#: The README's `timeout 570` adds 30 s for start-up and the summary; the device tool kills
#: a command at 600 s.
BUDGET_S = 540.0
#: A step the budget leaves less than this is skipped rather than started.
MIN_STEP_S = 5.0
#: A running step prints its progress at most this often.
PROGRESS_EVERY_S = 5.0
NO_DEVICE = 3
INI = """[pytest]
markers =
    gpu: needs a working CUDA device through CuPy
    xvfb: opens a real window on an X server
"""


def say(*parts: object, sep: str = " ") -> None:
    print(*parts, sep=sep, flush=True)


def tile_params() -> TileParams:
    return TileParams()


def run_gpu_tests(extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """tests/gpu's device tests in a subprocess: a bare config and only tests/gpu's conftest
    (the project's need pytest-qt and hypothesis, which the device image lacks), no plugins
    loaded from entry points."""
    with tempfile.TemporaryDirectory() as folder:
        ini = Path(folder) / "pytest.ini"
        ini.write_text(INI)
        command = [sys.executable, "-m", "pytest", "-c", str(ini), f"--rootdir={ROOT}"]
        command += [f"--confcutdir={ROOT / 'tests' / 'gpu'}", "-p", "no:cacheprovider"]
        command += ["-q", "-rs", "-m", "gpu", str(ROOT / "tests" / "gpu")]
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **(extra_env or {}))
        try:
            done = subprocess.run(
                command,
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUTS["gpu tests"] - 10,
            )
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"pytest ran past {TIMEOUTS['gpu tests'] - 10:.0f} s") from None
    say(done.stdout[-6000:], done.stderr[-2000:], sep="\n")
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    summary = lines[-1] if lines else done.stderr.strip()[-300:]
    counts = test_counts(summary)
    skipped = [line for line in lines if line.startswith("SKIPPED")]
    return {"rc": done.returncode, "summary": summary, "counts": counts, "skipped": skipped}


def test_counts(summary: str) -> dict[str, int]:
    """{'passed': 3, 'skipped': 1, …} from pytest's last line."""
    found = re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected|xfailed|xpassed)", summary)
    return {("error" if kind == "errors" else kind): int(n) for n, kind in found}


def tests_verdict(tests: dict[str, Any] | None) -> str:
    """Why the GPU tests step fails the check ("" when it doesn't)."""
    if not tests:
        return "the GPU tests did not run"
    counts = tests.get("counts", {})
    if counts.get("failed") or counts.get("error") or tests.get("rc") not in (0,):
        return f"GPU tests failed: {tests.get('summary')}"
    if not counts.get("passed"):
        return f"every GPU test was skipped or none ran: {tests.get('summary')}"
    return ""


def save(report: dict[str, Any]) -> None:
    """Write what was measured so far to $OUT/gpu_check.json (./gpu_check.json without OUT),
    through a temporary file, so a kill mid-write leaves the last good copy."""
    target = Path(os.environ.get("OUT") or ".") / "gpu_check.json"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".json.part")
        partial.write_text(json.dumps(report, indent=1, default=str))
        partial.replace(target)
    except OSError as error:
        say(f"could not write {target}: {error}")


class Checker:
    """Runs the steps, each on a worker thread with its own timeout (cut to what the run's
    budget has left), saving after each."""

    def __init__(self, report: dict[str, Any], started: float | None = None) -> None:
        self.report = report
        self.abandoned: str | None = None
        self.deadline = (time.perf_counter() if started is None else started) + BUDGET_S

    def budget_left(self) -> float:
        """Seconds a step starting now may run, its grace kept back, inside the budget."""
        return self.deadline - time.perf_counter() - GRACE_S

    def step(
        self,
        name: str,
        key: str,
        action: Callable[[threading.Event], Any],
        figures: Callable[[Any], Any] = lambda value: value,
        timeout: float | None = None,
    ) -> Any:
        """Run ``action(cancel)``; store ``figures(value)`` under ``key``; save; return the
        value (None when it failed, timed out, or was skipped)."""
        own = timeout if timeout is not None else TIMEOUTS[name.split(",")[0]]
        left = self.budget_left()
        limit = min(own, left)
        steps = self.report.setdefault("steps", {})
        if self.abandoned is not None:
            steps[key] = {"status": "skipped", "why": f"{self.abandoned} did not stop"}
            say(f"== {name}: skipped ({self.abandoned} timed out and did not stop)")
            save(self.report)
            return None
        if left < min(own, MIN_STEP_S):
            why = f"the run's {BUDGET_S:.0f} s budget has {max(0.0, left):.0f} s left"
            steps[key] = {"status": "skipped", "why": why}
            self.report.setdefault("errors", []).append(f"{name}: skipped: {why}")
            say(f"== {name}: skipped ({why})")
            save(self.report)
            return None
        say(f"== {name} (timeout {limit:.0f} s)")
        cancel = threading.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["value"] = action(cancel)
            except BaseException as error:  # reported on the main thread
                box["error"] = error
                box["trace"] = traceback.format_exc()

        started = time.perf_counter()
        worker = threading.Thread(target=work, name=f"gpu-check {key}", daemon=True)
        worker.start()
        worker.join(limit)
        seconds = round(time.perf_counter() - started, 2)
        if worker.is_alive():
            cancel.set()
            worker.join(GRACE_S)
            stopped = not worker.is_alive()
            if not stopped:
                self.abandoned = name
            message = f"{name}: timed out after {limit:.0f} s" + (
                " (cancelled)" if stopped else " and did not stop: the remaining steps are skipped"
            )
            steps[key] = {"status": "timeout", "seconds": seconds}
            self.report.setdefault("errors", []).append(message)
            say(f"ERROR {message}")
            save(self.report)
            return None
        if "error" in box:
            error = box["error"]
            say(box["trace"].rstrip())
            steps[key] = {"status": "error", "seconds": seconds}
            self.report.setdefault("errors", []).append(f"{name}: {type(error).__name__}: {error}")
            save(self.report)
            return None
        value = box["value"]
        try:
            self.report[key] = figures(value)
        except Exception as error:  # figures of a good run must not hide the run
            self.report.setdefault("errors", []).append(f"{name}: figures: {error!r}")
        steps[key] = {"status": "ok", "seconds": seconds}
        save(self.report)
        return value


def progress_printer() -> Callable[[Progress], None]:
    last = [time.perf_counter()]

    def show(progress: Progress) -> None:
        now = time.perf_counter()
        if now - last[0] >= PROGRESS_EVERY_S:
            last[0] = now
            say(f"   … {progress.fraction:4.0%} {progress.message}")

    return show


def main() -> int:
    started = time.perf_counter()
    report: dict[str, Any] = {"command": "python3 -u bench/gpu_check.py"}
    found = detect()
    report["detection"] = {
        "backend": found.backend,
        "device": found.describe(),
        "reason": found.reason,
        "async_copy_reason": found.async_copy_reason,
    }
    say(f"detection: {found.describe()}")
    save(report)
    if found.backend != "cupy" or found.device is None:
        report["errors"] = [f"no CUDA device through CuPy: {found.reason}; nothing was measured"]
        return finish(report, started, NO_DEVICE)
    report["budget"] = {
        "budget_s": BUDGET_S,
        "grace_s": GRACE_S,
        "step_timeouts_s": dict(TIMEOUTS),
        "experiment1_runs": len(STREAM_COUNTS),
    }
    checker = Checker(report, started)
    checker.step("gpu tests", "tests", lambda cancel: run_gpu_tests())
    checker.step("copy bandwidth", "copies", lambda cancel: copy_bandwidth(SIZE))
    intensity: int | None = None
    for count in STREAM_COUNTS:
        params = PipelineParams(size_bytes=SIZE, chunks=16, streams=count, repeats=5)
        params = replace(params, intensity=intensity)
        result = checker.step(
            f"experiment 1, {count} streams",
            f"experiment1_streams{count}",
            lambda cancel, p=params: run_to_end(run_cupy_pipeline(p, cancel), progress_printer()),
            figures=lambda r: r.figures(),
        )
        if result is None:
            continue
        if intensity is None:
            intensity = result.intensity
            report["experiment1_intensity"] = {
                "intensity": intensity,
                "calibrated_on_streams": count,
                "rule": "calibrated once (kernel ≈ copy) on this run; every other stream "
                "count runs the same kernel at this intensity",
            }
            save(report)
        if count == STREAM_COUNTS[0]:
            for label, value in pipeline_rows(result):
                say(f"  {label:<24}{value}")
            for note in result.notes:
                say(f"  note: {note}")
    tiles = checker.step(
        "experiment 2",
        "experiment2",
        lambda cancel: run_to_end(run_tiles(tile_params(), cancel), progress_printer()),
        figures=lambda r: r.figures(),
    )
    if tiles is not None:
        for label, value in tile_rows(tiles):
            say(f"  {label:<24}{value}")
        for note in tiles.notes:
            say(f"  note: {note}")
    occupancy = checker.step(
        "occupancy sweep",
        "occupancy",
        lambda cancel: run_to_end(sweep_occupancy(cancel=cancel), progress_printer()),
        figures=lambda r: r.figures(),
    )
    if occupancy is not None:
        say(occupancy.table())
    try:
        print_summary(report)
    except Exception as error:  # the summary must never hide the figures already saved
        report.setdefault("errors", []).append(f"summary: {error!r}")
    verdict = tests_verdict(report.get("tests"))
    if verdict:
        report.setdefault("errors", []).append(verdict)
    failed = bool(report.get("errors"))
    return finish(report, started, 1 if failed else 0, abandoned=checker.abandoned)


def print_summary(report: dict[str, Any]) -> None:
    """The summary, from the saved figures (what the JSON holds is what is printed)."""
    say("\n==== summary ====")
    say(f"device            {report['detection']['device']}")
    say(f"gpu tests         {(report.get('tests') or {}).get('summary', 'not run')}")
    copies = report.get("copies")
    if copies:
        say(
            f"copies ({SIZE // MIB} MiB)  H2D {copies['h2d_gbps']:.1f} GB/s, D2H "
            f"{copies['d2h_gbps']:.1f} GB/s, D2D {copies['d2d_gbps']:.0f} GB/s (read + "
            "written); N launches per event pair"
        )
    fixed = report.get("experiment1_intensity")
    if fixed:
        say(
            f"exp1 intensity    {fixed['intensity']}, calibrated once on the "
            f"{fixed['calibrated_on_streams']}-stream run; the same kernel for every stream count"
        )
    for count in sorted(STREAM_COUNTS):
        e1 = report.get(f"experiment1_streams{count}")
        if not e1:
            continue
        seq, pipe = e1["sequential_spread"], e1["pipelined_spread"]
        say(
            f"exp1 {count} streams    seq {seq['median']:.2f} ms [{seq['min']:.2f}-"
            f"{seq['max']:.2f}], pipe {pipe['median']:.2f} ms [{pipe['min']:.2f}-"
            f"{pipe['max']:.2f}], model {e1['predicted_makespan']:.2f} ms, speedup "
            f"{e1['speedup']:.2f}x (model {e1['predicted_speedup']:.2f}x), efficiency "
            f"{e1['overlap_efficiency']:.0%} (goal >= 90%)"
        )
        say(f"  why             {e1['efficiency_explanation']['text']}")
    e1 = report.get(f"experiment1_streams{STREAM_COUNTS[0]}")
    if e1 and copies:
        share = e1["read_gbps"] / copies["h2d_gbps"]
        say(
            f"exp1 H2D          chunk copy-in {e1['read_gbps']:.1f} GB/s = {share:.0%} of the "
            f"best H2D (goal >= 80%); kernel {e1['compute_gbps']:.0f} GB/s"
        )
    e2 = report.get("experiment2")
    if e2:
        launch = e2.get("launch_overhead") or {}
        host_bound = launch.get("host_bound_windows", 0)
        say(
            f"exp2 launch       {e2['launch_overhead_ms'] * 1e3:.2f} µs per launch, device "
            "side: an empty kernel on the main grid, launch to launch (N queued behind a spin "
            "before the window opens); not subtracted from the figures"
            + (
                f"; HOST-BOUND in {host_bound} window(s): partly Python's submission rate"
                if host_bound
                else ""
            )
        )
        head = e2.get("headline")
        main_head = e2.get("main_pass_headline")
        two = len(e2["passes"]) > 1
        if head:
            say(f"exp2 HEADLINE     {head['text']}")
            say(
                f"  which claim     {head['blocks_per_sm']} block(s)/SM: {head['claim']} "
                f"({head['goal']}) on the balanced row; the variant fixed in advance"
            )
        if main_head and two:
            say(f"exp2 full occ.    {main_head['text']}")
            say(
                f"  which claim     {main_head['blocks_per_sm']} block(s)/SM: "
                f"{main_head['claim']} ({main_head['goal']}) on the balanced row"
            )
        for sweep in e2["passes"]:
            for row in sweep["rows"]:
                cells = " ".join(
                    f"{v}={row['copy_ms'] / row[f'{v}_ms']:.2f}" for v in e2["variants"]
                )
                mark = " *" if row["intensity"] == sweep["balanced_intensity"] else ""
                say(
                    f"exp2 {sweep['blocks_per_sm']}/SM i={row['intensity']:<5}"
                    f"share of copy bandwidth: {cells}{mark}"
                )
        say("exp2              * = the balanced row of that pass (its own max(load, compute))")
    occupancy = report.get("occupancy")
    if occupancy:
        fit = occupancy["fit"]
        shape = (
            f"knee W = {fit['knee_warps_per_sm']:.1f}"
            if occupancy.get("saturated")
            else f"not saturated by W = {max(p['warps_per_sm'] for p in occupancy['points'])}"
        )
        say(
            f"occupancy         fit peak {fit['peak_gbps']:.0f} GB/s, {shape}, RMS residual "
            f"{fit['rms_residual_gbps']:.1f} GB/s ({fit['relative_residual']:.1%}); L2 "
            f"{occupancy['l2_bytes'] / 2**20:.0f} MiB"
        )
        say(f"occupancy         {occupancy['verdict']}")


def finish(report: dict[str, Any], started: float, code: int, abandoned: str | None = None) -> int:
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    report["exit_status"] = code
    say(f"total             {report['total_seconds']} s")
    for error in report.get("errors", []):
        say(f"ERROR             {error}")
    word = {0: "PASSED", NO_DEVICE: "NO DEVICE"}.get(code, "FAILED")
    say(f"gpu check         {word} (exit status {code})")
    save(report)
    if abandoned is not None:
        report["abandoned"] = abandoned
        save(report)
    return code


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # A step that never stopped may hold a thread inside CUDA: leave without joining it.
    os._exit(status)
