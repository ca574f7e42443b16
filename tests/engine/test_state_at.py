"""state_at, event times and narration on the textbook example."""

from __future__ import annotations

import numpy as np

from engine.analysis.derived import Derived
from engine.analysis.timeline import Place, narrate, state_at
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate


def _events(policy: str) -> list[float]:
    events = Derived(simulate(Scenario.uniform_ops(3), policy)).events
    return np.asarray(events).tolist()


def test_event_times_of_the_book() -> None:
    assert _events("pipelined") == [0, 1, 2, 3, 4, 5]
    assert _events("sequential") == list(range(10))


def test_state_in_the_middle_of_the_book() -> None:
    state = state_at(simulate(Scenario.uniform_ops(3)), 1.5)
    assert state.workers.op.tolist() == [1, 0, -1]
    assert state.workers.fraction.tolist() == [0.5, 0.5, 0.0]
    assert [Place(p) for p in state.op_place] == [Place.COMPUTING, Place.READING, Place.WAITING]
    assert np.isnan(state.workers.idle_since[0]) and state.workers.idle_since[2] == 0.0
    assert state.slots_in_use == 3  # unlimited slots: every op granted at 0


def test_boundaries_belong_to_the_next_task() -> None:
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    state = state_at(schedule, 3.0)
    assert state.workers.op.tolist() == [2, -1, 1]  # op 3 reads, op 2 writes, compute waits
    assert state.slots_in_use == 2
    end = state_at(schedule, schedule.makespan)
    assert (end.workers.task == -1).all()
    assert (end.op_place == Place.DONE).all()
    assert end.workers.idle_since.tolist() == [4.0, 5.0, 6.0]


def test_narration_reads_like_the_book() -> None:
    schedule = simulate(Scenario.uniform_ops(3))
    assert narrate(Derived(schedule), 0.0) == (
        "t = 0 s: the load unit starts reading op 1; the compute unit waits for op 1's read "
        "(ends at 1 s); the store unit waits for op 1's compute (ends at 2 s); ops 2 and 3 "
        "wait for the load unit"
    )
    assert narrate(Derived(schedule), 1.0) == (
        "t = 1 s: the load unit starts reading op 2 while the compute unit starts computing "
        "op 1; the store unit waits for op 1's compute (ends at 2 s); op 3 waits for the load "
        "unit"
    )
    assert narrate(Derived(schedule), 5.0) == "t = 5 s: all 3 ops are done; the run took 5 s"
    sequential = simulate(Scenario.uniform_ops(3), "sequential")
    assert narrate(Derived(sequential), 1.0).startswith(
        "t = 1 s: the compute unit starts computing op 1; the load unit waits: the slot is "
        "held (op 1); it frees at 3 s;"
    )
    assert narrate(Derived(sequential), 1.5) == (
        "t = 1.5 s: the compute unit is computing op 1; the load unit waits: the slot is held "
        "(op 1); it frees at 3 s; the store unit waits for op 1's compute (ends at 2 s); ops 2 "
        "and 3 wait for a slot"
    )


def test_narration_at_t_2_names_the_slots() -> None:
    """Issue 9: book example, Buffers = 2, t = 2 s."""
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    assert narrate(Derived(schedule), 2.0) == (
        "t = 2 s: the compute unit starts computing op 2 while the store unit starts writing "
        "op 1; the load unit waits: both slots are held (ops 1 and 2); the first frees at 3 s; "
        "op 3 waits for a slot"
    )


def test_narration_is_kept_by_its_derived() -> None:
    schedule = simulate(Scenario.uniform_ops(3))
    derived = Derived(schedule)
    assert narrate(derived, 1.0) is narrate(derived, 1.0)
