"""Wait reasons and narration at 10^3 … 10^6 ops, against simulate() of the same scenario.

    uv run python bench/waits.py            # 10^3, 10^4, 10^5, 10^6 ops
    uv run python bench/waits.py --quick    # up to 10^5 ops

For each size, workers per unit (k) and slot count (B): simulate() (the reference, same
run), idle_spans and op_waits on a fresh Schedule and `Derived` (cold: builds the wait
index too), each as a ratio to simulate();
then narrate(): the first call (builds the per-Schedule index), and the mean of later calls
at other event times (what the animation pays per tick), in microseconds. A later call must
cost about the same at 10^6 ops as at 10^3 (it never scans the tasks). Last, the JSON
writer's peak extra memory at the largest size (it streams; what it derives, the idle
spans among them, counts).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine.analysis.derived import Derived
from engine.analysis.timeline import narrate
from engine.analysis.writers import write_json
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate


def best_of(repeats: int, run):  # type: ignore[no-untyped-def]
    times, result = [], None
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
        f"{'ops':>9} {'k':>2} {'B':>3} {'simulate s':>10} {'idle s':>8} {'× sim':>6} {'spans':>9} "
        f"{'opwaits s':>9} {'× sim':>6} {'narrate 1st ms':>14} {'narrate µs':>10}"
    )
    for n in sizes:
        for k, buffers in ((1, 0), (1, 2), (2, 3)):
            workers = (k, k, k)
            scenario = Scenario.uniform_ops(n, 1.0, 1.3, 0.7, buffers=buffers, workers=workers)
            repeats = 3 if n <= 10**5 else 2
            sims, idles, waits_times = [], [], []
            for _ in range(repeats):  # each on a fresh Schedule: nothing cached is reused
                sim, schedule = best_of(1, lambda s=scenario: simulate(s))
                idle, spans = best_of(1, lambda s=schedule: Derived(s).idle_spans)
                fresh = simulate(scenario)
                waits, _ = best_of(1, lambda s=fresh: Derived(s).op_waits)
                sims.append(sim)
                idles.append(idle)
                waits_times.append(waits)
            sim, idle, waits = min(sims), min(idles), min(waits_times)
            derived = Derived(simulate(scenario))
            events = np.asarray(derived.events)
            start = time.perf_counter()
            narrate(derived, float(events[len(events) // 2]))
            first = time.perf_counter() - start
            picks = np.random.default_rng(1).choice(len(events), 200)
            start = time.perf_counter()
            for pick in picks.tolist():
                narrate(derived, float(events[pick]))
            later = (time.perf_counter() - start) / len(picks)
            print(
                f"{n:>9,} {k:>2} {buffers:>3} {sim:>10.3f} {idle:>8.3f} {idle / sim:>6.2f} "
                f"{len(spans):>9,} {waits:>9.3f} {waits / sim:>6.2f} {first * 1e3:>14.1f} "
                f"{later * 1e6:>10.0f}",
                flush=True,
            )
    n = sizes[-1]
    schedule = simulate(Scenario.uniform_ops(n, 1.0, 1.3, 0.7, buffers=2))
    tracemalloc.start()
    sink = io.StringIO()
    written = 0

    def count(text: str) -> None:
        nonlocal written
        written += len(text)
        sink.seek(0)
        sink.truncate()

    write_json(count, schedule)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"\nJSON of {n:,} ops: {written / 1e6:.0f} MB written, peak extra memory "
        f"{peak / 1e6:.0f} MB ({peak / written:.2f} × the output)"
    )


if __name__ == "__main__":
    main()
