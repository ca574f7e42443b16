"""List-scheduling anomalies exist with several workers, never with one per unit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model.anomalies import resource_anomalies
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate


def test_a_second_load_unit_can_make_the_run_slower() -> None:
    one = Scenario([1.0, 0.0], [0.0, 2.0], [2.0, 3.0], buffers=2)
    two = one.with_changes(workers=(2, 1, 1))
    assert simulate(one).makespan == 6.0
    assert simulate(two).makespan == 7.0  # op 2 overtakes, then its long write goes last
    (anomaly,) = resource_anomalies(two)
    assert (anomaly.resource, anomaly.current, anomaly.fewer) == ("load workers", 2, 1)
    assert anomaly.makespan == 6.0 and anomaly.actual == 7.0
    assert "with 1 load workers instead of 2" in anomaly.sentence()


def test_a_third_buffer_slot_can_make_the_run_slower() -> None:
    scenario = Scenario(
        [1.0, 0.0, 0.0], [3.0, 1.0, 1.0], [3.0, 1.0, 0.0], workers=(2, 1, 2), buffers=3
    )
    assert simulate(scenario).makespan == 8.0
    assert simulate(scenario.with_changes(buffers=2)).makespan == 7.0
    assert "buffer slots" in [a.resource for a in resource_anomalies(scenario)]


def test_no_anomaly_on_the_book() -> None:
    assert resource_anomalies(Scenario.uniform_ops(3, workers=(2, 2, 2), buffers=3)) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(*(st.integers(0, 4) for _ in range(3))), min_size=1, max_size=8),
    st.integers(1, 5),
)
def test_one_worker_per_unit_more_slots_never_hurt(rows, buffers) -> None:
    d = np.array(rows, dtype=float)
    scenario = Scenario(d[:, 0], d[:, 1], d[:, 2], buffers=buffers)
    more = scenario.with_changes(buffers=buffers + 1)
    assert simulate(more).makespan <= simulate(scenario).makespan + 1e-9
    unlimited = scenario.with_changes(buffers=0)
    assert simulate(unlimited).makespan <= simulate(scenario).makespan + 1e-9
