"""Wait reasons, narration, critical path and JSON of pipeline shapes' pools (issue 28;
engine/reasons/pool_waits.py): a brute-force oracle that walks time on random shapes and says,
from the tasks and grants alone, who holds each pool's slots and what every idle worker
and waiting op waits for; the shipped presets by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.analysis.timeline import narrate
from engine.analysis.writers import to_json, to_trace
from engine.model.schedule import Schedule
from engine.model.shape import Shape, simulate_shape
from engine.model.shape_file import load_any_preset
from engine.reasons.critical_path import critical_path
from engine.reasons.pool_waits import is_shape_run, pool_use, slot_words
from engine.reasons.waits import DONE, INPUT, SLOT, WAIT_SLOT, WAIT_WORKER, idle_now, ops_waiting_at
from tests.engine.test_shapes import shapes
from tests.engine.test_waits import span_at


def preset(name: str, policy: str = "pipelined") -> Schedule:
    return load_any_preset(name).simulate(policy)


# -- the oracle ----------------------------------------------------------------------------


def holders(s: Schedule, pool: int, t: float) -> list[int]:
    """Every op holding a slot of ``pool`` at ``t``: granted, its pool's last stage not over."""
    assert s.pool_grants is not None
    last = s.pools[pool].last
    return [o for o in range(s.n_ops) if s.pool_grants[o, pool] <= t < s.op_ends[o, last]]


def taken_at(s: Schedule, stage: int) -> list[int]:
    return [p for p, pool in enumerate(s.pools) if pool.first == stage]


def stage_waits_for(s: Schedule, op: int, stage: int, t: float) -> tuple[int, int]:
    """(reason, pool) of stage ``stage`` of ``op`` at ``t``: input (its previous stage
    runs), a pool's slot (the first of its stage's pools not granted), else ready."""
    assert s.pool_grants is not None
    if stage > 0 and s.op_ends[op, stage - 1] > t:
        return INPUT, -1
    for p in taken_at(s, stage):
        if s.pool_grants[op, p] > t:
            return SLOT, p
    return -1, -1


def expected_idle(s: Schedule, row: int, t: float) -> tuple[int, int, list[int]] | None:
    """Why worker ``row`` is idle at ``t`` (None: it is busy): the unit's next task to
    start (ties: lower op) and what it waits for; done without one."""
    unit = int(np.searchsorted(s.worker_offsets, row, "right") - 1)
    if any(s.start[k] <= t < s.end[k] for k in np.flatnonzero(s.row == row)):
        return None
    later = [k for k in np.flatnonzero(s.unit == unit) if s.start[k] > t]
    if not later:
        return DONE, -1, []
    task = min(later, key=lambda k: (s.start[k], s.op[k]))
    op, stage = int(s.op[task]), int(s.stage[task])
    reason, pool = stage_waits_for(s, op, stage, t)
    if reason == SLOT:
        return SLOT, pool, holders(s, pool, t)
    return INPUT, -1, [op]


def moments(s: Schedule) -> np.ndarray:
    """Midpoints between consecutive event times: no start, end or grant falls on one."""
    assert s.pool_grants is not None
    times = np.unique(np.concatenate([[0.0], s.start, s.end, s.pool_grants.reshape(-1)]))
    return 0.5 * (times[1:] + times[:-1])


@settings(max_examples=150, deadline=None)
@given(shapes(), st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_idle_spans_op_waits_and_pool_use_agree_with_an_oracle_on_random_shapes(
    shape: Shape, n: int, seed: int
) -> None:
    durations = np.random.default_rng(seed).integers(1, 4, (n, len(shape.stages))).astype(float)
    s = simulate_shape(shape, durations)
    derived = Derived(s)
    if not is_shape_run(s):
        return  # (no pools, or the book's one: its own tests)
    spans, waits = derived.idle_spans, derived.op_waits
    for t in moments(s).tolist():
        for row in range(s.n_workers):
            expected = expected_idle(s, row, t)
            i = span_at(spans, spans.row, row, t)
            if expected is None:
                assert i < 0
                continue
            reason, pool, ops = expected
            assert int(spans.reason[i]) == reason, (row, t, spans.describe(i))
            assert spans.pool(i) == pool
            if reason != DONE:
                assert list(spans.ops(i)) == ops
            [now] = idle_now(derived, [row], t)
            assert (now.reason, now.pool, list(now.ops)) == (reason, pool, ops)
            if reason == SLOT:
                assert f"a slot of {s.pools[pool].name}" in spans.describe(i)
        for op in range(s.n_ops):
            stage = int(np.searchsorted(s.op_starts[op], t, "right"))
            waiting = stage < len(s.stage_names) and (stage == 0 or s.op_ends[op, stage - 1] <= t)
            i = span_at(waits, waits.op, op, t)
            if not waiting:
                assert i < 0
                continue
            reason, pool = stage_waits_for(s, op, stage, t)
            assert int(waits.stage[i]) == stage
            if reason == SLOT:
                assert (int(waits.reason[i]), waits.pool(i)) == (WAIT_SLOT, pool)
                assert list(waits.ops(i)) == holders(s, pool, float(np.nextafter(waits.end[i], 0)))
            else:
                assert int(waits.reason[i]) == WAIT_WORKER
        found = {w.pool: w.count for w in ops_waiting_at(derived, t) if w.reason == "slot"}
        for p in range(len(s.pools)):
            count = sum(stage_waits_for(s, o, s.pools[p].first, t) == (SLOT, p)
                        for o in range(s.n_ops))  # fmt: skip
            assert found.get(p, 0) == count
    assert s.pool_grants is not None
    mids, ends = moments(s), np.unique(np.concatenate([[0.0], s.start, s.end]))
    steps = np.diff(np.unique(np.concatenate([[0.0], s.start, s.end, s.pool_grants.ravel()])))
    for p, use in enumerate(pool_use(s)):
        counts = [len(holders(s, p, t)) for t in mids.tolist()]
        assert use.peak == max(counts, default=0)
        assert use.mean == pytest.approx(float(np.dot(counts, steps)) / float(ends[-1]))
        first = s.pools[p].first
        before = taken_at(s, first)[: taken_at(s, first).index(p)]
        asked = [
            s.pool_grants[o, before[-1]] if before
            else (s.op_ends[o, first - 1] if first else 0.0)
            for o in range(s.n_ops)
        ]  # fmt: skip
        assert use.waited == pytest.approx(float((s.pool_grants[:, p] - asked).sum()))
    path = critical_path(s)
    assert sum(path.charged.values()) == pytest.approx(s.makespan)
    assert set(path.charged) >= {*s.unit_names, "overhead"}


# -- the presets by hand -------------------------------------------------------------------


def test_ping_pong_narrates_its_stages_and_pools() -> None:
    derived = Derived(preset("hopper-ping-pong"))
    assert narrate(derived, 11.5) == (
        "t = 11.5 s: the TMA is working on load of op 9, the tensor cores are working on mma "
        "of op 6 and consumers 1 is working on epilogue of op 5; consumers 2 waits for op 6's "
        "mma (ends at 13 s); ops 10–12 wait for a slot of smem stages; ops 7 and 8 wait for a "
        "slot of consumer warpgroups"
    )
    assert narrate(derived, 12.0) == (
        "t = 12 s: the tensor cores are working on mma of op 6 and consumers 1 is working on "
        "epilogue of op 5; the TMA waits for a slot of smem stages, held by ops 6–9 (the "
        "first frees at 13 s); consumers 2 waits for op 6's mma (ends at 13 s); ops 10–12 "
        "wait for a slot of smem stages; ops 7–9 wait for a slot of consumer warpgroups"
    )
    assert narrate(derived, 0.0).startswith(
        "t = 0 s: the TMA starts load of op 1; the tensor cores wait for op 1's load"
    )
    assert "both consumers wait" in narrate(derived, 0.0)


def test_ping_pong_s_tma_waits_for_smem_stages_and_ops_for_both_pools() -> None:
    derived = Derived(preset("hopper-ping-pong"))
    spans = derived.idle_spans
    i = span_at(spans, spans.row, 0, 12.5)
    assert (spans.reason_name(i), float(spans.start[i]), float(spans.end[i])) == ("slot", 12, 13)
    assert spans.describe(i) == (
        "waiting for a slot of smem stages: held by ops 6–9; the first frees at 13 s"
    )
    assert spans.ops(i) == (5, 6, 7, 8)
    waits = derived.op_waits
    said = [waits.describe(k) for k in range(*np.searchsorted(waits.op, [6, 7]))]
    assert said == [
        "op 7 waits 0–7 s for a slot of smem stages: held by ops 3–6; op 3 frees one at 7 s",
        "op 7 waits 8–12.5 s for a slot of consumer warpgroups: held by ops 5 and 6; "
        "op 5 frees one at 12.5 s",
        "op 7 waits 12.5–13 s for the tensor cores: it works on op 6 until 13 s",
    ]
    assert derived.idle_summary.present() == ("input", "slot", "done")
    assert slot_words(derived.schedule) == (
        "waiting for a slot: smem stages or consumer warpgroups"
    )


def test_cooperative_s_tensor_cores_wait_for_the_one_consumer_warpgroup() -> None:
    derived = Derived(preset("hopper-cooperative"))
    assert narrate(derived, 7.0) == (
        "t = 7 s: the TMA is working on load of op 6 and the consumers are working on "
        "epilogue of op 2; the tensor cores wait for a slot of consumer warpgroups, held by "
        "op 2 until 8 s; ops 7–12 wait for a slot of smem stages; ops 3–5 wait for a slot of "
        "consumer warpgroups"
    )
    charged = critical_path(derived.schedule).charged
    assert charged["consumer warpgroups"] == 38.5
    assert charged["overhead"] == 0


def test_cp_async_ring_s_loads_wait_for_the_ring() -> None:
    derived = Derived(preset("cp-async-ring"))
    spans = derived.idle_spans
    load = [spans.describe(i) for i in range(len(spans)) if spans.row[i] == 0]
    assert load[0] == "waiting for a slot of smem stages: held by ops 3–6; the first frees at 7 s"
    assert "ops 8–12 wait for a slot of smem stages" in narrate(derived, 7.0)


def test_the_json_gives_each_pool_its_use_and_names_stages_and_units() -> None:
    found = json.loads(to_json(preset("hopper-ping-pong")))
    assert found["pools"] == [
        {"name": "smem stages", "size": 4, "from": "load", "to": "mma", "period": 0.75,
         "peak_in_use": 4, "mean_in_use": 3.32075471698, "waited": 80},
        {"name": "consumer warpgroups", "size": 2, "from": "mma", "to": "epilogue",
         "period": 1.75, "peak_in_use": 2, "mean_in_use": 1.81132075472, "waited": 39},
    ]  # fmt: skip
    assert found["workers"] == {"TMA": 1, "tensor cores": 1, "consumers": 2}
    assert {(t["stage"], t["unit"]) for t in found["tasks"]} == {
        ("load", "TMA"),
        ("mma", "tensor cores"),
        ("epilogue", "consumers"),
    }
    slot = [span for span in found["idle"] if span["reason"] == "slot"]
    assert slot[0] == {
        "unit": "TMA",
        "worker": 0,
        "start": 6,
        "end": 7,
        "reason": "slot",
        "ops": [2, 3, 4, 5],
    }


def test_the_trace_has_a_track_per_worker_of_each_unit() -> None:
    trace = json.loads(to_trace([preset("hopper-ping-pong")]))
    names = {
        e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"
    }
    assert sorted(names.values()) == ["TMA", "consumers 1", "consumers 2", "tensor cores"]
    # Each task on its worker's own track (the consumers' second worker has none to run).
    for event in trace["traceEvents"]:
        if event.get("ph") == "X":
            unit, worker = event["args"]["unit"], event["args"]["worker"]
            title = f"{unit} {worker + 1}" if unit == "consumers" else unit
            assert names[event["tid"]] == title


def test_the_book_s_words_stay_the_book_s() -> None:
    from engine.model.scenario import Scenario
    from engine.model.scheduler import simulate

    book = simulate(Scenario([1, 1, 1], [1, 1, 1], [1, 1, 1], buffers=2), "pipelined")
    derived = Derived(book)
    assert not is_shape_run(book)
    assert slot_words(book) == "waiting for a buffer slot"
    assert narrate(derived, 2.0) == (
        "t = 2 s: the compute unit starts computing op 2 while the store unit starts writing "
        "op 1; the load unit waits: both slots are held (ops 1 and 2); the first frees at "
        "3 s; op 3 waits for a slot"
    )
    assert "compute" in critical_path(book).charged


def test_a_shape_s_one_pool_from_first_to_last_keeps_the_book_s_rules_and_its_name() -> None:
    """One pool held from the first stage to the last: the book's rules (`Schedule.grant`),
    the pool's name in the words."""
    from engine.model.schedule import Pool

    shape = Shape(
        ("fetch", "decode", "run", "retire"), (0, 1, 1, 2), ("front end", "cores", "retire unit"),
        (1, 2, 1), (Pool("ring", 2, 0, 3),),
    )  # fmt: skip
    s = simulate_shape(shape, [[1, 2, 2, 1]] * 5)
    derived = Derived(s)
    assert s.grant is not None and not is_shape_run(s)
    assert slot_words(s) == "waiting for a slot of ring"
    assert narrate(derived, 2.0) == (
        "t = 2 s: cores 2 starts decode of op 2; cores 1 is working on decode of op 1; the "
        "front end waits for a slot of ring, held by ops 1 and 2 (the first frees at 6 s); "
        "the retire unit waits for op 1's run (ends at 5 s); ops 3–5 wait for a slot of ring"
    )
    waits = derived.op_waits
    assert waits.describe(int(np.searchsorted(waits.op, 2))) == (
        "op 3 waits 0–6 s for a slot of ring: held by ops 1 and 2; op 1 frees one at 6 s"
    )
    assert critical_path(s).charged["ring"] > 0


@settings(max_examples=60, deadline=None)
@given(shapes(), st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_the_json_s_ops_of_all_spans_at_once_are_each_span_s(
    shape: Shape, n: int, seed: int
) -> None:
    durations = np.random.default_rng(seed).integers(1, 4, (n, len(shape.stages))).astype(float)
    spans = Derived(simulate_shape(shape, durations)).idle_spans
    for lo in range(0, len(spans), 7):
        hi = min(lo + 7, len(spans))
        assert spans.ops_lists(lo, hi) == [list(spans.ops(i)) for i in range(lo, hi)]
