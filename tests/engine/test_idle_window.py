"""`idle_summary` and `idle_spans_between`: the idle spans added up without keeping them
(the compiled summary pass), and the spans of a window found from the tasks in it, equal
bit for bit to what the whole run's `idle_spans` give: on simulated runs with any workers
and slots, shuffled and free-form tasks, with a cut budget small enough that a unit is cut
at its last start only, and on the pure-Python build (which keeps the spans). Likewise
`op_waits_between` and `op_wait_reasons` against `op_waits`."""

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
from engine.reasons import waits
from engine.reasons.waits import (
    IDLE_REASONS,
    OP_WAIT_REASONS,
    IdleSpans,
    idle_spans_between,
    op_waits_between,
)
from tests.engine.strategies import idle_pass_inputs, schedule_inputs

COLUMNS = ("row", "start", "end", "reason", "next_task")


def _picked(spans: IdleSpans, t0: float, t1: float, rows: list[int] | None, shortest: float):
    keep = (spans.end > t0) & (spans.start <= t1) & (spans.end - spans.start >= shortest)
    if rows is not None:
        keep &= np.isin(spans.row, rows)
    return {name: getattr(spans, name)[keep] for name in COLUMNS}


def _check(schedule: Schedule, windows: list[tuple[float, float, list[int] | None, float]]):
    kept = replace(schedule)  # (alive while its spans are read)
    whole = Derived(kept).idle_spans
    lean = replace(schedule)  # nothing cached: the summary comes first
    summary = Derived(lean).idle_summary
    if fast_scheduler.use_compiled and fast_scheduler.compiled is not None:
        assert "_waits_idle" not in lean.__dict__  # the spans were not built
    rows, reasons = schedule.n_workers, len(IDLE_REASONS)
    counts = np.bincount(whole.row * reasons + whole.reason, minlength=rows * reasons)
    np.testing.assert_array_equal(summary.counts, counts.reshape(rows, reasons))
    np.testing.assert_array_equal(summary.totals, whole.totals)  # same order of additions
    longest = np.zeros(rows)
    np.maximum.at(longest, whole.row, whole.end - whole.start)
    np.testing.assert_array_equal(summary.longest, longest)
    for t0, t1, chosen, shortest in windows:
        found = idle_spans_between(Derived(lean), t0, t1, chosen, shortest)
        for name, expected in _picked(whole, t0, t1, chosen, shortest).items():
            ours = getattr(found, name)
            assert ours.dtype == expected.dtype, name
            np.testing.assert_array_equal(ours, expected, err_msg=name)
        if len(found):  # the words of a window's span are the whole run's
            same = (whole.row == found.row[0]) & (whole.start == found.start[0])
            k = int(np.flatnonzero(same)[0])
            assert found.describe(0) == whole.describe(k)


windows = st.lists(
    st.tuples(
        st.floats(-1.0, 60.0),
        st.one_of(st.just(0.0), st.floats(0.0, 80.0)),
        st.one_of(st.none(), st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True)),
        st.one_of(st.just(0.0), st.floats(0.0, 4.0)),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    idle_pass_inputs(),
    windows,
    st.sampled_from([None, 0, 1, 3]),
    st.sampled_from(["compiled", "python"]),
)
def test_the_summary_and_windows_are_the_whole_runs_spans(
    schedule: Schedule,
    drawn: list[tuple[float, float, list[int] | None, float]],
    budget: int | None,
    build: str,
) -> None:
    if build == "compiled" and fast_scheduler.compiled is None:
        return
    chosen = [
        (t0, t0 + width, None if rows is None else sorted(set(rows)), shortest)
        for t0, width, rows, shortest in drawn
    ]
    with pytest.MonkeyPatch.context() as patch, fast_scheduler.using(build):
        if budget is not None:  # few cuts allowed: some units cut at their last start only
            patch.setattr(waits, "_budget", lambda _: budget)
        n = schedule.n_workers
        on_rows = [
            (t0, t1, None if r is None else [x % n for x in r], s) for t0, t1, r, s in chosen
        ]
        _check(schedule, on_rows)


def test_a_million_op_window_reads_only_its_tasks() -> None:
    """A window far into a long run with two workers a unit: the spans in it, the same as
    the whole run's there; rows whose longest span is shorter than asked cost nothing."""
    rng = np.random.default_rng(3)
    n = 20_000
    scenario = Scenario(*(rng.uniform(0.5, 1.5, n) for _ in range(3)), workers=(2, 2, 2), buffers=3)
    for policy in ("sequential", "pipelined"):
        schedule = simulate(scenario, policy)
        span = schedule.makespan
        _check(schedule, [(0.5 * span, 0.5 * span + 7.0, None, 0.0), (span - 3, span, [1, 4], 0.2)])
        longest = float(Derived(schedule).idle_summary.longest.max())
        assert not len(idle_spans_between(Derived(schedule), 0, span, None, 2 * longest))
        for build in ("compiled", "python") if fast_scheduler.compiled else ("python",):
            with fast_scheduler.using(build):  # a window that ends before it starts: none
                assert not len(idle_spans_between(Derived(replace(schedule)), span / 2, span / 3))


def test_a_wide_view_finds_the_long_spans_through_blocks() -> None:
    """A long run with a few slow ops: over the whole run, only spans of at least 40 s
    (found through the longest gap of each block of tasks), the whole run's there."""
    rng = np.random.default_rng(8)
    n = 30_000
    read, compute, write = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    compute[[7, 4_000, 4_001, 17_000]] = [50.0, 300.0, 45.0, 1_000.0]
    for workers in ((1, 1, 1), (2, 2, 2), (1, 2, 1)):
        scenario = Scenario(read, compute, write, workers=workers, buffers=3)
        for policy in ("sequential", "pipelined"):
            schedule = simulate(scenario, policy)
            span = schedule.makespan
            _check(schedule, [(0.0, span, None, 40.0), (span / 3, span, [0, 2], 40.0)])


@settings(max_examples=200, deadline=None)
@given(
    schedule_inputs(("simulated", "measured", "shuffled", "free"), max_ops=30),
    st.integers(-2, 35),
    st.integers(0, 40),
)
def test_an_op_range_has_the_whole_runs_op_waits(schedule: Schedule, first: int, count: int):
    """`op_waits_between`: the spans `op_waits` gives those ops, bit for bit; and
    `op_wait_reasons` (found without keeping the waits) are the reasons they name."""
    kept = replace(schedule)
    whole = Derived(kept).op_waits
    lean = replace(schedule)
    found = op_waits_between(Derived(lean), first, first + count)
    keep = (whole.op >= first) & (whole.op < first + count)
    for name in ("op", "stage", "start", "end", "reason"):
        ours, expected = getattr(found, name), getattr(whole, name)[keep]
        assert ours.dtype == expected.dtype, name
        np.testing.assert_array_equal(ours, expected, err_msg=name)
    for i in range(min(3, len(found))):  # the same words
        k = int(np.flatnonzero(keep)[i])
        assert found.describe(i) == whole.describe(k)
    codes = set(whole.reason.tolist())
    assert Derived(lean).op_wait_reasons == tuple(
        r for k, r in enumerate(OP_WAIT_REASONS) if k in codes
    )
    if schedule.is_pipeline and schedule.source == "simulated":
        assert "_waits_ops" not in vars(lean)  # (found without building them all)
