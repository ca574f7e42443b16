"""Hypothesis strategies the engine's property tests share: scenarios of a few ops on a
small grid of durations (so ties and zero-length stages are common) mixed with any
duration the engine accepts."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import strategies as st

from engine.base.validation import MIN_DURATION
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate

#: The engine's builds a test compares: pure Python, and the compiled module where built.
BUILDS = ["python"] + (["compiled"] if fast_scheduler.compiled is not None else [])

#: A stage duration: often on a grid of ties and zeros, else any accepted value up to 10.
duration = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0]),
    st.floats(min_value=MIN_DURATION, max_value=10.0, allow_nan=False, allow_infinity=False),
)


def scenarios(
    max_ops: int = 12, max_buffers: int = 5, max_workers: int = 3
) -> st.SearchStrategy[Scenario]:
    """Scenarios of 1 to ``max_ops`` uneven ops, 1 to ``max_workers`` workers per unit and
    0 (unlimited) to ``max_buffers`` slots."""

    @st.composite
    def build(draw: st.DrawFn) -> Scenario:
        n = draw(st.integers(1, max_ops))
        rows = draw(st.lists(st.tuples(duration, duration, duration), min_size=n, max_size=n))
        workers = draw(st.tuples(*(st.integers(1, max_workers) for _ in range(3))))
        r, c, w = (list(column) for column in zip(*rows, strict=True))
        return Scenario(r, c, w, workers=workers, buffers=draw(st.integers(0, max_buffers)))

    return build()


def schedule_inputs(
    kinds: tuple[str, ...] = ("simulated", "shuffled", "free"),
    max_ops: int = 40,
    max_workers: int = 4,
    max_buffers: int = 6,
    free_source: str = "simulated",
    max_free_tasks: int = 40,
) -> st.SearchStrategy[Schedule]:
    """Schedules of the ``kinds``: simulated runs (up to ``max_ops`` ops, ``max_workers``
    workers a unit, ``max_buffers`` slots), measured-like ones (jittered: late starts,
    overlaps, no grants), the same tasks in another order, or free-form tasks on a few
    rows (up to ``max_free_tasks``, overlapping, no pipeline; ``free_source`` says what
    they claim to be)."""

    @st.composite
    def build(draw: st.DrawFn) -> Schedule:
        kind = draw(st.sampled_from(kinds))
        if kind == "free":
            n = draw(st.integers(0, max_free_tasks))
            workers = draw(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)))
            unit = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int64)
            worker = np.array(
                [draw(st.integers(0, workers[u] - 1)) for u in unit.tolist()], dtype=np.int64
            )
            grid = st.sampled_from([0.0, 1.0, 2.5, 3.0, 4.0])
            start = np.array(draw(st.lists(grid, min_size=n, max_size=n)))
            length = np.array(draw(st.lists(duration, min_size=n, max_size=n)))
            return Schedule(
                op=np.arange(n), stage=unit, unit=unit, worker=worker, start=start,
                end=start + length, workers=workers, n_ops=max(n, 1), source=free_source,
            )  # fmt: skip
        scenario = draw(scenarios(max_ops, max_buffers, max_workers))
        model = simulate(scenario, draw(st.sampled_from(["sequential", "pipelined"])))
        if kind == "simulated":
            return model
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        if kind == "measured":
            start = model.start + rng.uniform(-0.3, 0.5, len(model)).clip(0, None)
            return replace(
                model, source="measured", grant=None, start=start, end=start + model.duration
            )
        p = rng.permutation(len(model))
        return replace(
            model, op=model.op[p], stage=model.stage[p], unit=model.unit[p],
            worker=model.worker[p], start=model.start[p], end=model.end[p],
        )  # fmt: skip

    return build()


def idle_pass_inputs() -> st.SearchStrategy[Schedule]:
    """What the idle-span passes are given: simulated runs, the same tasks in another
    order, or free-form tasks marked simulated."""
    return schedule_inputs()


def spans_schedule(start: np.ndarray, end: np.ndarray, row: np.ndarray, n_rows: int) -> Schedule:
    """Spans on rows as a Schedule (one unit of ``n_rows`` workers, one op a span), for the
    indexes that read a Schedule's rows (`engine.indexes.span_index.SpanIndex`)."""
    n = len(start)
    zeros = np.zeros(n, dtype=np.int64)
    return Schedule(
        op=np.arange(n), stage=zeros, unit=zeros, worker=row, start=start, end=end,
        workers=(n_rows,), n_ops=n, unit_names=("unit",), stage_names=("span",),
        source="measured",
    )  # fmt: skip
