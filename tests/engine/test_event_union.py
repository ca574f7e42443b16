"""`engine.indexes.event_union.EventUnion`: the event times of several Schedules counted and
searched as their sorted union, without merging them; checked against the merged array
(np.unique of them all, or merged within a tolerance as a Schedule's own times are:
`merged_within`), with the compiled and the numpy `sorted_common` alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.base.tolerance import time_tolerance
from engine.compiled import fast_scheduler
from engine.indexes.event_union import EventUnion, events_of, sorted_common
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from tests.engine.strategies import BUILDS

#: Few distinct values, so that the arrays share many (the book's whole seconds) or none.
values = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 5.0, 1e-300, 7.25, 9.0, 1e9])


@st.composite
def event_arrays(draw: st.DrawFn) -> list[np.ndarray]:
    count = draw(st.integers(1, 4))
    return [
        np.unique(np.array([0.0, *draw(st.lists(values, max_size=12))], dtype=np.float64))
        for _ in range(count)
    ]


def assert_searches_as(union: EventUnion, merged: np.ndarray, probes: list[float]) -> None:
    assert len(union) == len(merged)
    assert np.array_equal(np.asarray(union), merged)
    assert union.first == merged[0] and union.last == merged[-1]
    assert [union[k] for k in range(len(merged))] == merged.tolist()
    assert [union[-k] for k in range(1, len(merged) + 1)] == merged[::-1].tolist()
    for t in [*probes, *merged.tolist()]:
        assert union.count_through(t) == int(np.searchsorted(merged, t, "right"))
        later, earlier = merged[merged > t], merged[merged < t]
        assert union.first_after(t) == (later[0] if len(later) else None)
        assert union.last_before(t) == (earlier[-1] if len(earlier) else None)
        through = merged[merged <= t]
        assert union.last_through(t) == (through[-1] if len(through) else merged[0])


@pytest.mark.parametrize("build", BUILDS)
@settings(max_examples=300, deadline=None)
@given(arrays=event_arrays(), probes=st.lists(st.one_of(values, st.floats(-1, 10)), max_size=6))
def test_the_union_counts_and_searches_as_the_merged_array(build, arrays, probes) -> None:
    with fast_scheduler.using(build):
        union = EventUnion(arrays)
    assert_searches_as(union, np.unique(np.concatenate(arrays)), probes)


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(values, max_size=30).map(lambda v: np.sort(np.array(v, dtype=np.float64))),
    b=st.lists(values, max_size=30).map(lambda v: np.sort(np.array(v, dtype=np.float64))),
)
def test_sorted_common_is_the_intersection_both_ways(a, b) -> None:
    """Repeated values within an array (which event times never have) count once too."""
    expected = np.intersect1d(a, b)
    strided = np.repeat(a, 3)[::3]  # a stage's column of a Schedule: not copied
    assert len(a) < 2 or not strided.flags.c_contiguous
    for build in BUILDS:
        with fast_scheduler.using(build):
            assert np.array_equal(sorted_common(a, b), expected), build
            assert np.array_equal(sorted_common(b, a), expected), build
            assert np.array_equal(sorted_common(strided, b), expected), build


def test_an_index_outside_the_union_is_an_index_error() -> None:
    union = EventUnion([np.array([0.0, 1.0]), np.array([0.0, 2.0])])
    assert len(union) == 3 and union[-1] == 2.0
    with pytest.raises(IndexError):
        union[3]
    with pytest.raises(IndexError):
        union[-4]


def test_no_arrays_is_the_time_zero() -> None:
    union = EventUnion([])
    assert len(union) == 1 and union.first == union.last == 0.0


def test_the_union_of_a_big_run_keeps_only_the_shared_times() -> None:
    """Sequential and pipelined runs of random durations share few event times: the union
    holds the Schedules' own end columns and those few, not a merged copy of their times
    (at 10^6 ops: 46 MB a run)."""
    rng = np.random.default_rng(0)
    n = 20_000
    r, c, w = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    scenario = Scenario(r, c, w, buffers=3)
    schedules = [simulate(scenario, policy) for policy in ("sequential", "pipelined")]
    union = events_of([Derived(_s) for _s in schedules])
    assert all(len(a) == 1 or a.base is not None for a in union.arrays)  # views
    assert len(union.removed) < 100 and len(union.dropped) < 100
    expected = np.unique(np.concatenate([event_times(s) for s in schedules]))
    assert len(union) == len(expected)


def merged_within(arrays: list[np.ndarray], tolerance: float) -> np.ndarray:
    """A Schedule's event times from its arrays of times: sort every occurrence, keep one
    more than ``tolerance`` above the occurrence before it."""
    times = np.sort(np.concatenate(arrays))
    keep = np.ones(len(times), dtype=bool)
    keep[1:] = times[1:] - times[:-1] > tolerance
    return times[keep]


def event_times(schedule: Schedule) -> np.ndarray:
    """0 and every start and end of ``schedule``, merged within its time tolerance."""
    tolerance = time_tolerance(schedule.makespan)
    return merged_within([np.zeros(1), schedule.start, schedule.end], tolerance)


#: Times that lie within 0.01 of one another, and repeats, in every array.
close = st.sampled_from([0.0, 1.0, 1.004, 1.008, 1.02, 2.0, 2.0, 2.009, 3.5, 3.5101, 4.0])


@settings(max_examples=300, deadline=None)
@given(
    arrays=st.lists(st.lists(close, max_size=10).map(sorted), min_size=1, max_size=4),
    tolerance=st.sampled_from([0.0, 0.005, 0.01]),
    probes=st.lists(st.floats(-1, 5), max_size=4),
)
def test_one_schedules_times_merge_within_the_tolerance(arrays, tolerance, probes) -> None:
    """Ascending arrays with repeats (a stage's ends, two workers ending together) and
    times within the tolerance of the one before (merged into it, even in a chain)."""
    parts = [np.array([0.0, *a]) for a in arrays]
    strided = [np.repeat(p, 2)[::2] for p in parts]  # (stage columns: read as they are)
    for build in BUILDS:
        for given_parts in (parts, strided):
            with fast_scheduler.using(build):
                union = EventUnion(given_parts, tolerance)
            assert_searches_as(union, merged_within(parts, tolerance), probes)


@settings(max_examples=200, deadline=None)
@given(
    sets=st.lists(
        st.tuples(
            st.lists(st.lists(close, max_size=8).map(sorted), min_size=1, max_size=3),
            st.sampled_from([0.0, 0.005, 0.01]),
        ),
        min_size=1,
        max_size=3,
    ),
    probes=st.lists(st.floats(-1, 5), max_size=4),
)
def test_joined_schedules_hold_each_ones_times_once(sets, probes) -> None:
    """Each Schedule merges its own times within its tolerance; across Schedules a time
    counts once where equal (a time one merges away is a time where another holds it)."""
    unions, merged = [], []
    for arrays, tolerance in sets:
        parts = [np.array([0.0, *a]) for a in arrays]
        unions.append(EventUnion(parts, tolerance))
        merged.append(merged_within(parts, tolerance))
    for build in BUILDS:
        with fast_scheduler.using(build):
            joined = EventUnion.joined(unions)
        assert_searches_as(joined, np.unique(np.concatenate(merged)), probes)


@pytest.mark.parametrize("workers", [(1, 1, 1), (2, 2, 2), (1, 3, 1)])
@pytest.mark.parametrize("policy", ["sequential", "pipelined"])
@pytest.mark.parametrize("durations", ["random", "whole", "zeros"])
def test_a_schedules_events_are_its_event_times(workers, policy, durations) -> None:
    """The same set as every start and end merged within the tolerance, from the stages'
    end columns: views where a stage ends in op order, not copies. A copy of the Schedule
    (which does not carry `Schedule.ends_hold_starts`) merges its starts and ends: the
    same times."""
    rng = np.random.default_rng(3)
    n = 3_000
    if durations == "random":  # times 1e-6 apart and closer merge (the tolerance at 10^6 s)
        r, c, w = (rng.uniform(0.5, 1.5, n) * 1e3 for _ in range(3))
    elif durations == "whole":  # the book's: every time repeats across stages
        r, c, w = (rng.integers(1, 4, n).astype(float) for _ in range(3))
    else:  # zero-length tasks: many ends at one instant
        r, c, w = (rng.integers(0, 2, n).astype(float) for _ in range(3))
    schedule = simulate(Scenario(r, c, w, workers=workers, buffers=2), policy)
    events = Derived(schedule).events
    expected = event_times(schedule)
    assert len(events) == len(expected)
    assert np.array_equal(np.asarray(events), expected)
    assert np.array_equal(np.asarray(Derived(schedule.with_meta(label="copy")).events), expected)
    picks = rng.integers(0, len(expected), 50)
    assert [events[int(k)] for k in picks] == expected[picks].tolist()
    for t in [*rng.uniform(0, schedule.makespan, 50).tolist(), *expected[picks].tolist()]:
        assert events.count_through(t) == int(np.searchsorted(expected, t, "right"))
        assert events.last_through(t) == expected[np.searchsorted(expected, t, "right") - 1]
    if policy == "sequential" or workers == (1, 1, 1):
        assert all(a.base is not None for a in events.arrays[1:])  # views of the ends


def test_the_clock_of_both_policies_counts_each_time_once() -> None:
    rng = np.random.default_rng(0)
    r, c, w = (rng.integers(1, 4, 500).astype(float) for _ in range(3))
    scenario = Scenario(r, c, w, workers=(2, 1, 2), buffers=3)
    schedules = [simulate(scenario, policy) for policy in ("sequential", "pipelined")]
    joined = events_of([Derived(_s) for _s in schedules])
    expected = np.unique(np.concatenate([event_times(s) for s in schedules]))
    assert len(joined) == len(expected)
    assert np.array_equal(np.asarray(joined), expected)


@pytest.mark.skipif(fast_scheduler.compiled is None, reason="the compiled extension is not built")
def test_the_compiled_merge_refuses_what_it_cannot_read() -> None:
    compiled = fast_scheduler.compiled
    assert compiled is not None
    parts = (np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    removed, dropped = np.empty(4), np.empty(4)
    assert compiled.merge_times(parts, 0.0, removed, dropped) == (1, 0)
    assert removed[0] == 1.0
    with pytest.raises(ValueError):  # room for every occurrence
        compiled.merge_times(parts, 0.0, np.empty(3), np.empty(4))
    with pytest.raises(TypeError):
        compiled.merge_times((np.array([0, 1]),), 0.0, removed, dropped)
    with pytest.raises(TypeError):
        compiled.merge_times([parts[0]], 0.0, removed, dropped)  # a tuple
    assert compiled.merge_times((), 0.0, np.empty(0), np.empty(0)) == (0, 0)
