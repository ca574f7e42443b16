"""Importing a profile against a bare ``json.load`` of the same file, in the same run.

    uv run python bench/profile_import.py              # 200,000 events, then 10^6
    uv run python bench/profile_import.py --quick      # 200,000 events

Writes a Kineto-like trace (CPU ops, runtime calls, flows and annotations around kernels,
copies in and out and memsets on four streams of two devices: about a third of the
events are GPU activity, as in a PyTorch training step), then times, best of three:
``json.load`` of the file (the reference), and the import with its table (what ``pipelab
import FILE`` does: read, lanes, figures, wait reasons). The issue's goal: at 200,000
events the import within 4× the bare load.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpu.profile import load_profile
from gpu.profile.report import profile_table

COPIES = ("Memcpy HtoD (Pinned -> Device)", "Memcpy DtoH (Device -> Pinned)")


def kineto_events(count: int, seed: int = 1) -> list[dict[str, Any]]:
    """``count`` events: per step a CPU op, a runtime call, a flow, and one GPU activity."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    clock = 1.7e15  # µs since 1970, as Kineto writes
    while len(events) < count:
        device = rng.randrange(2)
        stream = rng.choice((7, 13, 21, 29))
        clock += rng.uniform(0.5, 4.0)
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                       "ts": clock, "dur": 3.0, "args": {"External id": len(events)}})  # fmt: skip
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": clock + 1, "dur": 2.0,
                       "args": {"correlation": 1}})  # fmt: skip
        events.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": len(events), "pid": 1,
                       "tid": 1, "ts": clock + 1})  # fmt: skip
        kind = rng.random()
        if kind < 0.6:
            category, name = "kernel", f"gemm_{rng.randrange(20)}"
        elif kind < 0.95:
            category, name = "gpu_memcpy", rng.choice(COPIES)
        else:
            category, name = "gpu_memset", "Memset (Device)"
        events.append({"ph": "X", "cat": category, "name": name, "pid": device, "tid": stream,
                       "ts": clock + 5, "dur": rng.uniform(1.0, 30.0),
                       "args": {"device": device, "stream": stream, "correlation": 1}})  # fmt: skip
    return events[:count]


def best_of(repeats: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 200,000 events")
    args = parser.parse_args()
    sizes = [200_000] + ([] if args.quick else [1_000_000])
    print(f"{'events':>10} {'MB':>6} {'json.load s':>11} {'import s':>9} {'ratio':>6} {'tasks':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for count in sizes:
            path = Path(folder) / f"trace_{count}.json"
            path.write_text(json.dumps({"traceEvents": kineto_events(count)}))

            def bare(path: Path = path) -> None:
                with path.open() as file:
                    json.load(file)

            def imported(path: Path = path) -> None:
                profile_table(load_profile(path))

            reference = best_of(3, bare)
            taken = best_of(3, imported)
            tasks = sum(len(run.schedule) for run in load_profile(path).devices)
            size = path.stat().st_size / 1e6
            print(
                f"{count:>10,} {size:>6.1f} {reference:>11.3f} {taken:>9.3f} "
                f"{taken / reference:>5.2f}× {tasks:>8,}"
            )


if __name__ == "__main__":
    main()
