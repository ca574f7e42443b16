"""What each structure derived from a Schedule costs to build (docs/derived.md's figures).

    uv run python bench/derived.py                 # 10^6 ops, compiled and numpy
    uv run python bench/derived.py --ops 100000    # another size

Three scenarios: identical ops (1.0, 1.3, 0.7 s) with one worker a unit and unlimited
slots; random durations (uniform 0.5-1.5 s, fixed seed) with 1/1/1 workers and B = 2,
and with 2/2/2 workers and B = 3. For each, a fresh simulated Schedule and its
`engine.analysis.derived.Derived`; every structure is built in the order below and timed on its
own (what it adds, the structures before it built already): the first rows are what
later ones share. Once with the compiled module, once with the numpy code it stands in
for (``fast_scheduler.using("python")``; the Schedule itself is simulated compiled both
times). Milliseconds, the best of ``--repeats`` fresh runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine.analysis.derived import Derived
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate


def _sorted_columns(d: Derived) -> None:
    for stage in range(3):
        for kind in ("start", "end"):
            d.columns.sorted(kind, stage)


def _task_spans(d: Derived) -> None:
    d.task_spans.prepare()


#: (name, build) in build order: each is timed with those before it built.
STEPS: tuple[tuple[str, Callable[[Schedule, Derived], object]], ...] = (
    ("Schedule.by_row (RowOrder)", lambda s, d: s.by_row),
    ("Schedule.op_starts/op_ends", lambda s, d: (s.op_starts, s.op_ends)),
    ("Derived.columns (6 sorted)", lambda s, d: _sorted_columns(d)),
    ("Derived.waits (units, holds)", lambda s, d: d.waits.prepare_narration()),
    ("Derived.events (EventUnion)", lambda s, d: len(d.events)),
    ("Derived.assembly", lambda s, d: d.assembly),
    ("Derived.task_spans (SpanIndex)", lambda s, d: _task_spans(d)),
    ("Derived.idle_spans", lambda s, d: len(d.idle_spans)),
    ("Derived.idle_summary", lambda s, d: d.idle_summary),
    ("Derived.op_wait_reasons", lambda s, d: d.op_wait_reasons),
    ("Derived.busy_by_worker", lambda s, d: d.busy_by_worker),
    ("Derived.op_work", lambda s, d: d.op_work),
    ("Derived.critical_charges", lambda s, d: d.critical_charges),
    ("Derived.op_waits", lambda s, d: len(d.op_waits)),
)


def measure(scenario: Scenario, backend: str) -> list[float]:
    """Each step's build time (seconds) on a fresh Schedule and Derived."""
    schedule = simulate(scenario)  # (compiled: the same Schedule either way)
    derived = Derived(schedule)
    times = []
    with fast_scheduler.using(backend):
        for _, build in STEPS:
            start = time.perf_counter()
            build(schedule, derived)
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    backends = ["compiled", "python"] if fast_scheduler.compiled is not None else ["python"]
    n = args.ops
    durations = np.random.default_rng(12).uniform(0.5, 1.5, (n, 3))
    scenarios = {
        "identical ops, 1/1/1, B = 0": Scenario.uniform_ops(n, 1.0, 1.3, 0.7),
        "random ops, 1/1/1, B = 2": Scenario(*durations.T, workers=(1, 1, 1), buffers=2),
        "random ops, 2/2/2, B = 3": Scenario(*durations.T, workers=(2, 2, 2), buffers=3),
    }
    for title, scenario in scenarios.items():
        best = {
            b: [
                min(ts)
                for ts in zip(*(measure(scenario, b) for _ in range(args.repeats)), strict=True)
            ]
            for b in backends
        }
        print(f"\n{n:,} ops, {title}: build ms")
        print(f"{'structure':<34}" + "".join(f"{b:>10}" for b in backends))
        for i, (name, _) in enumerate(STEPS):
            print(f"{name:<34}" + "".join(f"{best[b][i] * 1e3:>10.1f}" for b in backends))


if __name__ == "__main__":
    main()
