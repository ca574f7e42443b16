"""The app model: one signal per change, the latest edit wins when edits race (driven by hand
through a manual runner, and through the real worker thread with events, never sleeps),
stale results are dropped, failures keep the run on screen, pins and unpins."""

from __future__ import annotations

import threading
from collections import Counter
from typing import cast

import pytest
from PySide6.QtCore import QObject

from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario, load_preset
from gui.app_model import AppModel
from gui.run_worker import ThreadRunner

SIGNALS = (
    "scenario_changed",
    "view_mode_changed",
    "run_changed",
    "pins_changed",
    "shown_changed",
    "busy_changed",
    "error_changed",
    "edit_rejected",
)


class Recorder:
    """Counts every signal of a model (and keeps the arguments)."""

    def __init__(self, model: AppModel) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        for name in SIGNALS:
            getattr(model, name).connect(lambda *args, n=name: self.calls.append((n, args)))

    def counts(self) -> Counter[str]:
        return Counter(name for name, _ in self.calls)

    def clear(self) -> None:
        self.calls.clear()


@pytest.fixture
def model(qapp: object, manual_runner) -> AppModel:  # type: ignore[no-untyped-def]
    """The book example; every run after the first goes to the manual runner."""
    m = AppModel(load_preset("book"), "book", runner=manual_runner, inline_ops=0)
    m.start()
    return m


def test_the_first_run_is_computed_on_the_spot(model: AppModel) -> None:
    assert model.run is not None and model.shown is not None
    assert [s.makespan for s in model.run.schedules] == [9.0, 5.0]
    assert not model.busy


def test_one_signal_each_per_edit(model: AppModel, manual_runner) -> None:  # type: ignore[no-untyped-def]
    seen = Recorder(model)
    assert model.edit("buffers", 2)
    assert seen.counts() == Counter({"scenario_changed": 1, "busy_changed": 1})
    (change,) = [args[0] for name, args in seen.calls if name == "scenario_changed"]
    assert change.fields == frozenset({"buffers"}) and change.scenario.buffers == 2
    assert change.preset == "" and change.scenario.name == "The book example with 2 slots"
    seen.clear()
    manual_runner.finish()
    assert seen.counts() == Counter({"run_changed": 1, "shown_changed": 1, "busy_changed": 1})
    assert model.run.schedules[1].makespan == 6.0  # type: ignore[union-attr]


def test_inline_edits_emit_each_signal_once(qapp: object) -> None:
    model = AppModel(load_preset("book"), "book")
    model.start()
    seen = Recorder(model)
    assert model.edit("ops", 4)
    assert seen.counts() == Counter({"scenario_changed": 1, "run_changed": 1, "shown_changed": 1})
    seen.clear()
    model.set_view_mode("pipelined")
    assert seen.counts() == Counter({"view_mode_changed": 1, "run_changed": 1, "shown_changed": 1})
    seen.clear()
    model.set_view_mode("pipelined")  # no change, no signal
    assert not seen.calls


@pytest.mark.parametrize("order", ["newest first", "oldest first"])
def test_the_latest_edit_wins_when_edits_race(
    model: AppModel,
    manual_runner,  # type: ignore[no-untyped-def]
    order: str,
) -> None:
    before = model.run
    seen = Recorder(model)
    model.edit("ops", 4)
    model.edit("ops", 5)
    old, new = sorted(manual_runner.jobs)
    assert model.run is before and model.busy  # the previous run stays shown meanwhile
    for token in (new, old) if order == "newest first" else (old, new):
        manual_runner.finish(token)
    assert model.run is not before and model.run.scenario.n_ops == 5  # type: ignore[union-attr]
    assert seen.counts()["run_changed"] == 1  # the stale run was dropped, never shown
    assert not model.busy and seen.counts()["busy_changed"] == 2


def test_a_failed_run_keeps_the_shown_run_and_puts_its_scenario_back(
    model: AppModel,
    manual_runner,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gui.runs

    before = model.run
    model.edit("ops", 7)

    def refuse(scenario: Scenario, policy: str | None = None) -> None:
        raise PipeLabError("the simulation refused this")

    monkeypatch.setattr(gui.runs, "simulate", refuse)
    manual_runner.finish()
    assert model.run is before
    assert model.scenario is before.scenario  # type: ignore[union-attr]
    assert model.error == "the simulation refused this" and not model.busy


def test_edits_are_named_for_how_they_differ_from_the_scenario_opened(
    model: AppModel,
    manual_runner,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the command line names its overrides: an edit of an edit is not "… with 20 ops
    with 2 slots", an edit undone is the preset again, a new scenario starts afresh, and a
    new scenario whose run fails leaves edits named for the one still shown."""
    import gui.runs

    model.edit("ops", 20)
    model.edit("buffers", 2)
    assert model.scenario.name == "The book example with 20 ops, 2 slots"
    assert model.scenario.description.startswith("20 ops, each read 1 s")
    model.edit("ops", 3)
    model.edit("buffers", 0)
    assert model.scenario.name == "The book example"
    assert model.scenario.description == load_preset("book").description
    manual_runner.finish()
    memory = load_preset("memory-bound")
    model.set_scenario(memory)

    def refuse(scenario: Scenario, policy: str | None = None) -> None:
        raise PipeLabError("the simulation refused this")

    with monkeypatch.context() as patched:
        patched.setattr(gui.runs, "simulate", refuse)
        manual_runner.finish()
    assert model.scenario.name == "The book example"  # back to the run shown
    model.edit("buffers", 2)
    assert model.scenario.name == "The book example with 2 slots"
    manual_runner.finish()
    model.set_scenario(memory)
    manual_runner.finish()
    model.edit("buffers", 2)
    assert model.scenario.name == f"{memory.name} with 2 slots"


def test_refused_edits_change_nothing_and_say_why(model: AppModel) -> None:
    seen = Recorder(model)
    assert not model.edit("ops", 2_000_000)
    assert not model.edit("read", -1.0)
    assert not model.set_durations(0, 0, [[float("nan")]])
    assert model.scenario.n_ops == 3 and model.scenario.name == "The book example"
    counts = seen.counts()
    assert counts["scenario_changed"] == 0 and counts["edit_rejected"] == 3
    rejected = [args for name, args in seen.calls if name == "edit_rejected"]
    assert rejected[0][0] == "ops" and rejected[1][0] == "read"
    assert "at most 1,000,000 ops" in rejected[0][1]
    assert "must be 0 or more" in rejected[1][1]
    assert "finite" in rejected[2][1] and rejected[2][0] == "durations"


def test_pin_edit_compare_unpin(model: AppModel, manual_runner) -> None:  # type: ignore[no-untyped-def]
    model.edit("buffers", 2)
    manual_runner.finish()
    assert model.pin(wait=True)
    assert not model.pin(wait=True)  # the same run twice is one pin
    model.edit("buffers", 3)
    manual_runner.finish()
    shown = model.shown
    assert shown is not None and len(shown.schedules) == 3  # no second, equal sequential
    assert shown.comparisons == ("pipelined: 2 slots: 6 s · 3 slots: 5 s (1 s faster)",)
    assert model.choose_preset("memory-bound")  # pins survive a preset switch
    manual_runner.finish()
    assert len(model.pins) == 1 and len(model.shown.schedules) == 4  # type: ignore[union-attr]
    seen = Recorder(model)
    model.unpin()
    assert seen.counts() == Counter({"pins_changed": 1, "shown_changed": 1})
    assert len(model.shown.schedules) == 2 and not model.shown.comparisons  # type: ignore[union-attr]


def test_pins_of_big_runs_are_made_on_the_worker(qapp: object, manual_runner) -> None:  # type: ignore[no-untyped-def]
    pins = type(manual_runner)()
    model = AppModel(load_preset("book"), "book", runner=manual_runner, pin_runner=pins)
    model.start()
    model._inline_ops = 0  # every pin counts as big
    assert model.pin() and model.busy and not model.pins
    pins.finish()
    assert len(model.pins) == 1 and not model.busy
    assert model.pin() is False  # already pinned
    model.unpin()
    assert model.pin() and model.busy
    model.unpin()  # a pin still being made is dropped
    pins.finish()
    assert not model.pins and not model.busy


def test_measured_schedules_drop_a_pending_edit(model: AppModel, manual_runner) -> None:  # type: ignore[no-untyped-def]
    from engine.model.scheduler import simulate

    model.edit("ops", 6)
    measured = simulate(load_preset("memory-bound")).with_meta(source="measured", label="hw")
    model.show_external([measured], "Measured: hw")
    manual_runner.finish()  # the edit's run arrives late: dropped
    assert model.shown is not None and model.shown.schedules == (measured,)
    assert model.shown.title == "Measured: hw" and not model.busy


# -- the real worker thread ------------------------------------------------------------------


def test_the_thread_runner_drops_a_stale_job_at_its_next_step(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = ThreadRunner()
    started, release = threading.Event(), threading.Event()
    steps: list[str] = []

    def slow():  # type: ignore[no-untyped-def]
        started.set()
        release.wait()
        steps.append("slow step 1")
        yield "one"
        steps.append("slow step 2")  # never: it is stale by then
        return "slow"

    def fast():  # type: ignore[no-untyped-def]
        yield "one"
        return "fast"

    landed: list[tuple[int, object]] = []
    runner.landed.connect(lambda token, value: landed.append((token, value)))
    runner.submit(1, slow)
    assert started.wait(60)  # a guard against a hang, not a time limit on work
    runner.submit(2, fast)
    runner.submit(3, fast)  # replaces 2 before it ever starts
    with qtbot.waitSignal(runner.landed, timeout=60_000):
        release.set()
    assert landed == [(3, "fast")]
    assert steps == ["slow step 1"]
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)


def test_shutdown_never_joins_and_the_thread_ends_by_itself(qtbot) -> None:  # type: ignore[no-untyped-def]
    parent = QObject()
    runner = ThreadRunner(parent)
    started, release = threading.Event(), threading.Event()

    def blocked():  # type: ignore[no-untyped-def]
        started.set()
        release.wait()
        yield "done"
        return "late"

    landed: list[object] = []
    runner.landed.connect(lambda token, value: landed.append(value))
    runner.submit(1, blocked)
    assert started.wait(60)
    runner.shutdown()  # returns while the job is still blocked: nothing waited for it
    assert runner.running
    runner.submit(2, blocked)  # refused after shutdown
    release.set()
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)
    qtbot.wait(1)  # deliver anything queued
    assert landed == []


def test_a_failing_job_reports_one_line_and_logs_a_bug(qtbot, caplog) -> None:  # type: ignore[no-untyped-def]
    runner = ThreadRunner()

    def refused():  # type: ignore[no-untyped-def]
        raise PipeLabError("too many ops\nsecond line")
        yield

    def broken():  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("oops")
        yield

    with qtbot.waitSignal(runner.failed, timeout=60_000) as first:
        runner.submit(1, refused)
    assert first.args == [1, "too many ops"]
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)
    with qtbot.waitSignal(runner.failed, timeout=60_000) as second:
        runner.submit(2, broken)
    assert second.args[1].startswith("the run failed (ZeroDivisionError: oops)")
    assert any("background run failed" in r.message for r in caplog.records)
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)


def test_a_measured_run_pins_and_compares_with_the_next(model: AppModel) -> None:
    from engine.model.scheduler import simulate

    book = load_preset("book")
    first = simulate(book).with_meta(source="measured", label="hw 1", time_unit="ms")
    model.show_external([first], "Measured: hw 1")
    assert model.pin(wait=True)
    second = simulate(book.with_changes(buffers=2)).with_meta(
        source="measured", label="hw 2", time_unit="ms"
    )
    model.show_external([second], "Measured: hw 2")
    shown = model.shown
    assert shown is not None and [s.label for s in shown.schedules] == [
        "pinned hw 1",
        "hw 2",
    ]
    assert shown.comparisons == ("pinned: 5 ms · now: 6 ms (1 ms slower)",)
    model.choose_preset("book", wait=True)  # seconds: the pin in ms is not drawn beside it
    assert len(model.shown.schedules) == 2 and model.pins  # type: ignore[union-attr]


def test_freed_memory_goes_back_once_at_rest_after_runs_and_dropped_pins(
    qapp: object, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """glibc keeps what a run frees (`gui.memory.hold_freed_memory`): the model hands
    it back itself, once, when nothing has landed for a while: after edits (the last one
    only) and after pins go; a pin that comes adds nothing to free."""
    import gui.app_model

    released: list[int] = []
    monkeypatch.setattr(gui.app_model, "RELEASE_AFTER_MS", 20)
    monkeypatch.setattr(gui.app_model, "release_freed_memory", lambda: released.append(1))
    model = AppModel(load_preset("book"), "book")
    model.start()
    for ops in (4, 5, 6):  # one after the other: only the last landing's timer releases
        assert model.edit("ops", ops)
    qtbot.waitUntil(lambda: len(released) == 1)
    assert model.pin(wait=True)
    qtbot.wait(60)
    assert len(released) == 1
    model.unpin()
    qtbot.waitUntil(lambda: len(released) == 2)
    qtbot.wait(60)
    assert len(released) == 2


def test_making_a_model_leaves_the_allocator_alone(
    qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Process-wide allocator tuning happens once at start-up (`gui.app.make_app` calls
    `gui.memory.hold_freed_memory`), not in every model's constructor."""
    import ctypes

    import gui.memory

    calls: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

        def malloc_trim(self, pad: int) -> int:
            return 1

    monkeypatch.setattr(gui.memory, "_glibc", lambda: cast(ctypes.CDLL, Libc()))
    AppModel(load_preset("book"), "book")
    assert calls == []
    assert gui.memory.hold_freed_memory() and len(calls) == 3
