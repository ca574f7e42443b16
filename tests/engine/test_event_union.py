"""`engine.event_union.EventUnion`: the event times of several Schedules counted and
searched as their sorted union, without merging them; checked against the merged array
(np.unique of them all), with the compiled and the numpy `sorted_common` alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import fast_scheduler
from engine.event_union import EventUnion, sorted_common

BUILDS = ["python"] + (["compiled"] if fast_scheduler.compiled is not None else [])

#: Few distinct values, so that the arrays share many (the book's whole seconds) or none.
values = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 5.0, 1e-300, 7.25, 9.0, 1e9])


@st.composite
def event_arrays(draw: st.DrawFn) -> list[np.ndarray]:
    count = draw(st.integers(1, 4))
    return [
        np.unique(np.array([0.0, *draw(st.lists(values, max_size=12))], dtype=np.float64))
        for _ in range(count)
    ]


@pytest.mark.parametrize("build", BUILDS)
@settings(max_examples=300, deadline=None)
@given(arrays=event_arrays(), probes=st.lists(st.one_of(values, st.floats(-1, 10)), max_size=6))
def test_the_union_counts_and_searches_as_the_merged_array(build, arrays, probes) -> None:
    merged = np.unique(np.concatenate(arrays))
    with fast_scheduler.using(build):
        union = EventUnion(arrays)
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


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(values, max_size=30).map(lambda v: np.sort(np.array(v, dtype=np.float64))),
    b=st.lists(values, max_size=30).map(lambda v: np.sort(np.array(v, dtype=np.float64))),
)
def test_sorted_common_is_the_intersection_both_ways(a, b) -> None:
    """Repeated values within an array (which event times never have) count once too."""
    expected = np.intersect1d(a, b)
    for build in BUILDS:
        with fast_scheduler.using(build):
            assert np.array_equal(sorted_common(a, b), expected), build
            assert np.array_equal(sorted_common(b, a), expected), build


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


def test_the_union_of_a_million_op_run_keeps_only_the_shared_times() -> None:
    """Sequential and pipelined runs of random durations share few event times: the union
    holds those few, not a merged copy of 6 million times."""
    from engine.scenario import Scenario
    from engine.scheduler import simulate

    rng = np.random.default_rng(0)
    n = 20_000
    r, c, w = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    scenario = Scenario(r, c, w, buffers=3)
    parts = [simulate(scenario, policy).event_times for policy in ("sequential", "pipelined")]
    union = EventUnion(parts)
    assert union.arrays[0] is parts[0] and union.arrays[1] is parts[1]
    assert len(union.repeats[0]) < 100
    assert len(union) == len(np.unique(np.concatenate(parts)))
