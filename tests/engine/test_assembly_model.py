"""engine.analysis.assembly_model (pure, no Qt): slot states, where chips sit and when they glide,
and that a frame looks only at the few ops it draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.assembly_model import (
    Spot,
    assembly_frame,
    chip_motion,
    slots_now,
    transitions,
)
from engine.analysis.derived import Derived
from engine.analysis.timeline import Place, state_at
from engine.compiled import fast_scheduler
from engine.indexes.assembly_slots import SlotState, _by_slot_then_hold, assign_slots, slot_holds
from engine.model.scenario import Scenario, load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate

FREE, RESERVED, LOADING, HOLDING, WRITING = (
    SlotState.FREE,
    SlotState.RESERVED,
    SlotState.LOADING,
    SlotState.HOLDING,
    SlotState.WRITING,
)


def book_with_two_slots() -> Schedule:
    return simulate(Scenario.uniform_ops(3, 1.0, 1.0, 1.0, buffers=2), "pipelined")


@pytest.mark.parametrize(
    ("time", "ops", "states", "fill"),
    [
        # op 1 reads into slot 1; op 2 was granted slot 2 at 0 but the load unit is busy
        (0.5, [0, 1], [LOADING, RESERVED], [0.5, 0.0]),
        # op 1 computes in slot 1; op 2 reads into slot 2
        (1.5, [0, 1], [HOLDING, LOADING], [1.0, 0.5]),
        # op 1 is written out of slot 1; op 2 computes; op 3 waits for a slot
        (2.5, [0, 1], [WRITING, HOLDING], [0.5, 1.0]),
        # op 3 got slot 1 when op 1's write ended at 3 s; op 2 is being written
        (3.5, [2, 1], [LOADING, WRITING], [0.5, 0.5]),
        (4.5, [2, -1], [HOLDING, FREE], [1.0, 0.0]),
        (6.0, [-1, -1], [FREE, FREE], [0.0, 0.0]),
    ],
)
def test_slot_states_of_the_book_example_with_two_slots(
    time: float, ops: list[int], states: list[SlotState], fill: list[float]
) -> None:
    now = slots_now(Derived(book_with_two_slots()), time, 2)
    assert now.op.tolist() == ops
    assert now.state.tolist() == [int(s) for s in states]
    assert now.fill == pytest.approx(fill)


def test_slot_states_agree_with_the_engines_holds() -> None:
    """With B slots an op holds its slot from its grant to the end of its write (the
    engine's `op_holds_slot`); the slot shows exactly the holders."""
    for preset in ("double-buffering", "uneven-ops", "memory-bound", "many-ops"):
        schedule = simulate(load_preset(preset), "pipelined")
        b = schedule.buffers
        for time in np.linspace(0, schedule.makespan, 97):
            holds = state_at(schedule, float(time)).op_holds_slot
            now = slots_now(Derived(schedule), float(time), b)
            assert sorted(now.op[now.op >= 0].tolist()) == np.flatnonzero(holds).tolist()
            assert ((now.state == FREE) == (now.op < 0)).all()


def test_unlimited_slots_show_the_ops_whose_data_is_in_shared_memory() -> None:
    """B = 0: every grant is at 0, so a slot is in use from the read's start to the
    write's end, and the peak is what the run needs (3 for the book example)."""
    schedule = simulate(load_preset("book"), "pipelined")
    index = Derived(schedule).assembly.slots
    assert index.peak == 3 and index.plan.count == 3
    frame = assembly_frame(Derived(schedule), 0.5, 0.0, 4, 3)
    assert frame.in_use == 1 and frame.slots.op.tolist() == [0, -1, -1]
    frame = assembly_frame(Derived(schedule), 2.5, 0.0, 4, 3)
    assert frame.in_use == 3
    assert frame.slots.state.tolist() == [WRITING, HOLDING, LOADING]
    first, last = slot_holds(schedule)
    assert first.tolist() == [0.0, 1.0, 2.0] and last.tolist() == [3.0, 4.0, 5.0]


def test_sequential_runs_use_one_slot() -> None:
    schedule = simulate(load_preset("book"), "sequential")
    assert Derived(schedule).assembly.slots.plan.count == 1
    assert slots_now(Derived(schedule), 4.5, 1).op.tolist() == [1]


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(
        st.tuples(*(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]) for _ in range(3))),
        min_size=1,
        max_size=12,
    ),
    workers=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
    buffers=st.integers(0, 4),
)
def test_slots_are_never_double_booked(rows, workers, buffers) -> None:
    d = np.array(rows, dtype=float)
    schedule = simulate(Scenario(d[:, 0], d[:, 1], d[:, 2], workers=workers, buffers=buffers))
    first, last = slot_holds(schedule)
    plan = assign_slots(first, last, buffers)
    slots = plan.slot_of(np.arange(schedule.n_ops))
    assert slots.max() < plan.count
    if buffers:
        assert plan.count <= buffers
        if workers == (1, 1, 1):  # the engine's rule: op i takes the slot op i − B held
            assert np.array_equal(slots, np.arange(schedule.n_ops) % min(buffers, plan.count))
    for a in range(schedule.n_ops):
        for b in range(a + 1, schedule.n_ops):
            overlap = first[a] < last[b] and first[b] < last[a]
            assert not (overlap and slots[a] == slots[b])
    for time in np.unique(np.concatenate([first, last, (first + last) / 2])):
        now = slots_now(Derived(schedule), float(time), plan.count)
        holding = (first <= time) & (time < last)
        assert sorted(now.op[now.op >= 0].tolist()) == np.flatnonzero(holding).tolist()


@pytest.mark.skipif(fast_scheduler.compiled is None, reason="the compiled extension is not built")
@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(*(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]) for _ in range(3))),
        min_size=1,
        max_size=40,
    ),
    workers=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)),
    buffers=st.integers(1, 5),
)
def test_slots_passed_on_are_the_same_with_either_build(rows, workers, buffers) -> None:
    """Slots inherited in release order: the compiled chain walk (engine/compiled/_fastsched.c's
    chain_roots) ends at the roots pointer jumping finds."""
    d = np.array(rows, dtype=float)
    schedule = simulate(Scenario(d[:, 0], d[:, 1], d[:, 2], workers=workers, buffers=buffers))
    first, last = slot_holds(schedule)
    compiled = assign_slots(first, last, buffers)
    with fast_scheduler.using("python"):
        python = assign_slots(first, last, buffers)
    assert (compiled.modulus, compiled.count) == (python.modulus, python.count)
    ops = np.arange(schedule.n_ops)
    np.testing.assert_array_equal(compiled.slot_of(ops), python.slot_of(ops))


def test_chain_roots_refuses_a_later_owner() -> None:
    compiled = fast_scheduler.compiled
    if compiled is None:
        pytest.skip("the compiled extension is not built")
    owner = np.array([0, 0, 1, 2], dtype=np.int64)
    compiled.chain_roots(owner)
    assert owner.tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError):
        compiled.chain_roots(np.array([0, 2, 1], dtype=np.int64))


# -- chips ----------------------------------------------------------------------------------


def _spot_of_place(schedule: Schedule, op: int, place: int) -> tuple[int, int]:
    last = 2 * len(schedule.stage_names)
    if place == 0:
        return Spot.INPUT, -2
    if place >= last:
        return Spot.OUTPUT, -2
    if place % 2:
        return Spot.WORKER, int(schedule.row[schedule.op_task_index[op, place // 2]])
    return Spot.SLOT, int(Derived(schedule).assembly.slots.plan.slot_of(np.array([op]))[0])


@pytest.mark.parametrize("preset", ["book", "double-buffering", "two-load-units", "uneven-ops"])
def test_still_frames_are_the_engines_state(preset: str) -> None:
    """Without glides every chip sits where `state_at` says its op is, and the frame
    includes every op at a worker or in a shown slot."""
    schedule = simulate(load_preset(preset), "pipelined")
    slot_count = Derived(schedule).assembly.slots.plan.count
    events = np.asarray(Derived(schedule).events)
    for time in np.concatenate([events, events + 0.25]):
        state = state_at(schedule, float(time))
        frame = assembly_frame(Derived(schedule), float(time), 0.0, 4, slot_count)
        chips = frame.chips
        assert (chips.fraction == 1).all()
        assert frame.waiting == int((state.op_place == Place.WAITING).sum())
        assert frame.done == int((state.op_place == Place.DONE).sum())
        for op, spot, where in zip(chips.op, chips.to_spot, chips.to_index, strict=True):
            expected, index = _spot_of_place(schedule, int(op), int(state.op_place[op]))
            assert spot == expected
            if index != -2:
                assert where == index
        busy = state.workers.op[state.workers.op >= 0]
        assert set(busy.tolist()) <= set(chips.op.tolist())
        inside = np.flatnonzero((state.op_place > 0) & (state.op_place < Place.DONE))
        assert set(inside.tolist()) <= set(chips.op.tolist())


def test_a_chip_glides_only_just_after_its_op_moves() -> None:
    schedule = simulate(load_preset("book"), "pipelined")
    times = transitions(schedule, np.arange(3))
    # t = 1: op 1's read ends as its compute starts; op 2's read starts.
    motion = chip_motion(times, 1.1, travel=0.2)
    assert motion.place.tolist() == [3, 1, 0]
    assert motion.from_place.tolist() == [1, 0, 0]
    assert motion.fraction.tolist() == pytest.approx([0.5, 0.5, 1.0])
    still = chip_motion(times, 1.25, travel=0.2)
    assert (still.fraction == 1).all() and still.from_place.tolist() == [3, 1, 0]
    # Just before a move nothing glides (the old glide started half-way through a wait).
    before = chip_motion(times, 0.95, travel=0.2)
    assert (before.fraction == 1).all() and before.place.tolist() == [1, 0, 0]


def test_a_waiting_op_stays_where_it_waits() -> None:
    """Compute-bound: op 2 reads 1–2 s, then waits in its slot 2–3 s for the compute unit.
    Its chip sits in its slot for the whole wait, except the glide into it."""
    schedule = simulate(Scenario.uniform_ops(3, 1.0, 2.0, 1.0, buffers=2), "pipelined")
    travel = 0.2
    spots = set()
    for time in np.linspace(2.0 + travel, 3.0 - 1e-9, 50):
        frame = assembly_frame(Derived(schedule), float(time), travel, 4, 2)
        k = int(np.flatnonzero(frame.chips.op == 1)[0])
        assert frame.chips.fraction[k] == 1
        spots.add((int(frame.chips.to_spot[k]), int(frame.chips.to_index[k])))
    assert spots == {(Spot.SLOT, 1)}
    gliding = assembly_frame(Derived(schedule), 2.1, travel, 4, 2).chips
    k = int(np.flatnonzero(gliding.op == 1)[0])
    assert gliding.from_spot[k] == Spot.WORKER and gliding.to_spot[k] == Spot.SLOT
    assert gliding.fraction[k] == pytest.approx(0.5)


def test_the_queue_moves_up_when_an_op_leaves_the_shelf() -> None:
    schedule = simulate(Scenario.uniform_ops(4, buffers=2), "pipelined")
    chips = assembly_frame(Derived(schedule), 1.1, 0.25, 4, 2).chips
    row = {int(op): k for k, op in enumerate(chips.op)}
    k = row[2]  # op 3: rank 1 → 0 as op 2 starts reading at 1 s
    assert (chips.from_spot[k], chips.from_index[k]) == (Spot.INPUT, 1)
    assert (chips.to_spot[k], chips.to_index[k]) == (Spot.INPUT, 0)
    k = row[1]  # op 2 leaves from rank 0 for the load worker
    assert (chips.from_spot[k], chips.from_index[k], chips.to_spot[k]) == (
        Spot.INPUT,
        0,
        Spot.WORKER,
    )


def test_a_frame_looks_only_at_the_ops_it_draws() -> None:
    """Compute-bound with unlimited slots: tens of thousands of ops sit read in shared
    memory half-way through, yet a frame holds only the ops at workers, in the shown
    slots and on the shelves."""
    schedule = simulate(Scenario.uniform_ops(100_000, 1.0, 2.0, 1.0, buffers=0), "pipelined")
    frame = assembly_frame(Derived(schedule), schedule.makespan / 2, 0.3, 6, 16)
    assert frame.in_use > 40_000
    assert len(frame.chips.op) <= 3 + 16 + 2 * 6
    assert frame.waiting + frame.done < 100_000


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from([0.0, 1.0, 1.0, 2.5, 4.0]),
            st.sampled_from([0.0, 1.0, 3.0, 5.0]),
        ),
        max_size=40,
    ),
    st.booleans(),
)
def test_ops_by_slot_then_hold_are_lexsorts(rows, granted_in_order) -> None:
    if granted_in_order:  # holds in (start, end) order, as a simulated run grants them
        rows = sorted(rows, key=lambda row: (row[1], row[2]))
    slots = np.array([r[0] for r in rows], dtype=np.int64)
    first = np.array([r[1] for r in rows], dtype=np.float64)
    last = first + np.array([r[2] for r in rows], dtype=np.float64)
    ours = _by_slot_then_hold(slots, first, last, 4)
    np.testing.assert_array_equal(ours, np.lexsort((last, first, slots)))
    assert ours.dtype == np.int32  # 4 bytes an op (below 2^31 ops)
