"""Wait reasons, the slot-aware bottleneck and the closed form on known examples."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from engine.analysis.derived import Derived
from engine.analysis.metrics import makespan_formula, steady_state
from engine.analysis.timeline import narrate
from engine.latency.warps import WarpConfig, simulate_warps
from engine.model.scenario import Scenario, load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from engine.reasons.waits import IDLE_REASONS, OP_WAIT_REASONS, idle_now, ops_waiting_at


def span_at(spans, keys, key: int, time: float) -> int:
    """Index of the span of ``key`` (in ``keys``, sorted: the rows or the ops) containing
    ``time`` (start ≤ time < end), or -1."""
    lo, hi = np.searchsorted(keys, [key, key + 1])
    k = lo + int(np.searchsorted(spans.start[lo:hi], time, "right")) - 1
    return int(k) if k >= lo and time < spans.end[k] else -1


def _spans(schedule, unit: str) -> list[tuple[float, float, str, tuple[int, ...]]]:
    spans = Derived(schedule).idle_spans
    row = schedule.unit_names.index(unit)
    return [
        (float(spans.start[i]), float(spans.end[i]), spans.reason_name(i), spans.ops(i))
        for i in range(len(spans))
        if spans.row[i] == row
    ]


def test_book_with_two_slots() -> None:
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    assert _spans(schedule, "load") == [(2, 3, "slot", (0, 1)), (4, 6, "done", ())]
    assert _spans(schedule, "compute") == [
        (0, 1, "input", (0,)),
        (3, 4, "input", (2,)),
        (5, 6, "done", ()),
    ]
    assert _spans(schedule, "store") == [(0, 2, "input", (0,)), (4, 5, "input", (2,))]
    spans = Derived(schedule).idle_spans
    assert spans.describe(0) == "waiting for a slot: held by ops 1 and 2; the first frees at 3 s"
    assert spans.describe(3) == "waiting for input: op 3's read ends at 4 s"
    assert spans.describe(1) == "done: the load unit has no work left"
    assert steady_state(Derived(schedule)).resource == "slots"
    assert steady_state(Derived(schedule)).period == 1.5
    assert steady_state(Derived(schedule)).why == (
        "buffer slots: each op holds one for 3 s and there are 2: one op every 1.5 s"
    )
    assert makespan_formula(Derived(schedule)).text == "6 s = 2 rounds × 3 s"
    line = narrate(Derived(schedule), 2.0)
    assert "the load unit waits: both slots are held (ops 1 and 2); the first frees at 3 s" in line
    assert line.endswith("op 3 waits for a slot")


def test_book_with_unlimited_slots() -> None:
    schedule = simulate(Scenario.uniform_ops(3))
    assert _spans(schedule, "load") == [(3, 5, "done", ())]
    state = steady_state(Derived(schedule))
    assert state.resource == "none" and state.tied == ("load", "compute", "store")
    assert state.why == "none: read = compute = write: each allows one op every 1 s (balanced)"
    formula = makespan_formula(Derived(schedule))
    assert formula.text == "5 s = 3 s for the first op + 2 × 1 s" and formula.value == 5


def test_presets_name_what_binds() -> None:
    expected = {
        "memory-bound": ("load", 3.0, "26 s = 5 s for the first op + 7 × 3 s"),
        "compute-bound": ("compute", 3.0, "26 s = 5 s for the first op + 7 × 3 s"),
        "double-buffering": ("slots", 1.5, "10 s = 3 rounds × 3 s + 1 × 1 s"),
    }
    for name, (resource, period, text) in expected.items():
        schedule = simulate(load_preset(name))
        state, formula = steady_state(Derived(schedule)), makespan_formula(Derived(schedule))
        assert (state.resource, state.period, formula.text) == (resource, period, text), name
        assert formula.value == schedule.makespan
    sequential = simulate(load_preset("book"), "sequential")
    assert steady_state(Derived(sequential)).resource == "slots"
    assert makespan_formula(Derived(sequential)).text == "9 s = 3 × 3 s"


def test_no_closed_form_is_said_so() -> None:
    uneven = simulate(load_preset("uneven-ops"))
    formula = makespan_formula(Derived(uneven))
    assert formula.value is None and formula.text == "no closed form (uneven ops): at least 8 s"
    assert "binds most of the time" in steady_state(Derived(uneven)).why
    two = makespan_formula(Derived(simulate(load_preset("two-load-units"))))
    assert two.text.startswith("no closed form (2 load workers)")


def test_closed_form_agrees_with_the_simulation() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, buffers = int(rng.integers(1, 12)), int(rng.integers(0, 6))
        r, c, w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], 3) if rng.random() < 0.5 else rng.random(3)
        schedule = simulate(Scenario.uniform_ops(n, r, c, w, buffers=buffers))
        value = makespan_formula(Derived(schedule)).value
        assert value == pytest.approx(schedule.makespan, rel=1e-9, abs=1e-12), (n, buffers, r, c, w)


def test_op_waits_of_the_book_with_two_slots() -> None:
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    waits = Derived(schedule).op_waits
    rows = [
        (int(waits.op[i]), int(waits.stage[i]), float(waits.start[i]), float(waits.end[i]))
        for i in range(len(waits))
    ]
    assert rows == [(1, 0, 0, 1), (2, 0, 0, 3)]
    assert [OP_WAIT_REASONS[k] for k in waits.reason] == ["worker", "slot"]
    assert waits.ops(0) == (0,) and waits.ops(1) == (0, 1)
    assert waits.describe(0) == "op 2 waits 0–1 s for the load unit: it is reading op 1 until 1 s"
    assert waits.describe(1) == (
        "op 3 waits 0–3 s for a slot: held by ops 1 and 2; op 1 frees one at 3 s"
    )
    assert span_at(waits, waits.op, 2, 1.5) == 1 and span_at(waits, waits.op, 2, 3.0) == -1


def test_kept_by_its_derived() -> None:
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    derived = Derived(schedule)
    assert derived.idle_spans is derived.idle_spans
    assert derived.op_waits is derived.op_waits
    assert derived.built() >= {"waits", "idle_spans", "op_waits"}
    assert Derived(schedule.with_meta(buffers=0)).idle_spans is not derived.idle_spans


def test_several_workers_share_one_phrase() -> None:
    schedule = simulate(load_preset("two-load-units"))
    line = narrate(Derived(schedule), 8.0)
    assert "both load units have no work left" in line
    assert "op 8 waits for the compute unit" in line
    assert "more" not in line


def test_narration_lists_everything() -> None:
    schedule = simulate(Scenario.uniform_ops(6, workers=(3, 3, 3)))
    for time in np.asarray(Derived(schedule).events).tolist():
        assert "more" not in narrate(Derived(schedule), time)
    line = narrate(Derived(schedule), 0.0)
    assert line.startswith("t = 0 s: load unit 1 starts reading op 1 while load unit 2")
    assert "load unit 3 starts reading op 3" in line and "the load unit 3" not in line
    assert "ops 4–6 wait for the load units" in line


def test_ops_waiting_out_of_op_order_are_named() -> None:
    """Two compute workers finish out of op order: the ops waiting for them are named one
    by one ("ops 3 and 4"), not counted ("2 ops wait")."""
    rng = np.random.default_rng(3)
    n = 40
    durations = (rng.uniform(0.5, 3, n), rng.uniform(0.5, 3, n), rng.uniform(0.5, 3, n))
    schedule = simulate(Scenario(*durations, workers=(3, 2, 4), buffers=6))
    lines = [narrate(Derived(schedule), t) for t in np.asarray(Derived(schedule).events).tolist()]
    assert any("ops 3 and 4 wait for the compute units (op 3 goes next)" in x for x in lines)
    assert not any(re.search(r"\d ops wait", line) for line in lines)
    for time in np.asarray(Derived(schedule).events).tolist():
        for waiting in ops_waiting_at(Derived(schedule), time + 1e-9):
            if waiting.ops is not None:  # exactly the ready ops not yet started
                stage = waiting.stage
                ready = schedule.op_ends[:, stage - 1] if stage else schedule.grant
                started = schedule.op_starts[:, stage]
                want = np.flatnonzero((ready <= time + 1e-9) & (started > time + 1e-9))
                assert waiting.ops == tuple(want.tolist())


def test_other_schedules_get_input_and_done() -> None:
    schedule = simulate_warps(WarpConfig(warps=3, compute=10, latency=30, cycles=200)).schedule
    spans = Derived(schedule).idle_spans
    assert set(spans.reason.tolist()) <= {IDLE_REASONS.index("input"), IDLE_REASONS.index("done")}
    assert len(Derived(schedule).op_waits) == 0 and ops_waiting_at(Derived(schedule), 5.0) == []
    assert steady_state(Derived(schedule)).resource in ("warp", "issue")
    assert makespan_formula(Derived(schedule)) is None
    assert narrate(Derived(schedule), 10.0).startswith("t = 10 cycles: ")


def test_measured_runs_get_reasons_without_grants() -> None:
    model = simulate(Scenario.uniform_ops(4, 1.0, 1.0, 1.0, buffers=2))
    late = np.array(model.start)
    late[model.stage == 1] += 0.25  # the hardware starts each compute a little late
    measured = replace(
        model,
        source="measured",
        grant=None,
        start=late,
        end=late + model.duration,
        time_unit="ms",
        unit_names=("copy-in", "SMs", "copy-out"),
    )
    spans = Derived(measured).idle_spans
    names = {spans.reason_name(i) for i in range(len(spans))}
    assert "overhead" in names and "slot" in names
    sms = [i for i in range(len(spans)) if spans.row[i] == 1 and spans.reason_name(i) == "overhead"]
    assert (
        spans.describe(sms[0])
        == "overhead: op 1's compute was ready at 1 ms but started at 1.25 ms"
    )
    waits = Derived(measured).op_waits
    assert "overhead" in {OP_WAIT_REASONS[k] for k in waits.reason}
    for time in np.asarray(Derived(measured).events).tolist():
        narrate(Derived(measured), time)


def test_idle_now_matches_the_spans() -> None:
    schedule = simulate(load_preset("uneven-ops"))
    spans = Derived(schedule).idle_spans
    for i in range(len(spans)):
        middle = 0.5 * (spans.start[i] + spans.end[i])
        (now,) = idle_now(Derived(schedule), [int(spans.row[i])], float(middle))
        assert now.reason == spans.reason[i] and now.ops == spans.ops(i)


def test_ops_waiting_are_ranges() -> None:
    schedule = simulate(Scenario.uniform_ops(1000, buffers=3))
    waiting = ops_waiting_at(Derived(schedule), 0.0)
    slot = [w for w in waiting if w.reason == "slot"]
    assert slot and (slot[0].first, slot[0].last, slot[0].count) == (3, 999, 997)
    assert narrate(Derived(schedule), 0.0).endswith(
        "ops 2 and 3 wait for the load unit; ops 4–1,000 wait for a slot"
    )


def test_a_unit_that_ran_nothing_is_done_from_the_start() -> None:
    """A measured run may leave a unit without tasks: its worker is idle, reason done."""
    from engine.analysis.stats import schedule_stats

    measured = Schedule(
        op=[0, 0], stage=[0, 2], unit=[0, 2], worker=[0, 0], start=[0.0, 2.0], end=[1.0, 3.0],
        n_ops=1, source="measured", policy="measured",
    )  # fmt: skip
    spans = Derived(measured).idle_spans
    compute = [
        (float(a), float(b), IDLE_REASONS[c])
        for row, a, b, c in zip(spans.row, spans.start, spans.end, spans.reason, strict=True)
        if row == 1
    ]
    assert compute == [(0.0, 3.0, "done")]
    assert "(2 tasks, 1 op)" in schedule_stats(Derived(measured)).lines[0].how


def _thread_run(handoff: float) -> Schedule:
    """A measured run of 13 ops (ms) on three threads where each compute starts
    ``handoff`` after its read ends and op 12's write ends 10 µs after op 13's read."""
    read = 2.0 * np.arange(13) + 2.2
    starts = np.column_stack([read, read + 1.0 + handoff, read + 2.0 + handoff])
    ends = np.column_stack([read + 1.0, read + 2.0, read + 2.8 + handoff])
    ends[11, 2] = 27.21
    return Schedule.from_stage_matrices(
        starts, ends, source="measured", policy="pipelined", time_unit="ms", buffers=2,
        unit_names=("read thread", "compute thread", "write thread"),
    )  # fmt: skip


def test_a_worker_starting_after_a_handoff_is_not_idle_at_the_instant_of_readiness() -> None:
    """Issue 25, item 4: at t = 27.2 ms, when op 13's read ends, the compute thread was
    said to be "idle although op 13's compute has been ready since 27.2 ms": no time had
    passed. It starts op 13 after the handoff; later, idle time that has passed is said."""
    measured = _thread_run(handoff=0.03)
    now = narrate(Derived(measured), 27.2)
    assert "idle although" not in now
    assert "the compute thread starts computing op 13 after 30 µs of overhead" in now
    later = narrate(Derived(measured), 27.21)
    assert "the compute thread is idle although op 13's compute has been ready since 27.2 ms" in (
        later
    )


def test_idle_workers_beside_the_one_that_takes_a_handed_off_stage_are_free() -> None:
    measured = Schedule.from_stage_matrices(
        [[0, 1.03, 2.03], [1, 2.03, 3.03]], [[1, 2.03, 3.03], [2, 3.03, 4.03]],
        [[0, 1, 0], [0, 0, 0]], source="measured", policy="pipelined", time_unit="ms",
        workers=(1, 2, 1),
    )  # fmt: skip
    assert (
        "both compute units are free; compute unit 2 starts computing op 1 after 30 µs of "
        "overhead" in narrate(Derived(measured), 1.0)
    )
