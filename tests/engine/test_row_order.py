"""Rows put in time order (`engine.model.columns.rows_time_order`): the compiled sort
(engine/compiled/_row_order.c) and the numpy one give the same arrays, bit for bit, and a plain
lexsort's, on spans in any order with ties, zero lengths and signed zeros, on rows in
order already or not; and each block's longest and shortest span
(`engine.indexes.span_index.SpanIndex`), the same both ways."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.compiled import fast_scheduler
from engine.indexes.span_index import SpanIndex
from engine.model.columns import rows_time_order
from tests.engine.strategies import spans_schedule

pytestmark = pytest.mark.skipif(
    fast_scheduler.compiled is None, reason="the compiled extension is not built"
)

times = st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0, 2.5, 3.0, 1e-300, 7.25])


@st.composite
def spans(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    n_rows = draw(st.integers(1, 5))
    n = draw(st.integers(0, 120))
    start = np.array(draw(st.lists(times, min_size=n, max_size=n)), dtype=np.float64)
    length = np.array(draw(st.lists(times, min_size=n, max_size=n)), dtype=np.float64)
    rows = draw(st.lists(st.integers(0, n_rows - 1), min_size=n, max_size=n))
    row = np.array(sorted(rows) if draw(st.booleans()) else rows, dtype=np.int64)
    if draw(st.booleans()):  # rows already in time order, as a simulated run's mostly are
        key = np.lexsort((length, start, row))
        start, length, row = start[key], length[key], row[key]
    return start, start + np.abs(length), row, n_rows


def sorted_as_lexsort(
    start: np.ndarray, end: np.ndarray, row: np.ndarray, n_rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, frozenset[int], bool]:
    """What `rows_time_order` gives, by a plain lexsort: the order, bounds, starts in that
    order, the rows whose spans in index order were not in time order, and whether some
    span starts before the one before it on its row ended."""
    order = np.lexsort((end, start, row))
    bounds = np.searchsorted(row[order], np.arange(n_rows + 1))
    starts, ends = start[order], end[order]
    resorted, early = set(), False
    for r in range(n_rows):
        mine = np.flatnonzero(row == r)
        if not np.array_equal(np.lexsort((end[mine], start[mine])), np.arange(len(mine))):
            resorted.add(r)
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        if hi - lo > 1:  # (an empty row first: ends[0:-1] would be every span but one)
            early |= bool((starts[lo + 1 : hi] < ends[lo : hi - 1]).any())
    return order, bounds, starts, frozenset(resorted), early


@settings(max_examples=400, deadline=None)
@given(spans())
def test_the_compiled_sort_and_the_numpy_sort_agree_with_a_lexsort(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, int],
) -> None:
    """Both give the same arrays, bit for bit (signed zeros too), and the lexsort's order,
    bounds and starts; the rows sorted again and whether a span starts before the one
    before it on its row ended."""
    order, bounds, starts, resorted, early = sorted_as_lexsort(*case)
    compiled = rows_time_order(*case)
    with fast_scheduler.using("python"):
        python = rows_time_order(*case)
    for ours, theirs in zip(compiled[:3], python[:3], strict=True):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
        assert np.array_equal(np.signbit(ours), np.signbit(theirs))
    for got in (compiled, python):
        for ours, theirs in zip(got[:3], (order, bounds, starts), strict=True):
            np.testing.assert_array_equal(ours, theirs)
        assert got[3] == resorted
        assert got[4] == early


def test_a_long_row_out_of_order_is_merge_sorted() -> None:
    rng = np.random.default_rng(3)
    n = 5000
    start = rng.integers(0, 300, n).astype(np.float64)
    end = start + rng.integers(0, 3, n)
    row = rng.integers(0, 3, n)
    compiled = rows_time_order(start, end, row, 3)
    with fast_scheduler.using("python"):
        python = rows_time_order(start, end, row, 3)
    for ours, theirs in zip(compiled[:3], python[:3], strict=True):
        np.testing.assert_array_equal(ours, theirs)
        assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(compiled[0], np.lexsort((end, start, row)))
    assert compiled[3] == python[3] == frozenset({0, 1, 2})
    assert compiled[4] == python[4]
    assert compiled[0].dtype == np.int32  # 4 bytes a task: 11 MB less at 10^6 ops, k = 2


@pytest.mark.parametrize(
    ("row", "order_type", "error"),
    [
        (2, np.int32, ValueError),  # a row past the last (2 rows)
        (0, np.int64, TypeError),  # an order of 64-bit items: it takes 32-bit ones
    ],
)
def test_bad_arguments_are_refused(row: int, order_type: type, error: type) -> None:
    compiled = fast_scheduler.compiled
    assert compiled is not None
    one = np.zeros(1)
    with pytest.raises(error):
        compiled.rows_in_time_order(
            one, one, np.array([row], np.int64), 2, np.zeros(1, order_type),
            np.zeros(3, np.int64), np.zeros(1), np.zeros(1), np.zeros(2, np.bool_),
        )  # fmt: skip


def test_an_overlap_column_of_the_wrong_length_is_refused() -> None:
    compiled = fast_scheduler.compiled
    assert compiled is not None
    one = np.zeros(1)
    with pytest.raises(ValueError):  # one entry a row (2 rows)
        compiled.rows_in_time_order(
            one, one, np.array([0], np.int64), 2, np.zeros(1, np.int32),
            np.zeros(3, np.int64), np.zeros(1), None, np.zeros(2, np.bool_),
            np.zeros(1, np.bool_),
        )  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(spans())
def test_the_blocks_longest_and_shortest_spans_are_the_same_both_ways(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, int],
) -> None:
    start, end, row, n_rows = case
    # (several blocks of 64, and a rest)
    start, end, row = np.tile(start, 3), np.tile(end, 3), np.tile(row, 3)
    schedule = spans_schedule(start, end, row, n_rows)
    compiled = SpanIndex.of_schedule(schedule)
    with fast_scheduler.using("python"):
        python = SpanIndex.of_schedule(schedule)
    for name in ("_block_longest", "_block_shortest"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(python, name))
