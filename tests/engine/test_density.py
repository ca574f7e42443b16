"""Busy fraction per pixel column: exact against a per-task reference, banded rows and
capacity, runs of equal shade, and the steps of the ramp."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.indexes.density import band_of_rows, busy_fraction, quantize, rows_per_band, runs
from engine.indexes.span_index import SpanIndex
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from tests.engine.strategies import spans_schedule


def reference(start, end, row, n_rows, t0, t1, columns, bands=None, capacity=None):
    """Each task's overlap with each column, one task at a time."""
    n_bands = n_rows if bands is None else min(bands, n_rows)
    edges = np.linspace(t0, t1, columns + 1)
    busy = np.zeros((n_bands, columns))
    for a, b, r in zip(start, end, row, strict=True):
        overlap = np.clip(np.minimum(b, edges[1:]) - np.maximum(a, edges[:-1]), 0, None)
        busy[r * n_bands // n_rows] += overlap
    per_band = np.bincount(np.arange(n_rows) * n_bands // n_rows, minlength=n_bands)
    if capacity is not None:
        per_band = np.minimum(per_band, capacity)
    return np.clip(busy / (per_band[:, None] * (t1 - t0) / columns), 0, 1)


tasks = st.lists(
    st.tuples(
        st.floats(-5, 105, allow_nan=False),
        st.floats(0, 30, allow_nan=False),
        st.integers(0, 6),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(
    tasks,
    st.integers(1, 50),
    st.floats(-10, 50),
    st.floats(1, 120),
    st.none() | st.integers(1, 7),
)
def test_matches_the_per_task_reference(items, columns, t0, span, bands) -> None:
    start = np.array([a for a, _, _ in items], dtype=float)
    end = start + np.array([d for _, d, _ in items], dtype=float)
    row = np.array([r for _, _, r in items], dtype=np.int64)
    got = busy_fraction(
        start, end, row, n_rows=7, t0=t0, t1=t0 + span, columns=columns, bands=bands
    )
    want = reference(start, end, row, 7, t0, t0 + span, columns, bands)
    assert got.shape == want.shape
    assert np.allclose(got, want, atol=1e-9)


def test_a_pipeline_keeps_its_bottleneck_busy_and_the_total_is_kept() -> None:
    schedule = simulate(Scenario.uniform_ops(20_000, 1.0, 1.2, 0.8), "pipelined")
    fraction = busy_fraction(
        schedule.start,
        schedule.end,
        schedule.row,
        n_rows=3,
        t0=0.0,
        t1=schedule.makespan,
        columns=700,
    )
    # Inside the run the compute unit never rests; each row's mean is its utilization.
    assert fraction[1, 5:-5].min() > 0.999
    assert np.allclose(fraction.mean(axis=1), [1 / 1.2, 1.0, 0.8 / 1.2], atol=1e-3)


def test_bands_and_capacity() -> None:
    assert band_of_rows([0, 1, 2, 3, 4], 5, 2).tolist() == [0, 0, 0, 1, 1]
    assert rows_per_band(5, 2).tolist() == [3, 2]
    # Ten rows (ops) in one band, one task at a time: 10 % of the band, but 100 % of the
    # one worker that could run them.
    start = np.arange(10.0)
    row = np.arange(10)
    plain = busy_fraction(start, start + 1, row, n_rows=10, t0=0, t1=10, columns=10, bands=1)
    capped = busy_fraction(
        start, start + 1, row, n_rows=10, t0=0, t1=10, columns=10, bands=1, capacity=1
    )
    assert np.allclose(plain, 0.1) and np.allclose(capped, 1.0)


def test_runs_of_equal_levels_skip_zero() -> None:
    grid = np.array([[0, 1, 1, 2, 0], [3, 3, 0, 0, 1]])
    row, first, length, level = runs(grid)
    assert list(zip(row, first, length, level, strict=True)) == [
        (0, 1, 2, 1),
        (0, 3, 1, 2),
        (1, 0, 2, 3),
        (1, 4, 1, 1),
    ]


def test_quantize_never_hides_a_sliver_of_work() -> None:
    assert quantize([0.0, 1e-6, 0.5, 1.0], 24).tolist() == [0, 1, 12, 24]


@settings(max_examples=100, deadline=None)
@given(tasks, st.integers(1, 40), st.floats(-10, 50), st.floats(1, 120), st.floats(0, 20))
def test_the_index_answers_as_a_scan_would(items, columns, t0, span, shortest) -> None:
    start = np.array([a for a, _, _ in items], dtype=float)
    end = start + np.array([d for _, d, _ in items], dtype=float)
    row = np.array([r for _, _, r in items], dtype=np.int64)
    index = SpanIndex.of_schedule(spans_schedule(start, end, row, 7))
    t1 = t0 + span
    # Busy share per column: the union of each row's spans (overlaps once).
    edges = np.linspace(t0, t1, columns + 1)
    want = np.zeros((7, columns))
    for r in range(7):
        spans = sorted((a, b) for a, b, rr in zip(start, end, row, strict=True) if rr == r)
        merged: list[list[float]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        for a, b in merged:
            want[r] += np.clip(np.minimum(b, edges[1:]) - np.maximum(a, edges[:-1]), 0, None)
    want = np.clip(want / (span / columns), 0, 1)
    assert np.allclose(index.busy_fraction(t0, t1, columns), want, atol=1e-9)
    visible = set(np.flatnonzero((end >= t0) & (start <= t1)).tolist())
    found = set(index.visible(t0, t1).tolist())
    assert visible <= found  # a superset where spans overlap, never a miss
    assert set(index.at_least(shortest).tolist()) == set(
        np.flatnonzero(end - start >= shortest).tolist()
    )
