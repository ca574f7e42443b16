"""Everything a view reads at landing time is derived on the worker (gui.runs.DERIVATIONS),
big runs derive their Schedules side by side with the same results, and a dropped job
stops its threads."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Generator
from typing import Any

import numpy as np
import pytest

from engine.analysis.derived import Derived
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from gui import run_steps, runs
from gui.figure import rows as figure_rows
from gui.runs import Run, compute_run


def _scenario(n: int, k: int = 1) -> Scenario:
    rng = np.random.default_rng(3)
    r, c, w = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    return Scenario(r, c, w, workers=(k, k, k), buffers=3, name="random")


def _finish(steps: Generator[str, None, Run]) -> Run:
    try:
        while True:
            next(steps)
    except StopIteration as done:
        return done.value


def _cached(derived: Any) -> set[str]:
    """The names of what is cached on a Schedule, what its run's `Derived` built, what
    the figure rows kept of it, and what the Gantt's task index built."""
    kept = set(vars(derived.schedule)) | {f"derived:{name}" for name in derived.built()}
    kept |= {f"gantt:{mode}" for mode in figure_rows.kept_of(derived).present}
    if "task_spans" in derived.built():
        kept |= {f"tasks:{name}" for name in vars(derived.task_spans)}
    return kept


@pytest.mark.parametrize("k", [1, 2])
def test_side_by_side_gives_what_in_turn_gives(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    scenario = _scenario(3000, k)
    monkeypatch.setattr(run_steps, "PARALLEL_TASKS", 10**12)
    alone = _finish(compute_run(scenario, ("sequential", "pipelined")))
    monkeypatch.setattr(run_steps, "PARALLEL_TASKS", 1)
    together = _finish(compute_run(scenario, ("sequential", "pipelined")))
    assert together.policies == alone.policies
    for a, b in zip(alone.schedules, together.schedules, strict=True):
        for column in ("op", "stage", "unit", "worker", "start", "end", "grant"):
            assert np.array_equal(getattr(a, column), getattr(b, column))
        assert np.array_equal(np.asarray(Derived(a).events), np.asarray(Derived(b).events))
    assert together.stats == alone.stats
    assert [set(t) for t in together.timings] == [set(t) for t in alone.timings]
    assert set(together.timings[0]) == {"simulate", *(name for name, _ in runs.DERIVATIONS)}


@pytest.mark.parametrize(
    ("policies", "slow_step"),
    [(("sequential", "pipelined"), ""), (("pipelined",), "assembly")],
    ids=["side by side", "assembly apart"],
)
def test_a_dropped_job_stops_its_threads(
    monkeypatch: pytest.MonkeyPatch, policies: tuple[str, ...], slow_step: str
) -> None:
    """A stale job is closed while a step runs (a slow first step of each Schedule's
    thread, or the assembly step on its own thread): its threads end with their step."""
    monkeypatch.setattr(run_steps, "PARALLEL_TASKS", 1)
    started = threading.Event()
    release = threading.Event()

    def slow(schedule: Any, scenario: Any) -> None:
        started.set()
        release.wait(5.0)

    if slow_step:
        steps = tuple((n, slow if n == slow_step else d) for n, d in runs.DERIVATIONS)
    else:
        steps = (("slow", slow), *runs.DERIVATIONS)
    monkeypatch.setattr(runs, "DERIVATIONS", steps)
    work = compute_run(_scenario(200), policies)
    while not started.is_set():
        next(work)
    release.set()
    work.close()  # what a worker does with a stale job: no later step runs
    assert not [t for t in threading.enumerate() if t.name.startswith("pipelab-derive")]


def test_a_big_schedule_derived_alone_runs_its_assembly_beside_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One Schedule to derive (one policy shown, or an edit of the slots that keeps the
    sequential run): the assembly step runs on a thread of its own, with the same
    results as in turn."""
    scenario = _scenario(3000, 2)
    monkeypatch.setattr(run_steps, "PARALLEL_TASKS", 10**12)
    in_turn = _finish(compute_run(scenario, ("pipelined",)))
    where: list[str] = []

    def assembly(schedule: Any, scenario: Any) -> None:
        where.append(threading.current_thread().name)
        runs.warm_assembly(schedule, scenario)

    steps = tuple((n, assembly if n == "assembly" else d) for n, d in runs.DERIVATIONS)
    monkeypatch.setattr(runs, "DERIVATIONS", steps)
    monkeypatch.setattr(run_steps, "PARALLEL_TASKS", 1)
    kept = _finish(compute_run(scenario, ("sequential",)))
    apart = _finish(compute_run(scenario, ("sequential", "pipelined"), reuse=kept))
    assert where and where[-1].startswith("pipelab-derive")  # the pipelined run's, apart
    assert apart.stats[1] == in_turn.stats[0]
    assert set(apart.timings[1]) == {"simulate", *(name for name, _ in runs.DERIVATIONS)}
    a, b = (run.derived[-1].assembly for run in (apart, in_turn))
    for name in ("earliest", "latest"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    for name in ("slot_order", "slot_from"):
        assert np.array_equal(getattr(a.slots, name), getattr(b.slots, name))


def _window_with(qtbot: Any, scenario: Scenario) -> Any:
    """The app's window, shown at 1400×900, with ``scenario`` landed."""
    from gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.apply_scenario(scenario)
    return window


def test_the_gui_thread_builds_no_index(qtbot: Any) -> None:
    """A landed run's views (first frame, a tick, narration, the Gantt's paint) find
    every index built: nothing new is cached on its Schedules on the GUI thread."""
    window = _window_with(qtbot, _scenario(3000, 2))
    shown = window.model.shown.derived
    # Every view reads the run's own `Derived` (passed in, not looked up or made anew).
    assert [g.derived for g in window.view.timeline.groups] == list(shown)
    assert all(any(a is d for d in shown) for a in window.view.assembly.derived)
    before = {id(d): _cached(d) for d in shown}
    window.view.timeline.bars.update()
    qtbot.wait(50)
    for fraction in (0.0, 0.3, 0.61, 1.0):
        window.clock.seek(window.clock.end * fraction)
        qtbot.wait(10)
    window.view.narration_lines()
    timeline = window.view.timeline
    for d in shown:
        new = _cached(d) - before[id(d)]
        # Narrations are kept per event time as they are asked for (a dict, not an index).
        assert new <= {"derived:narrations"}, new
    # Hovering a wait: its words, from the spans around the pointer alone.
    group = timeline._groups[0]
    s = group.schedule
    _, bounds = s.by_row
    row = 1  # the load unit's second worker: idle between its reads
    first = int(bounds[row])
    hover = timeline.describe_at(float(s.row_reach[0][first]) + 1e-6, group.first_row + row)
    assert "idle" in hover and "waiting for" in hover, hover
    if fast_scheduler.compiled is not None:
        # The worker rows' idle spans (10^7 at 10^6 ops) are never all built: the Gantt
        # finds those in view, the stats and the legend read the summary.
        for d in shown:
            assert "idle_spans" not in d.built()
    window.close()


def test_op_rows_find_the_waits_of_the_ops_in_view(qtbot: Any) -> None:
    """One row per op: the legend, the hatching and the hover read the waits of the ops in
    view (`engine.reasons.waits.op_waits_between`); no Schedule builds all its ops' waits."""
    from engine.reasons.waits import op_waits_between

    window = _window_with(qtbot, _scenario(3000, 2))
    timeline = window.view.timeline
    timeline.set_rows("ops")
    timeline.viewport().repaint()
    group = timeline.groups[-1]
    op = 1500
    wait = op_waits_between(group.derived, op, op + 1)
    assert len(wait)
    middle = 0.5 * (float(wait.start[0]) + float(wait.end[0]))
    hover = timeline.describe_at(middle, group.first_row + op)
    assert hover.startswith(wait.describe(0)), hover
    assert timeline.legend.words
    for derived in window.model.shown.derived:
        assert "op_waits" not in derived.built()
    window.close()


def test_a_run_and_its_indexes_go_with_their_last_reference() -> None:
    """Freed as soon as the last reference goes: no reference cycle waits for the cyclic
    collector (which may come by much later, while a 10^6-op run holds hundreds of MB)."""
    from engine.analysis.timeline import narrate, state_at
    from engine.reasons.waits import idle_now

    scenario = Scenario.uniform_ops(500, 1.0, 2.0, 1.5, buffers=2, workers=(2, 1, 2))
    run = _finish(compute_run(scenario, ("sequential", "pipelined")))
    refs = []
    for derived in run.derived:
        s = derived.schedule
        narrate(derived, derived.events[len(derived.events) // 2])
        state_at(s, 3.0)
        idle_now(derived, [0, 1], 2.0)
        derived.idle_spans.describe(0)
        derived.op_waits.describe(0)
        refs.append(weakref.ref(s))
        refs.append(weakref.ref(derived))
    del s, derived
    gc.collect()  # (what was garbage before)
    gc.disable()
    try:
        del run
        assert all(ref() is None for ref in refs)
    finally:
        gc.enable()


def _held_arrays(value: Any, found: dict[int, np.ndarray], depth: int = 0) -> None:
    """Every array reachable from ``value`` through containers and engine objects, by the
    memory it views (an array and its views count once)."""
    if depth > 8:
        return
    if isinstance(value, np.ndarray):
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        found[base.__array_interface__["data"][0]] = base
    elif isinstance(value, dict):
        for item in value.values():
            _held_arrays(item, found, depth + 1)
    elif isinstance(value, (list, tuple, frozenset, set)):
        for item in value:
            _held_arrays(item, found, depth + 1)
    elif type(value).__module__.startswith("engine.") and hasattr(value, "__dict__"):
        _held_arrays(vars(value), found, depth + 1)


def test_a_landed_run_with_two_workers_keeps_few_bytes_a_task() -> None:
    """What a landed 10^6-op, two-worker run keeps beside its columns is what its RSS is
    made of (bench/gui_edit.py --rss-only). Measured here as bytes a task on 30k ops, with
    what was cut named: no row column, no per-stage copies of the columns, no task lists
    per unit, 32-bit orders, no ends in row order, no event times apart from the ends."""
    if fast_scheduler.compiled is None:
        pytest.skip("without the compiled module the idle spans themselves are kept")
    scenario = _scenario(30_000, 2)
    run = _finish(compute_run(scenario, ("sequential", "pipelined")))
    columns = ("op", "stage", "unit", "worker", "start", "end", "grant")
    for s, derived in zip(run.schedules, run.derived, strict=True):
        kept = dict(vars(s))
        assert "row" not in kept
        assert not any(name.startswith("_op_column") for name in kept)
        assert s.by_row[0].dtype == np.int32
        assert s.rows_disjoint and s._rows.reach is None
        units = derived.waits.units
        kept["derived"] = derived._kept
        kept["columns"] = derived.columns._sorted
        assert all(unit.listed is None for unit in units)
        found: dict[int, np.ndarray] = {}
        _held_arrays({k: v for k, v in kept.items() if k not in columns}, found)
        for name in columns:  # (a view of a column costs nothing more)
            array = getattr(s, name)
            if array is not None:
                found.pop(
                    (array.base if array.base is not None else array).__array_interface__["data"][
                        0
                    ],
                    None,
                )
        per_task = sum(a.nbytes for a in found.values()) / len(s)
        # Pipelined: rows' starts (8), their order (4), the stages' sorted ends and
        # starts with their orders (about 19: the event times are read from the ends),
        # the slot plan and the rest. Sequential: rows' starts and order alone (no ends
        # in row order, no event times: its columns hold both). Measured 42 and 15.
        assert per_task <= (46 if s.policy == "pipelined" else 18), (s.policy, per_task)
