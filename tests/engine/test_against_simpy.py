"""An independent model of the same semantics (SimPy's FIFO resources) agrees with ours.

Durations are drawn from continuous ranges so that simultaneous events, where SimPy's
tie order is its own, almost never occur.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.simpy_model import simpy_makespan
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 15),
    st.tuples(*(st.integers(1, 3) for _ in range(3))),
    st.integers(0, 4),
    st.integers(0, 2**32 - 1),
)
def test_simpy_agrees(n: int, workers: tuple[int, int, int], buffers: int, seed: int) -> None:
    d = np.random.default_rng(seed).uniform(0.1, 5.0, (n, 3))
    scenario = Scenario(d[:, 0], d[:, 1], d[:, 2], workers=workers, buffers=buffers)
    ours = simulate(scenario).makespan
    theirs = simpy_makespan(scenario)
    assert abs(ours - theirs) <= 1e-9 * max(1.0, ours)
