"""The assembly line of a pipeline shape's run: one shelf per pool, each slot with the op
holding it and what that op does in the shape's own words (issue 28)."""

from __future__ import annotations

import numpy as np

from engine.analysis.assembly_model import Spot, assembly_frame, pools_now, rest_pools
from engine.analysis.derived import Derived
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from engine.model.shape_file import ShapedScenario, load_any_preset


def shaped(name: str) -> ShapedScenario:
    scenario = load_any_preset(name)
    assert isinstance(scenario, ShapedScenario)
    return scenario


def held(derived: Derived, time: float) -> list[dict[int, str]]:
    """Per pool: op number (from 1) → its words, for every slot held at ``time``."""
    pools = pools_now(derived, time, (16,) * len(derived.schedule.pools))
    return [
        {op + 1: word for op, word in zip(p.slots.op.tolist(), p.words, strict=True) if op >= 0}
        for p in pools
    ]


def test_ping_pong_at_twelve_seconds() -> None:
    derived = Derived(shaped("hopper-ping-pong").simulate("pipelined"))
    smem, consumers = held(derived, 12.0)
    assert smem == {6: "mma", 7: "waits mma", 8: "waits mma", 9: "waits mma"}
    assert consumers == {5: "epilogue", 6: "mma"}
    frame = assembly_frame(derived, 12.0, 0.0, 8, 0, (4, 2))
    assert [(p.in_use, p.peak) for p in frame.pools] == [(4, 4), (2, 2)]
    assert [pool.plan.count for pool in derived.assembly.pools] == [4, 2]
    # Tiles 7-9 wait for the MMA in their shared-memory stage: their chips sit there.
    stride = derived.assembly.pool_stride
    chips = frame.chips
    resting = chips.op[(chips.to_spot == Spot.SLOT)]
    assert sorted((resting + 1).tolist()) == [7, 8, 9]
    for op in resting.tolist():
        index = int(chips.to_index[chips.op == op][0])
        pool, slot = divmod(index, stride)
        assert pool == 0 and int(frame.pools[0].slots.op[slot]) == op


def test_ping_pong_at_its_start_reserves_the_ring() -> None:
    derived = Derived(shaped("hopper-ping-pong").simulate("pipelined"))
    smem, consumers = held(derived, 0.5)
    assert smem == {1: "load", 2: "waits load", 3: "waits load", 4: "waits load"}
    assert consumers == {}


def test_cooperative_has_one_consumer_slot() -> None:
    derived = Derived(shaped("hopper-cooperative").simulate("pipelined"))
    smem, consumers = held(derived, 12.0)
    assert smem == {4: "mma", 5: "waits mma", 6: "waits mma", 7: "waits mma"}
    assert consumers == {4: "mma"}
    smem, consumers = held(derived, 14.0)
    assert consumers == {4: "epilogue"}
    assert 5 in smem and smem[5] == "waits mma"  # its MMA waits for the consumer slot
    frame = assembly_frame(derived, 14.0, 0.0, 8, 0, (4, 1))
    assert [p.in_use for p in frame.pools] == [4, 1]
    assert [pool.plan.count for pool in derived.assembly.pools] == [4, 1]


def test_the_sequential_run_of_a_shape_has_its_one_pool() -> None:
    derived = Derived(shaped("hopper-ping-pong").simulate("sequential"))
    assert [p.name for p in derived.schedule.pools] == ["one op at a time"]
    (alone,) = held(derived, 12.0)
    assert len(alone) == 1


def test_a_shape_without_pools_and_the_book_have_no_pool_shelves() -> None:
    derived = Derived(shaped("pipeline-parallel").simulate("pipelined"))
    assert derived.schedule.pool_grants is not None
    assert derived.assembly.shape and derived.assembly.pools == ()
    frame = assembly_frame(derived, 2.5, 0.0, 8, 0, ())
    assert frame.pools == ()
    book = Derived(simulate(Scenario.uniform_ops(3, 1.0, 1.0, 1.0), "pipelined"))
    assert not book.assembly.shape
    assert assembly_frame(book, 2.5, 0.0, 8, 3).pools == ()


def test_an_op_rests_in_the_pool_it_has_held_longest() -> None:
    schedule = shaped("host-pipeline").simulate("pipelined")
    # pack → H2D: pinned buffers; H2D → kernel and kernel → D2H: device buffers.
    assert rest_pools(schedule) == ((0, 1), (1,), (1,))


def test_pool_holders_agree_with_the_engine_state() -> None:
    from engine.analysis.timeline import state_at

    for name in ("hopper-ping-pong", "hopper-cooperative", "host-pipeline", "cp-async-ring"):
        derived = Derived(shaped(name).simulate("pipelined"))
        schedule = derived.schedule
        for time in np.linspace(0.0, schedule.makespan, 37).tolist():
            state = state_at(schedule, time)
            counts = tuple(max(p.size, 1) * 2 for p in schedule.pools)
            for p, pool in enumerate(pools_now(derived, time, counts)):
                ops = sorted(o for o in pool.slots.op.tolist() if o >= 0)
                assert ops == np.flatnonzero(state.pool_holds[p]).tolist(), (name, time, p)
                assert pool.in_use == state.pool_in_use(p)
