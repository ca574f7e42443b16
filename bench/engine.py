"""Scheduler wall time, compiled vs pure Python vs a plain SimPy model, in the same run.

    uv run python bench/engine.py            # 10^3 … 10^6 ops (a few minutes)
    uv run python bench/engine.py --quick    # up to 10^5 ops

Random durations (uniform 0.5–1.5 s per stage, fixed seed), workers 1/1/1, 2/2/2 and 1/2/1,
buffers B = 0 (unlimited), 2 and 3. Each row: `simulate` (a whole Schedule) with the compiled
event loop and with the pure-Python fallback, and SimPy's model (FIFO resources) at 10^4 and
10^5 ops; the ratios SimPy / compiled and fallback / compiled; and whether the results agree
(compiled and fallback: every array bit for bit; SimPy: the makespan within 1e-9).
Targets (issue 12): ≥ 50× SimPy at 10^5 ops with 2/2/2 and 1/2/1; ≤ 0.5 s at 10^6 ops.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench.simpy_model import simpy_makespan
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")
#: Loads only the compiled module's file (no `engine` package import), timing that alone.
EXTENSION_PROBE = """
import importlib.machinery as m, importlib.util as u, os, time, numpy
folders = u.find_spec("engine").submodule_search_locations
path = next(os.path.join(d, "compiled", "_fastsched" + x) for d in folders
            for x in m.EXTENSION_SUFFIXES
            if os.path.exists(os.path.join(d, "compiled", "_fastsched" + x)))
t = time.perf_counter()
loader = m.ExtensionFileLoader("engine.compiled._fastsched", path)
spec = m.ModuleSpec("engine.compiled._fastsched", loader, origin=path)
loader.exec_module(loader.create_module(spec))
print(time.perf_counter() - t)
"""
WORKERS = ((1, 1, 1), (2, 2, 2), (1, 2, 1))
BUFFERS = (0, 2, 3)


def best_of(repeats: int, run: Callable[[], T]) -> tuple[float, T]:
    """The fastest of ``repeats`` runs (seconds) and the last result."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def same(a: Schedule, b: Schedule) -> bool:
    assert a.grant is not None and b.grant is not None
    return all(
        np.array_equal(x, y)
        for x, y in ((a.start, b.start), (a.end, b.end), (a.worker, b.worker), (a.grant, b.grant))
    )


def import_cost() -> str:
    """Import costs in fresh interpreters (best of 5): the compiled module's file alone, after
    numpy (which engine always imports first); and `import engine` with the compiled loop
    and with the Python fallback forced, beside numpy's import measured in the same runs."""
    probes = {
        "extension": EXTENSION_PROBE,
        "numpy": (
            "import time\nt = time.perf_counter()\nimport numpy\nprint(time.perf_counter() - t)"
        ),
        "engine": (
            "import time, numpy\nt = time.perf_counter()\nimport engine\n"
            "print(time.perf_counter() - t)"
        ),
    }

    def best(code: str, **env: str) -> float:
        runs = []
        for _ in range(5):
            out = subprocess.run(
                [sys.executable, "-c", code],
                cwd=ROOT,
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(float(out.stdout))
        return min(runs)

    extension = best(probes["extension"])
    numpy_s = best(probes["numpy"])
    engine_compiled = best(probes["engine"])
    engine_python = best(probes["engine"], PIPELAB_PURE_PYTHON="1")
    return (
        f"import: compiled module alone {extension * 1e3:.2f} ms; `import engine` (after numpy) "
        f"{engine_compiled * 1e3:.1f} ms compiled vs {engine_python * 1e3:.1f} ms pure Python; "
        f"numpy itself {numpy_s * 1e3:.0f} ms (extension / numpy = {extension / numpy_s:.4f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 10^5 ops")
    args = parser.parse_args()
    if fast_scheduler.compiled is None:
        sys.exit(f"bench/engine.py compares the builds, but {fast_scheduler.why_not_compiled}")
    print(import_cost())
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print()
    print(
        f"{'ops':>9} {'workers':>7} {'B':>2} {'compiled s':>10} {'python s':>9} "
        f"{'simpy s':>8} {'simpy/comp':>10} {'py/comp':>7}  agree"
    )
    sizes = [10**3, 10**4, 10**5] + ([] if args.quick else [10**6])
    for n in sizes:
        durations = np.random.default_rng(12).uniform(0.5, 1.5, (n, 3))
        for workers in WORKERS:
            for buffers in BUFFERS:
                scenario = Scenario(
                    durations[:, 0],
                    durations[:, 1],
                    durations[:, 2],
                    workers=workers,
                    buffers=buffers,
                )
                repeats = 5 if n <= 10**4 else 3
                with fast_scheduler.using("compiled"):
                    ours, compiled = best_of(repeats, lambda s=scenario: simulate(s))
                with fast_scheduler.using("python"):
                    fallback, python = best_of(1, lambda s=scenario: simulate(s))
                label = "/".join(map(str, workers))
                line = f"{n:>9,} {label:>7} {buffers:>2} {ours:>10.4f} {fallback:>9.3f}"
                agree = same(compiled, python)
                if n in (10**4, 10**5):
                    theirs, makespan = best_of(1, lambda s=scenario: simpy_makespan(s))
                    agree &= abs(makespan - compiled.makespan) <= 1e-9 * makespan
                    line += f" {theirs:>8.2f} {theirs / ours:>9.0f}×"
                else:
                    line += f" {'':>8} {'':>10}"
                line += f" {fallback / ours:>6.1f}×  {'yes' if agree else 'NO'}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
