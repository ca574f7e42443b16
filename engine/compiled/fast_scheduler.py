"""The optional compiled module (``engine.compiled._fastsched``: _fastsched.c, _idle_pass.c,
_row_order.c; setup.py) and the switch between it and the Python it stands in for.

Its event loop is `engine.model.shape.shape_tasks`'s, organised for speed: time only moves
forward, so each unit's ready stages arrive in (time, task) order but for ties at the
current instant, and its ready queues are FIFOs kept sorted by inserting from the tail
where the reference keeps heaps. Every choice and addition happens in the reference's order, so the
floats are identical; it releases the GIL. Without the module (no C compiler) or with
``PIPELAB_PURE_PYTHON=1`` the reference runs: there is no second Python loop.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Tasks = tuple[FloatArray, IntArray, FloatArray]

#: Set (to anything but "" or "0") to run the Python fallback even where the extension built.
FORCE_PYTHON = "PIPELAB_PURE_PYTHON"


def _load_compiled() -> tuple[ModuleType | None, str]:
    if os.environ.get(FORCE_PYTHON, "") not in ("", "0"):
        return None, f"{FORCE_PYTHON} is set"
    try:
        # (by name: a plain import reads to import graphs as one of the engine package, a
        # false circle through engine/__init__)
        _fastsched = importlib.import_module("engine.compiled._fastsched")
    except ImportError as error:  # not built: no C compiler when the project was installed
        return None, f"engine.compiled._fastsched did not load ({error})"
    return _fastsched, ""


#: The compiled module, or None; ``why_not_compiled`` then says why.
compiled, why_not_compiled = _load_compiled()
#: Whether the engine uses the compiled module (tests switch it off to compare).
use_compiled = compiled is not None


def backend() -> str:
    """ "compiled" or "python": which build the engine runs now."""
    return "compiled" if use_compiled and compiled is not None else "python"


@contextmanager
def using(name: str) -> Iterator[None]:
    """Within the block the engine runs ``name`` ("compiled" or "python"), for tests and
    benchmarks to compare. Not thread-safe: it sets a module switch."""
    global use_compiled
    if name not in ("compiled", "python"):
        raise ValueError(f"no scheduler build named {name!r}")
    if name == "compiled" and compiled is None:
        raise RuntimeError(why_not_compiled)
    before, use_compiled = use_compiled, name == "compiled"
    try:
        yield
    finally:
        use_compiled = before


def compiled_tasks(
    durations: FloatArray,
    stage_units: tuple[int, ...],
    workers: tuple[int, ...],
    pools: tuple[tuple[int, int, int], ...],
) -> Tasks | None:
    """`engine.model.shape.shape_tasks`' result from the compiled loop, pools given as
    (size, first, last); None where the pipeline stops (`compiled` must be loaded)."""
    assert compiled is not None
    table = np.ascontiguousarray(durations, dtype=np.float64)
    n, n_pools = len(table), len(pools)
    starts = np.zeros(table.shape)
    worker = np.zeros(table.shape, dtype=np.int64)
    grants = np.zeros((n, n_pools))
    if not compiled.schedule(
        table,
        np.array(stage_units, dtype=np.int64),
        np.array(workers, dtype=np.int64),
        np.array(pools, dtype=np.int64).reshape(n_pools, 3),
        starts,
        worker,
        grants,
    ):
        return None
    return starts, worker, grants
