"""Pipeline shapes (`engine.model.shape`): the shape's checks, random shapes against an
independent SimPy model of the contract (engine/model/shape.py's docstring) written here, and the
compiled loop (engine/compiled/_fastsched.c) against the reference, bit for bit, on random shapes
and on the book's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.base.errors import PipeLabError
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Pool
from engine.model.scheduler import simulate
from engine.model.shape import (
    MAX_STAGES,
    Shape,
    book_shape,
    shape_tasks,
    simulate_shape,
    simulated_tasks,
)

needs_compiled = pytest.mark.skipif(
    fast_scheduler.compiled is None, reason="the compiled extension is not built"
)


def random_durations(n: int, n_stages: int, times: str, seed: int) -> np.ndarray:
    """Tie-heavy integers 1–3, integers 0–3 (zero-length stages, which end on the spot and
    free or ready at the same instant) or floats."""
    rng = np.random.default_rng(seed)
    if times == "floats":
        return rng.uniform(0.1, 5.0, (n, n_stages))
    return rng.integers(0 if times == "zeros" else 1, 4, (n, n_stages)).astype(np.float64)


def assert_compiled_is_the_reference(shape: Shape, durations: np.ndarray) -> None:
    """Every start, worker and grant time of the compiled loop is the reference's."""
    with fast_scheduler.using("compiled"):
        theirs = simulated_tasks(shape, durations)
    for ours, compiled in zip(shape_tasks(shape, durations), theirs, strict=True):
        assert ours.shape == compiled.shape and ours.dtype == compiled.dtype
        assert np.array_equal(ours, compiled)


# -- the shape's checks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        (lambda: Shape((), (), ("u",), (1,)), "1 to 8 stages"),
        (lambda: Shape(("s",) * 2, (0, 0), ("u",), (1,)), "two stages are named 's'"),
        (lambda: Shape(tuple("abcdefghi"), (0,) * 9, ("u",), (1,)), "not 9"),
        (lambda: Shape(("a",), (1,), ("u",), (1,)), "which the pipeline lacks"),
        (lambda: Shape(("a",), (0,), ("u",), (0,)), "unit 'u' needs at least 1 worker"),
        (lambda: Shape(("a",), (0,), ("u", "u"), (1, 1)), "two units are named 'u'"),
        (lambda: Shape(("a", "b"), (0, 0), ("u",), (1,), (Pool("p", 1, 1, 0),)), "frees it"),
        (lambda: Shape(("a",), (0,), ("u",), (1,), (Pool("p", -1, 0, 0),)), "size of 0"),
        (
            lambda: Shape(("a",), (0,), ("u",), (1,), (Pool("p", 1, 0, 0), Pool("p", 1, 0, 0))),
            "two pools are named 'p'",
        ),
    ],
)
def test_a_bad_shape_is_refused_in_one_line(shape: object, words: str) -> None:
    with pytest.raises(PipeLabError, match=words) as refused:
        shape()  # type: ignore[operator]
    assert "\n" not in str(refused.value)


# -- the compiled loop is the reference ----------------------------------------------------


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 14),
    st.tuples(*(st.integers(1, 3) for _ in range(3))),
    st.integers(0, 4),
    st.sampled_from(["integers", "zeros", "floats"]),
    st.integers(0, 2**32 - 1),
)
def test_the_book_s_compiled_loop_is_the_book_s_shape_bit_for_bit(
    n: int, workers: tuple[int, int, int], buffers: int, times: str, seed: int
) -> None:
    """The book runs the shapes' one compiled loop (`simulate`) and gives what the
    reference gives for the book's shape (sequential: one slot)."""
    durations = random_durations(n, 3, times, seed)
    assert_compiled_is_the_reference(book_shape(workers, buffers), durations)
    if not n:
        return
    with fast_scheduler.using("compiled"):
        run = simulate(Scenario(*durations.T, workers=workers, buffers=buffers))
    starts, on, grants = shape_tasks(book_shape(workers, buffers), durations)
    assert np.array_equal(run.op_starts, starts)
    assert np.array_equal(run.worker.reshape(n, 3), on)
    assert run.grant is not None and np.array_equal(run.grant, grants[:, 0])


# -- random shapes against SimPy -------------------------------------------------------------


def simpy_shape(shape: Shape, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The contract as SimPy processes, one per task, and an arbiter that runs after every
    other event of an instant (a lower priority than SimPy's own): it grants free slots in
    ring order, pool by pool, then lets each unit, in the order of its first stage, hand
    its lowest free worker to the ready stage with the earliest ready time, then the lower
    op, then the earlier stage. Positive durations only (a zero-length stage's instant is
    the reference's own business). Returns the starts and each pool's grant times."""
    import simpy

    env = simpy.Environment()
    n, n_stages = durations.shape
    free = [set(range(k)) for k in shape.workers]
    ready: list[list[tuple[float, int, int]]] = [[] for _ in shape.units]
    wants: list[set[int]] = [set() for _ in shape.pools]
    turn = [0] * len(shape.pools)
    held = [0] * len(shape.pools)
    starts = np.full((n, n_stages), np.nan)
    grants = np.full((n, len(shape.pools)), np.nan)
    order = sorted(range(len(shape.units)), key=lambda u: min(
        (s for s, unit in enumerate(shape.stage_units) if unit == u), default=0
    ))  # fmt: skip
    called = [False]

    def needs(op: int, stage: int, granted: int = -1) -> None:
        """Op ``op`` has finished the stage before ``stage``, or just got pool
        ``granted``: ask for the next pool taken at ``stage``, else be ready."""
        taken = [p for p, pool in enumerate(shape.pools) if pool.first == stage]
        later = taken[taken.index(granted) + 1 :] if granted >= 0 else taken
        if later:
            wants[later[0]].add(op)
        else:
            ready[shape.stage_units[stage]].append((env.now, op, stage))
        call_arbiter()

    def call_arbiter() -> None:
        if not called[0]:
            called[0] = True
            event = simpy.Event(env)
            event._ok, event._value = True, None  # (scheduled by hand, below)
            event.callbacks.append(arbitrate)
            env.schedule(event, priority=2)  # type: ignore[arg-type]  # (after NORMAL ones)

    def arbitrate(_: object) -> None:
        called[0] = False
        for p, pool in enumerate(shape.pools):
            while turn[p] in wants[p] and (pool.size == 0 or held[p] < pool.size):
                op = turn[p]
                wants[p].discard(op)
                grants[op, p] = env.now
                held[p] += 1
                turn[p] += 1
                needs(op, pool.first, granted=p)
        for unit in order:
            while ready[unit] and free[unit]:
                best = min(ready[unit])
                ready[unit].remove(best)
                worker = min(free[unit])
                free[unit].discard(worker)
                env.process(run(best[1], best[2], unit, worker))

    def run(op: int, stage: int, unit: int, worker: int):  # type: ignore[no-untyped-def]
        starts[op, stage] = env.now
        yield env.timeout(float(durations[op, stage]))
        free[unit].add(worker)
        for p, pool in enumerate(shape.pools):
            if pool.last == stage:
                held[p] -= 1
        if stage + 1 < n_stages:
            needs(op, stage + 1)
        else:
            call_arbiter()

    for op in range(n):
        needs(op, 0)
    env.run()
    return starts, grants


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    """2–5 stages on 1–3 units (shared), 1–3 workers each, 0–2 pools of 0–3 slots."""
    n_stages = draw(st.integers(2, 5))
    n_units = draw(st.integers(1, min(3, n_stages)))
    stage_units = tuple(draw(st.integers(0, n_units - 1)) for _ in range(n_stages))
    workers = tuple(draw(st.integers(1, 3)) for _ in range(n_units))
    pools = []
    for p in range(draw(st.integers(0, 2))):
        first = draw(st.integers(0, n_stages - 1))
        last = draw(st.integers(first, n_stages - 1))
        pools.append(Pool(f"pool {p}", draw(st.integers(0, 3)), first, last))
    names = tuple(f"stage {s}" for s in range(n_stages))
    return Shape(
        names, stage_units, tuple(f"unit {u}" for u in range(n_units)), workers, tuple(pools)
    )


@settings(max_examples=250, deadline=None)
@given(shapes(), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_random_shapes_agree_with_simpy(shape: Shape, n: int, seed: int) -> None:
    """Tie-heavy integer times: every start and grant as the contract says."""
    durations = np.random.default_rng(seed).integers(1, 4, (n, len(shape.stages))).astype(float)
    starts, _, grants = shape_tasks(shape, durations)
    theirs, their_grants = simpy_shape(shape, durations)
    assert np.array_equal(starts, theirs)
    assert np.array_equal(grants, their_grants)


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(
    shapes(),
    st.integers(0, 30),
    st.sampled_from(["integers", "zeros", "floats"]),
    st.integers(0, 2**32 - 1),
)
def test_the_compiled_loop_is_the_reference_on_random_shapes(
    shape: Shape, n: int, times: str, seed: int
) -> None:
    assert_compiled_is_the_reference(shape, random_durations(n, len(shape.stages), times, seed))


@needs_compiled
def test_the_compiled_loop_takes_pools_of_one_stage_in_their_listed_order() -> None:
    """Two pools taken at the first stage: listed the other way round, op 1 gets the big
    one at 0 and waits for the small one; the compiled loop follows the list as the
    reference does."""
    small, big = Pool("small", 1, 0, 1), Pool("big", 2, 0, 2)
    durations = np.array([[1.0, 2.0, 1.0], [2.0, 1.0, 1.0], [1.0, 1.0, 2.0], [1.0, 3.0, 1.0]])
    grants = []
    for pools in ((small, big), (big, small)):
        shape = Shape(("x", "y", "z"), (0, 1, 0), ("u", "v"), (1, 1), pools)
        assert_compiled_is_the_reference(shape, durations)
        with fast_scheduler.using("compiled"):
            grants.append(simulated_tasks(shape, durations)[2])
    assert grants[0][:, 1].tolist() == [0.0, 3.0, 7.0, 10.0]  # big waits behind small
    assert grants[1][:, 0].tolist() == [0.0, 0.0, 4.0, 8.0]  # big first


@needs_compiled
def test_the_compiled_loop_runs_eight_stages_on_one_unit_and_many_pools() -> None:
    """The most stages, one shared unit of 2 workers, four pools (two taken at one stage,
    one held by a single stage, one unlimited), zero-length stages among them."""
    pools = (
        Pool("a", 2, 0, 7),
        Pool("b", 1, 3, 5),
        Pool("c", 3, 3, 3),
        Pool("d", 0, 6, 7),
    )
    shape = Shape(tuple("abcdefgh"), (0,) * 8, ("u",), (2,), pools)
    for times, seed in (("zeros", 1), ("integers", 2), ("floats", 3)):
        assert_compiled_is_the_reference(shape, random_durations(50, 8, times, seed))


def test_a_pool_freed_after_the_compute_is_a_ring_of_k_stages() -> None:
    """A cp.async mainloop: load (1) then MMA (2) on one tile each, 4 shared-memory
    stages taken at the load and freed after the MMA. The loads run ahead by 4 tiles at
    most, the tensor cores never wait after the first load: 1 + 2n."""
    shape = Shape(
        ("load", "mma"), (0, 1), ("TMA", "tensor cores"), (1, 1), (Pool("smem", 4, 0, 1),)
    )
    n = 12
    durations = np.tile([1.0, 2.0], (n, 1))
    starts, _, grants = shape_tasks(shape, durations)
    assert starts[-1, 1] + 2.0 == 1 + 2 * n
    # Tile i's slot is tile i - 4's, freed when its MMA ends.
    assert np.array_equal(grants[4:, 0], starts[:-4, 1] + 2.0)
    assert MAX_STAGES == 8


# -- the shapes the issue names, against their closed forms ---------------------------------


def hopper(warpgroups: int) -> Shape:
    """Hopper's warp-specialized GEMM: a TMA producer, the tensor cores, two consumer
    warpgroups for the epilogue; 4 shared-memory stages freed after the MMA; the consumer
    warpgroups held from the MMA to the epilogue (2: ping-pong, 1: cooperative)."""
    return Shape(
        ("load", "mma", "epilogue"),
        (0, 1, 2),
        ("TMA", "tensor cores", "consumers"),
        (1, 1, 2),
        (Pool("smem stages", 4, 0, 1), Pool("consumer warpgroups", warpgroups, 1, 2)),
    )


@pytest.mark.parametrize("n", [1, 2, 12, 97])
@pytest.mark.parametrize(("load", "mma", "epilogue"), [(1.0, 2.0, 1.5), (0.5, 3.0, 3.0)])
def test_ping_pong_keeps_the_tensor_cores_busy_and_cooperative_does_not(
    n: int, load: float, mma: float, epilogue: float
) -> None:
    """Ping-pong (epilogue no longer than the MMA): load + n·mma + epilogue; cooperative:
    load + n·(mma + epilogue)."""
    durations = np.tile([load, mma, epilogue], (n, 1))
    ping_pong = simulate_shape(hopper(2), durations)
    cooperative = simulate_shape(hopper(1), durations)
    assert ping_pong.makespan == pytest.approx(load + n * mma + epilogue)
    assert cooperative.makespan == pytest.approx(load + n * (mma + epilogue))
    assert ping_pong.stage_names == ("load", "mma", "epilogue")
    assert ping_pong.unit_names == ("TMA", "tensor cores", "consumers")
    assert ping_pong.n_workers == 4 and ping_pong.grant is None


@pytest.mark.parametrize(("stages", "micro"), [(4, 8), (2, 1), (8, 32), (3, 5)])
def test_pipeline_parallelism_s_bubble(stages: int, micro: int) -> None:
    """S GPUs, M micro-batches of time t each: (M + S − 1)·t, of which each GPU idles
    (S − 1)·t — the bubble, (S − 1) / (M + S − 1) of the run."""
    t = 0.25
    shape = Shape(
        tuple(f"layer {s + 1}" for s in range(stages)),
        tuple(range(stages)),
        tuple(f"GPU {s}" for s in range(stages)),
        (1,) * stages,
    )
    schedule = simulate_shape(shape, np.full((micro, stages), t))
    assert schedule.makespan == (micro + stages - 1) * t
    busy = micro * t
    assert 1 - busy / schedule.makespan == pytest.approx((stages - 1) / (micro + stages - 1))


def test_one_copy_engine_for_both_directions_is_shared_in_ready_order() -> None:
    """H2D and D2H on one copy engine, a kernel on the SMs, 2 pinned staging buffers held
    from the H2D to the D2H: the engine never runs two copies at once, and an op's D2H
    waits for the engine while an H2D runs."""
    shape = Shape(
        ("H2D", "kernel", "D2H"),
        (0, 1, 0),
        ("copy engine", "SMs"),
        (1, 1),
        (Pool("pinned buffers", 2, 0, 2),),
    )
    schedule = simulate_shape(shape, np.tile([1.0, 1.0, 1.0], (6, 1)))
    engine = np.flatnonzero(schedule.unit == 0)
    order = np.argsort(schedule.start[engine])
    assert (schedule.start[engine][order][1:] >= schedule.end[engine][order][:-1]).all()
    assert schedule.buffers == 2 and schedule.grant is not None
    # 12 copies of 1 s on the one engine: it never idles, every kernel is hidden.
    assert schedule.makespan == 12.0


def test_the_book_s_shape_makes_the_book_s_schedule() -> None:
    from engine.model.scenario import Scenario
    from engine.model.scheduler import simulate_reference

    scenario = Scenario.uniform_ops(3, buffers=3)
    ours = simulate_shape(book_shape(scenario.workers, 3), scenario.durations)
    book = simulate_reference(scenario)
    for column in ("op", "stage", "unit", "worker", "start", "end", "grant"):
        assert np.array_equal(getattr(ours, column), getattr(book, column)), column
    assert ours.makespan == 5.0 and ours.buffers == 3  # the book's 9 s → 5 s


def test_durations_that_do_not_fit_the_shape_are_refused() -> None:
    with pytest.raises(PipeLabError, match="one column per stage"):
        simulate_shape(book_shape(), np.ones((3, 2)))
    with pytest.raises(PipeLabError, match="compute duration of op 2"):
        simulate_shape(book_shape(), [[1, 1, 1], [1, -1, 1]])
