"""Scheduler wall time for 10^3 … 10^6 ops, side by side with a straightforward SimPy model.

    uv run python bench/engine.py            # full table (about a minute)
    uv run python bench/engine.py --quick    # up to 10^5 ops

Prints one row per (ops, buffers, workers): our time, and SimPy's at 10^4 and 10^5 ops with
the makespans of both (they must agree).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.simpy_model import simpy_makespan
from engine.scenario import Scenario
from engine.scheduler import simulate


def best_of(repeats: int, run):  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 10^5 ops")
    args = parser.parse_args()
    sizes = [10**3, 10**4, 10**5] + ([] if args.quick else [10**6])
    print(
        f"{'ops':>9} {'B':>3} {'workers':>8} {'ours (s)':>10} {'simpy (s)':>10} "
        f"{'× faster':>9} {'makespan':>14}  agree"
    )
    for n in sizes:
        for workers in ((1, 1, 1), (2, 2, 2)):
            for buffers in (0, 2, 3):
                scenario = Scenario.uniform_ops(n, 1.0, 1.3, 0.7, buffers=buffers, workers=workers)
                repeats = 3 if n <= 10**5 else (2 if workers[0] == 1 else 1)
                ours, schedule = best_of(repeats, lambda s=scenario: simulate(s))
                line = f"{n:>9,} {buffers:>3} {workers[0]:>8} {ours:>10.4f}"
                if n in (10**4, 10**5):
                    theirs, makespan = best_of(1, lambda s=scenario: simpy_makespan(s))
                    agree = abs(makespan - schedule.makespan) <= 1e-6 * makespan
                    line += f" {theirs:>10.3f} {theirs / ours:>9.0f} {schedule.makespan:>14.1f}"
                    line += f"  {'yes' if agree else 'NO: ' + str(makespan)}"
                else:
                    line += f" {'':>10} {'':>9} {schedule.makespan:>14.1f}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
