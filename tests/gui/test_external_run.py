"""External runs (issue 25, item 3): a measured run shown on the Pipeline tab is what every
panel describes. The form is read-only under a banner that says what is shown, the title
names it, a comparison is claimed only between runs that are drawn, and "Back to the
scenario" brings back exactly the scenario and runs that were there."""

from __future__ import annotations

from engine.model.scenario import load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from gui.app_model import AppModel
from gui.external_banner import BACK
from gui.main_window import MainWindow


def _measured(chunks: int = 16) -> list[Schedule]:
    """Stand-ins for a measured sequential and pipelined run, in ms."""
    scenario = load_preset("book").with_changes(ops=chunks)
    return [
        simulate(scenario, policy).with_meta(
            source="measured", label=f"{policy} on CPU threads", time_unit="ms"
        )
        for policy in ("sequential", "pipelined")
    ]


TITLE = "Measured on CPU threads: 16 chunks, sequential and pipelined"
SENTENCE = "Showing the measured run: 16 chunks on CPU threads, sequential 48 ms, pipelined 18 ms"


def test_a_measured_run_makes_the_form_read_only_under_a_banner(window: MainWindow) -> None:
    window.show_schedules(_measured(), TITLE, SENTENCE)
    assert window.model.external is not None
    assert not window.scenario_panel.isEnabled()  # disabled, not hidden
    assert not window.scenario_panel.table.isEnabled()
    assert window.scenario_panel.isVisibleTo(window)
    banner = window.external_banner
    assert banner.isVisibleTo(window) and banner.text.text() == SENTENCE
    assert banner.back.text() == BACK
    assert window.windowTitle().startswith("Measured on CPU threads")
    assert window.title.text() == TITLE


def test_back_to_the_scenario_restores_exactly_its_runs(window: MainWindow) -> None:
    window.edit("ops", 5)
    assert window.pin()
    window.edit("buffers", 2)
    before_run, before_shown = window.model.run, window.model.shown
    assert before_shown is not None
    before_schedules, before_lines = before_shown.schedules, before_shown.comparisons
    window.show_schedules(_measured(), TITLE, SENTENCE)
    window.external_banner.back.click()
    assert window.model.external is None and window.model.run is before_run
    shown = window.model.shown
    assert shown is not None and shown.schedules == before_schedules
    assert shown.comparisons == before_lines
    assert window.scenario_panel.isEnabled() and not window.external_banner.isVisibleTo(window)
    assert window.scenario.n_ops == 5 and window.scenario.buffers == 2
    assert window.windowTitle() == window.scenario.name


def test_no_comparison_is_claimed_with_a_pin_that_is_not_drawn(window: MainWindow) -> None:
    """The pinned scenario run is in seconds: not drawn beside a measured run in ms, so
    nothing is said about it (it was 'the pinned run has the same settings as this one')."""
    window.edit("buffers", 2)
    assert window.pin()
    window.show_schedules(_measured(), TITLE, SENTENCE)
    shown = window.model.shown
    assert shown is not None and all(s.source == "measured" for s in shown.schedules)
    assert shown.comparisons == ()
    assert not window.comparison.isVisibleTo(window)


def test_a_new_scenario_leaves_the_external_run(window: MainWindow) -> None:
    window.show_schedules(_measured(), TITLE, SENTENCE)
    assert window.choose_preset("memory-bound")
    assert window.model.external is None and window.scenario_panel.isEnabled()
    assert window.model.shown is not None
    assert all(s.source == "simulated" for s in window.model.shown.schedules)


def test_a_view_change_meanwhile_is_computed_on_the_way_back(qapp: object) -> None:
    model = AppModel(load_preset("book"))
    model.start()
    seen: list[object] = []
    model.external_changed.connect(seen.append)
    model.show_external(_measured(), TITLE, SENTENCE)
    model.set_view_mode("pipelined", wait=True)
    assert model.shown is not None and model.shown.title == TITLE  # still the measured run
    model.back_to_scenario(wait=True)
    assert model.shown is not None and model.shown.current.policies == ("pipelined",)
    assert [e is None for e in seen] == [False, True]
    model.shutdown()
