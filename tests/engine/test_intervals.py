"""`engine.reasons.wait_index.Intervals` (the slot holds the wait reasons stab) against brute force:
which and how many intervals contain a time, and every (time, interval) pair, for holds in
grant order whose ends do not rise with their starts (two workers per unit: a later op
may write first), where the latest end so far is kept per block of 64, not per hold."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.reasons.wait_index import Intervals, cut_at_points


@st.composite
def holds(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(0, 1500))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, 400, n).astype(np.float64)
    if draw(st.booleans()):
        lo.sort()  # granted in op order, as a simulated run's are
    # Mostly short holds and a few long ones: long ones keep earlier blocks open.
    length = np.where(rng.random(n) < 0.02, rng.integers(0, 300, n), rng.integers(0, 4, n))
    hi = lo + length
    times = np.concatenate([rng.uniform(-5, 720, 40), lo[:20], hi[:20]])
    return lo, hi, times


def brute_at(lo: np.ndarray, hi: np.ndarray, t: float) -> np.ndarray:
    return np.flatnonzero((lo <= t) & (hi > t))


@settings(max_examples=150, deadline=None)
@given(holds())
def test_stabbing_matches_brute_force(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    lo, hi, times = case
    for hi_sorted in (None, np.sort(hi)):
        index = Intervals(lo, hi, hi_sorted)
        assert index.reach is None or bool((np.diff(index.hi) >= 0).all())
        for t in times.tolist():
            np.testing.assert_array_equal(index.at(t), brute_at(lo, hi, t))
        np.testing.assert_array_equal(
            index.count(times), [len(brute_at(lo, hi, t)) for t in times.tolist()]
        )
        query, found = index.pairs(times)
        want = [(q, int(i)) for q, t in enumerate(times.tolist()) for i in brute_at(lo, hi, t)]
        assert list(zip(query.tolist(), found.tolist(), strict=True)) == want


def test_ends_out_of_order_keep_no_running_maximum() -> None:
    """Holds in grant order whose ends fall now and then (a later op writes first): the
    running maximum of the ends is kept per block, not per hold."""
    lo = np.arange(1000, dtype=np.float64)
    hi = lo + np.where(np.arange(1000) % 7 == 0, 50.0, 1.0)
    index = Intervals(lo, hi)
    assert index.reach is None
    assert len(index.block_reach) == len(index.block_max) == 16
    np.testing.assert_array_equal(index.at(500.5), brute_at(lo, hi, 500.5))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8)), max_size=40),
    st.lists(st.integers(-2, 40), max_size=30),
)
def test_cut_at_points_cuts_as_a_loop_would(gaps, points) -> None:
    """Every [lo, hi) cut at each point strictly inside it, in order, with each piece's
    count of points at or before its start; past the budget, None."""
    lo = np.array([float(a) for a, _ in gaps])
    hi = lo + np.array([float(d) for _, d in gaps])
    cuts = np.unique(np.array(points, dtype=np.float64))
    want = []
    for g, (a, b) in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
        edges = [a, *(p for p in cuts.tolist() if a < p < b), b]
        want += [(g, x, y) for x, y in itertools.pairwise(edges)] or [(g, a, b)]
    found = cut_at_points(lo, hi, cuts)
    assert found is not None
    parent, start, end, counted = found
    assert list(zip(parent.tolist(), start.tolist(), end.tolist(), strict=True)) == want
    assert counted.tolist() == np.searchsorted(cuts, start, "right").tolist()
    extra = len(want) - len(gaps)
    assert cut_at_points(lo, hi, cuts, extra) is not None
    assert extra == 0 or cut_at_points(lo, hi, cuts, extra - 1) is None
