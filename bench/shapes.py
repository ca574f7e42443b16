"""A pipeline shape's wall time, compiled vs the pure-Python reference vs a plain SimPy model,
in the same run, beside the book's.

    uv run python bench/shapes.py

The shape (issue 28's speed target): four stages on three units — load and store on one copy
engine (1 worker), compute on the SMs (2 workers), reduce on the tensor cores (1) — and two
pools: 3 staging buffers held from the load to the store, 2 scratch slots from the compute to
the reduce. Random durations (uniform 0.5–1.5 per stage, fixed seed). Each row: a whole
Schedule (`simulate_shape`) with the compiled loop and with the reference, SimPy's model
(bench/simpy_model.py) at 10^5 ops; the ratios; whether compiled and reference agree bit for
bit (every start, worker and grant) and SimPy's makespan beside ours. Target: ≥ 50× SimPy at
10^5 ops; 10^6 ops well within the app's cap.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench.engine import best_of
from bench.simpy_model import simpy_shape_makespan
from engine.compiled import fast_scheduler
from engine.model.schedule import Pool
from engine.model.shape import Shape, simulate_shape

SHAPE = Shape(
    ("load", "compute", "reduce", "store"),
    (0, 1, 2, 0),
    ("copy engine", "SMs", "tensor cores"),
    (1, 2, 1),
    (Pool("staging", 3, 0, 3), Pool("scratch", 2, 1, 2)),
)


def main() -> None:
    if fast_scheduler.compiled is None:
        sys.exit(f"bench/shapes.py compares the builds, but {fast_scheduler.why_not_compiled}")
    print(f"{'ops':>9} {'compiled s':>10} {'python s':>9} {'simpy s':>8} {'simpy/comp':>10} "
          f"{'py/comp':>7}  agree  makespan (ours, simpy's)")  # fmt: skip
    for n in (10**4, 10**5, 10**6):
        durations = np.random.default_rng(28).uniform(0.5, 1.5, (n, len(SHAPE.stages)))
        with fast_scheduler.using("compiled"):
            ours, compiled = best_of(3, lambda d=durations: simulate_shape(SHAPE, d))
        line = f"{n:>9,} {ours:>10.4f}"
        if n <= 10**5:
            with fast_scheduler.using("python"):
                slow, python = best_of(1, lambda d=durations: simulate_shape(SHAPE, d))
            theirs, makespan = best_of(1, lambda d=durations: simpy_shape_makespan(SHAPE, d))
            agree = all(
                np.array_equal(getattr(compiled, c), getattr(python, c))
                for c in ("start", "end", "worker")
            )
            line += (
                f" {slow:>9.3f} {theirs:>8.2f} {theirs / ours:>9.0f}× {slow / ours:>6.1f}×  "
                f"{'yes' if agree else 'NO ':>5}  {compiled.makespan:.6f}, {makespan:.6f}"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
