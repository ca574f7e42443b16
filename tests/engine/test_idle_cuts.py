"""The compiled idle-span pass (engine/compiled/_idle_pass.c, engine/reasons/idle_cuts.py) and
the numpy cuts (`engine.reasons.waits.build_idle_spans`) write the same five columns, bit for
bit, dtype for dtype: on simulated runs with any workers and slots, the same tasks in another order,
tasks that overlap on their rows, and with a cut budget small enough that a unit is cut
at its last start only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from engine.reasons.idle_cuts import compiled_columns, compiled_summary
from engine.reasons.waits import DONE, IDLE_REASONS, INPUT, SLOT, IdleSpans, build_idle_spans
from tests.engine.strategies import idle_pass_inputs

pytestmark = pytest.mark.skipif(
    fast_scheduler.compiled is None, reason="the compiled extension is not built"
)

REASONS = (INPUT, SLOT, DONE)


def _columns(
    schedule: Schedule, budget: int, build: str, gaps_first: bool
) -> tuple[np.ndarray, ...]:
    copy = replace(schedule)  # each build on its own copy (nothing cached is shared)
    index = Derived(copy).waits
    if gaps_first:  # (the compiled pass then leaves them be)
        _ = index.gaps
    with fast_scheduler.using(build):
        spans = build_idle_spans(index, budget)
    columns = (spans.row, spans.start, spans.end, spans.reason, spans.next_task)
    totals = spans._totals
    assert (totals is not None) == (build == "compiled")
    if totals is not None:  # as IdleSpans.totals adds them up (np.bincount), bit for bit
        expected = IdleSpans(*columns, index).totals
        assert totals.dtype == expected.dtype and totals.shape == expected.shape
        np.testing.assert_array_equal(totals, expected)
    if not gaps_first and build == "compiled":  # what it left as the gaps is what they are
        other = replace(schedule)
        with fast_scheduler.using("python"):
            fresh = Derived(other).waits.gaps
        for ours, theirs in zip(index.gaps, fresh, strict=True):
            np.testing.assert_array_equal(ours, theirs)
    return tuple(np.array(column) for column in columns)


@settings(max_examples=400, deadline=None)
@given(idle_pass_inputs(), st.sampled_from([10**9, 0, 1, 3, 10]), st.booleans())
def test_the_compiled_pass_and_the_numpy_pass_agree(
    schedule: Schedule, budget: int, gaps_first: bool
) -> None:
    compiled = _columns(schedule, budget, "compiled", gaps_first)
    python = _columns(schedule, budget, "python", gaps_first)
    for ours, theirs in zip(compiled, python, strict=True):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@settings(max_examples=300, deadline=None)
@given(idle_pass_inputs(), st.sampled_from([10**9, 0, 1, 3, 10]))
def test_the_summary_adds_up_the_pieces_the_columns_hold(schedule: Schedule, budget) -> None:
    """The summary (no pieces written; no count made where none could pass the budget)
    cuts as the written columns do, at every budget: the same totals, counts and
    longest pieces, and the same points."""
    copies = replace(schedule), replace(schedule)  # (kept alive: the indexes read them)
    found = compiled_columns(Derived(copies[0]).waits, budget, REASONS, len(IDLE_REASONS))
    assert found is not None
    columns, _ = found
    summary = compiled_summary(Derived(copies[1]).waits, budget, REASONS, len(IDLE_REASONS))
    assert summary is not None
    totals, counts, most, _ = summary
    row, start, end, reason, _ = columns
    n_reasons = len(IDLE_REASONS)
    key = row * n_reasons + reason
    cells = schedule.n_workers * n_reasons
    np.testing.assert_array_equal(totals.ravel(), np.bincount(key, end - start, minlength=cells))
    np.testing.assert_array_equal(counts.ravel(), np.bincount(key, minlength=cells))
    longest = np.zeros(schedule.n_workers)
    np.maximum.at(longest, row, end - start)
    np.testing.assert_array_equal(most, longest)


def test_idle_spans_are_the_same_with_either_build() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    scenario = Scenario(*(rng.uniform(0.5, 1.5, n) for _ in range(3)), workers=(2, 3, 2), buffers=4)
    for policy in ("sequential", "pipelined"):
        schedule = simulate(scenario, policy)
        copies = replace(schedule), replace(schedule)  # (kept alive: the spans read them)
        compiled = Derived(copies[0]).idle_spans
        with fast_scheduler.using("python"):
            python = Derived(copies[1]).idle_spans
        for name in ("row", "start", "end", "reason", "next_task", "totals"):
            np.testing.assert_array_equal(getattr(compiled, name), getattr(python, name))


def test_the_pass_counts_then_refuses_columns_of_the_wrong_size() -> None:
    """Rows 0 and 1: tasks [1, 2) and [3, 4) on row 0, none on row 1; a makespan of 5."""
    compiled = fast_scheduler.compiled
    assert compiled is not None
    row_starts, reach = np.array([1.0, 3.0]), np.array([2.0, 4.0])
    bounds = np.array([0, 2, 2], np.int64)
    empty, tasks = np.zeros(0), np.zeros(0, np.int64)

    def run(points: np.ndarray, budget: int, *out: object) -> tuple[int, int]:
        return compiled.rows_pass(
            row_starts, reach, bounds, 0, 2, 5.0, points, empty, tasks, empty, empty, 0,
            REASONS, budget, *out, None,
        )  # fmt: skip

    points = np.array([0.5, 2.5, 4.5, 4.7])
    assert run(points, 10, None, None, None, None, None) == (4, 8)  # 3 gaps, 4 cuts; 1, 4
    assert run(points, 7, None, None, None, None, None)[1] == -1
    with pytest.raises(ValueError):
        run(points, 0, np.zeros(9, np.int64), np.zeros(9), np.zeros(9), np.zeros(9, np.int8),
            np.zeros(9, np.int32))  # fmt: skip
    with pytest.raises(TypeError):
        run(points, 0, None, None, None, np.zeros(10, np.int64), np.zeros(10, np.int32))
    with pytest.raises(TypeError):  # the tasks are written as 32-bit integers
        run(points, 0, None, None, None, np.zeros(12, np.int8), np.zeros(12, np.int64))
    out = np.zeros(12, np.int64), np.zeros(12), np.zeros(12), np.zeros(12, np.int8)
    run(points, 0, *out, np.zeros(12, np.int32))
    np.testing.assert_array_equal(out[0], [0] * 7 + [1] * 5)
    np.testing.assert_array_equal(out[1], [0, 0.5, 2, 2.5, 4, 4.5, 4.7, 0, 0.5, 2.5, 4.5, 4.7])
    np.testing.assert_array_equal(out[2], [0.5, 1, 2.5, 3, 4.5, 4.7, 5, 0.5, 2.5, 4.5, 4.7, 5])
    np.testing.assert_array_equal(out[3], [DONE] * 12)  # the unit has no tasks


def test_the_pass_reads_each_tasks_reach_through_the_order() -> None:
    """Rows that do not overlap give the pass (end, order) instead of a reach array: the
    same gaps, and an order that points outside the ends is refused before any read."""
    compiled = fast_scheduler.compiled
    assert compiled is not None
    row_starts = np.array([1.0, 3.0])
    end, order = np.array([4.0, 9.0, 2.0]), np.array([2, 0], np.int32)  # reach: 2, 4
    bounds = np.array([0, 2, 2], np.int64)
    empty, tasks = np.zeros(0), np.zeros(0, np.int64)
    points = np.array([0.5, 2.5, 4.5, 4.7])

    def run(reach: object) -> tuple[int, int]:
        return compiled.rows_pass(
            row_starts, reach, bounds, 0, 2, 5.0, points, empty, tasks, empty, empty, 0,
            REASONS, 10, None, None, None, None, None, None,
        )  # fmt: skip

    assert run((end, order)) == run(np.array([2.0, 4.0])) == (4, 8)
    for bad in (np.array([3, 0], np.int32), np.array([-1, 0], np.int32)):
        with pytest.raises(ValueError):
            run((end, bad))
    with pytest.raises(TypeError):  # the order is 32-bit
        run((end, order.astype(np.int64)))
    with pytest.raises(TypeError):
        run((end,))
    with pytest.raises(ValueError):  # one entry a task
        run((end, np.array([2], np.int32)))


def test_the_pass_needs_the_tasks_only_to_write_them() -> None:
    """A summary (no out columns) reads no tasks: None is taken; written pieces need them."""
    compiled = fast_scheduler.compiled
    assert compiled is not None
    row_starts, reach = np.array([1.0, 3.0]), np.array([2.0, 4.0])
    bounds = np.array([0, 2, 2], np.int64)
    starts, empty = np.array([1.0, 3.0]), np.zeros(0)
    totals = np.zeros((2, len(IDLE_REASONS)))

    def run(tasks: object, *out: object) -> tuple[int, int]:
        return compiled.rows_pass(
            row_starts, reach, bounds, 0, 2, 5.0, starts, starts, tasks, empty, empty, 0,
            REASONS, 0, *out,
        )  # fmt: skip

    run(None, None, None, None, None, None, totals)
    with_tasks = np.zeros((2, len(IDLE_REASONS)))
    run(np.array([0, 3], np.int64), None, None, None, None, None, with_tasks)
    np.testing.assert_array_equal(totals, with_tasks)
    assert totals.sum() == 1.0 + 1.0 + 1.0 + 5.0  # row 0: [0,1) [2,3) [4,5); row 1: all
    with pytest.raises(ValueError):
        run(None, None, None, None, np.zeros(4, np.int8), np.zeros(4, np.int32), None)
