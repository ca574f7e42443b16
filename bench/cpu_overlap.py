"""Does pipelining on CPU threads show on this machine? Measured speedup vs the model's,
for several settings, on 1 core and on every usable core.

    uv run python bench/cpu_overlap.py [--cores 1,2] [--repeats 3]

The pipelined run needs a core per busy stage (reader, computer, writer): with fewer, the
threads take turns and the overlap the model predicts is not there. Each line pins the
process to the first N usable cores (`os.sched_setaffinity`) and runs experiment 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpu.cpu_backend import default_params, run_cpu_pipeline
from gpu.experiments import run_to_end
from gpu.params import MIB

#: (name, changes): the defaults first, then sizes, chunks and fixed intensities.
SETTINGS: list[tuple[str, dict[str, int]]] = [
    ("defaults", {}),
    ("64 MiB", {"size_bytes": 64 * MIB}),
    ("256 MiB", {"size_bytes": 256 * MIB}),
    ("8 chunks", {"chunks": 8}),
    ("32 chunks", {"chunks": 32}),
    ("intensity 2", {"intensity": 2}),
    ("intensity 8", {"intensity": 8}),
    ("128 MiB/8", {"size_bytes": 128 * MIB, "chunks": 8}),
    ("256 MiB/8", {"size_bytes": 256 * MIB, "chunks": 8}),
    ("512 MiB", {"size_bytes": 512 * MIB}),
    ("256 MiB, i 4", {"size_bytes": 256 * MIB, "intensity": 4}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    parser.add_argument("--cores", default=",".join(str(n) for n in sorted({1, len(usable)})))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated setting names")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    print(f"usable cores: {len(usable)}, load average (1 min): {os.getloadavg()[0]:.2f}")
    print(
        f"{'cores':>5} {'setting':<14}{'int':>5}{'seq ms':>9}{'pipe ms':>9}{'model ms':>9}"
        f"{'speedup':>9}{'model':>8}{'r/c/w ms':>20}{'wall s':>8}"
    )
    for cores in (int(n) for n in args.cores.split(",")):
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, usable[:cores])
        for name, changes in SETTINGS:
            if only and name not in only:
                continue
            params = default_params(repeats=args.repeats, **changes)
            started = time.perf_counter()
            result = run_to_end(run_cpu_pipeline(params))
            wall = time.perf_counter() - started
            read, compute, write = result.stage_ms
            print(
                f"{cores:>5} {name:<14}{result.intensity:>5}{result.sequential.makespan:>9.1f}"
                f"{result.pipelined.makespan:>9.1f}{result.predicted.makespan:>9.1f}"
                f"{result.speedup:>8.2f}×{result.predicted_speedup:>7.2f}×"
                f"{f'{read:.1f}/{compute:.1f}/{write:.1f}':>20}{wall:>8.1f}",
                flush=True,
            )
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, usable)
    print("speedup = measured sequential / measured pipelined; model = sequential / model")


if __name__ == "__main__":
    main()
