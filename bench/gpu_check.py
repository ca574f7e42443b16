"""The device check: gpu tests, both experiments at full size and the occupancy sweep (warp
latency hiding), a short table last.

    python3 bench/gpu_check.py            # the device image's own python3: CuPy, numpy, pytest

Needs neither uv nor the project installed (the repository root goes on sys.path) and no
PySide6: engine/ and gpu/ import with numpy alone (a test checks it).
Finishes in well under 5 minutes on an H200. Writes everything it measured so far to
$OUT/gpu_check.json when OUT is set, after every step, so a run cut short still reports.
A step that fails is reported and the next one runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from gpu.detect import detect  # noqa: E402
from gpu.experiments import run_to_end  # noqa: E402
from gpu.occupancy import sweep_occupancy  # noqa: E402
from gpu.params import MIB, PipelineParams  # noqa: E402
from gpu.report import pipeline_rows, tile_rows  # noqa: E402
from gpu.streams import copy_bandwidth, run_cupy_pipeline  # noqa: E402
from gpu.tiles import SYNC, VARIANTS, TileParams, run_tiles  # noqa: E402

PYTEST_TIMEOUT = 150
INI = """[pytest]
markers =
    gpu: needs a working CUDA device through CuPy
    xvfb: opens a real window on an X server
"""


def run_gpu_tests() -> dict[str, Any]:
    """tests/gpu's device tests, with a bare config (the project's needs pytest-qt)."""
    with tempfile.TemporaryDirectory() as folder:
        ini = Path(folder) / "pytest.ini"
        ini.write_text(INI)
        command = [sys.executable, "-m", "pytest", "-c", str(ini), f"--rootdir={ROOT}"]
        command += [f"--confcutdir={ROOT}", "-p", "no:cacheprovider", "-q", "-rs", "-m", "gpu"]
        command += [str(ROOT / "tests" / "gpu")]
        env = dict(os.environ)
        try:
            done = subprocess.run(
                command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=PYTEST_TIMEOUT
            )
        except subprocess.TimeoutExpired:
            return {"rc": "timeout", "summary": f"pytest ran past {PYTEST_TIMEOUT} s"}
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    print(done.stdout[-4000:], done.stderr[-2000:], sep="\n", flush=True)
    return {"rc": done.returncode, "summary": lines[-1] if lines else done.stderr[-300:]}


def step(name: str, action: Any, report: dict[str, Any]) -> Any:
    started = time.perf_counter()
    print(f"== {name}", flush=True)
    try:
        value = action()
    except Exception as error:
        traceback.print_exc()
        report.setdefault("errors", []).append(f"{name}: {type(error).__name__}: {error}")
        save(report)
        return None
    report[f"{name}_seconds"] = round(time.perf_counter() - started, 2)
    save(report)
    return value


def save(report: dict[str, Any]) -> None:
    """Write what was measured so far to $OUT/gpu_check.json (when OUT is set)."""
    out = os.environ.get("OUT")
    if not out:
        return
    try:
        Path(out, "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
    except OSError as error:
        print(f"could not write gpu_check.json: {error}", flush=True)


def main() -> int:
    started = time.perf_counter()
    report: dict[str, Any] = {}
    found = detect()
    report["detection"] = {"backend": found.backend, "device": found.describe()}
    report["detection"]["reason"] = found.reason
    print(f"detection: {found.describe()}", flush=True)
    report["tests"] = step("gpu tests", run_gpu_tests, report)
    if found.backend != "cupy":
        print(f"no CUDA device: {found.reason}")
        return finish(report, started)

    copies = step("copy bandwidth", lambda: copy_bandwidth(256 * MIB), report)
    report["copies"] = copies
    streams: dict[int, Any] = {}
    for count in (3, 2, 4):
        params = PipelineParams(size_bytes=256 * MIB, chunks=16, streams=count, repeats=5)
        result = step(f"experiment 1, {count} streams", lambda p=params: _run(p), report)
        if result is not None:
            streams[count] = result
            report[f"experiment1_streams{count}"] = result.figures()
            if count == 3:
                for label, value in pipeline_rows(result):
                    print(f"  {label:<24}{value}")
                for note in result.notes:
                    print(f"  note: {note}")
    tiles = step("experiment 2", lambda: run_to_end(run_tiles(TileParams())), report)
    if tiles is not None:
        report["experiment2"] = tiles.figures()
        for label, value in tile_rows(tiles):
            print(f"  {label:<24}{value}")
    occupancy = step("occupancy sweep", lambda: run_to_end(sweep_occupancy()), report)
    if occupancy is not None:
        report["occupancy"] = occupancy.figures()
        print(occupancy.table())
    step(
        "summary",
        lambda: print_summary(found.describe(), copies, streams, tiles, occupancy, report),
        report,
    )
    return finish(report, started)


def _run(params: PipelineParams) -> Any:
    return run_to_end(run_cupy_pipeline(params))


def print_summary(
    device: str,
    copies: Any,
    streams: dict[int, Any],
    tiles: Any,
    occupancy: Any,
    report: dict[str, Any],
) -> None:
    print("\n==== summary ====")
    print(f"device            {device}")
    print(f"gpu tests         {(report.get('tests') or {}).get('summary', 'not run')}")
    if copies:
        print(
            f"copies (256 MiB)  H2D {copies['h2d_gbps']:.1f} GB/s, D2H {copies['d2h_gbps']:.1f} "
            f"GB/s, D2D {copies['d2d_gbps']:.0f} GB/s (read + written)"
        )
    for count, result in sorted(streams.items()):
        print(
            f"exp1 {count} streams    seq {result.sequential.makespan:.2f} ms, pipe "
            f"{result.pipelined.makespan:.2f} ms, model {result.predicted.makespan:.2f} ms, "
            f"speedup {result.speedup:.2f}x (model {result.predicted_speedup:.2f}x), "
            f"efficiency {result.overlap_efficiency:.0%} (goal >= 90%), intensity "
            f"{result.intensity}"
        )
    if 3 in streams and copies:
        result = streams[3]
        share = result.read_gbps / copies["h2d_gbps"]
        print(
            f"exp1 H2D          chunk copy-in {result.read_gbps:.1f} GB/s = {share:.0%} of the "
            f"best H2D (goal >= 80%); kernel {result.compute_gbps:.0f} GB/s"
        )
    if tiles is not None:
        balanced = max(
            tiles.rows,
            key=lambda row: max(
                (row.variant_ms[SYNC] / row.variant_ms[v] for v in tiles.variants), default=1
            ),
        )
        parts = ", ".join(
            f"{v} {tiles.gbps(balanced.variant_ms[v]):.0f} GB/s "
            f"({tiles.fraction_of_copy(balanced, v):.0%})"
            for v in tiles.variants
        )
        print(
            f"exp2 balanced     intensity {balanced.intensity} (where cp.async gains most): "
            f"copy {tiles.gbps(balanced.copy_ms):.0f} GB/s; {parts} (goal: best pipelined >= 85%)"
        )
        for row in tiles.rows:
            cells = " ".join(f"{v}={row.copy_ms / row.variant_ms[v]:.2f}" for v in tiles.variants)
            print(f"exp2 i={row.intensity:<5}     share of copy bandwidth: {cells}")
        print(f"exp2 variants     {', '.join(f'{k}: {VARIANTS[k]}' for k in tiles.variants)}")
    if occupancy is not None:
        print(
            f"occupancy         peak {occupancy.peak_gbps:.0f} GB/s (bytes read); "
            f"{occupancy.gbps_per_warp:.1f} GB/s per warp/SM at the first step; fitted knee "
            f"W = {occupancy.knee:.1f} warps/SM"
        )


def finish(report: dict[str, Any], started: float) -> int:
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    print(f"total             {report['total_seconds']} s")
    save(report)
    tests = report.get("tests") or {}
    for error in report.get("errors", []):
        print(f"ERROR             {error}")
    failed = tests.get("rc") not in (0, 5) or bool(report.get("errors"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
