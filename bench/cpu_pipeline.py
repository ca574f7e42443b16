"""Experiment 1 on CPU threads: measured sequential vs pipelined next to the model.

    uv run python bench/cpu_pipeline.py

Prints one line per setting. The machine's load average is printed too: other processes on
the same cores take time from the three pipeline threads, and the figures say so honestly.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpu.cpu_backend import default_params, run_cpu_pipeline
from gpu.experiments import run_to_end
from gpu.params import MIB

SETTINGS: list[dict[str, int | None]] = [
    {},  # the defaults: 64 MiB, 16 chunks, 3 buffers, calibrated intensity
    {"intensity": 4},
    {"intensity": 16},
    {"streams": 2},
    {"chunks": 8},
    {"size_bytes": 256 * MIB},
]


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {os.cpu_count()}, load average (1 min) before: {load:.2f}")
    header = (
        f"{'setting':<22}{'int':>5}{'seq ms':>9}{'pipe ms':>9}{'pipe min-max':>15}"
        f"{'model ms':>9}{'speedup':>9}{'model x':>9}{'eff':>6}{'r/c/w ms':>22}{'wall s':>8}"
    )
    print(header)
    for changes in SETTINGS:
        params = default_params(**changes)
        started = time.perf_counter()
        result = run_to_end(run_cpu_pipeline(params))
        wall = time.perf_counter() - started
        read, compute, write = result.stage_ms
        name = ", ".join(f"{k}={v}" for k, v in changes.items()) or "defaults"
        name = name.replace(f"size_bytes={256 * MIB}", "256 MiB")
        spread = result.pipelined_spread
        print(
            f"{name:<22}{result.intensity:>5}{result.sequential.makespan:>9.2f}"
            f"{result.pipelined.makespan:>9.2f}"
            f"{f'{spread.minimum:.2f}-{spread.maximum:.2f}':>15}"
            f"{result.predicted.makespan:>9.2f}"
            f"{result.speedup:>8.2f}×{result.predicted_speedup:>8.2f}×"
            f"{result.overlap_efficiency:>6.0%}"
            f"{f'{read:.2f}/{compute:.2f}/{write:.2f}':>22}{wall:>8.2f}"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min) after: {load:.2f}")
    print("eff = model makespan / measured pipelined makespan; speedup = sequential / pipelined")
    print("pipe min-max: the spread of the timed pipelined runs (the median one is reported)")


if __name__ == "__main__":
    main()
