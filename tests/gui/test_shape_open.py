"""Pipeline shapes in the app: a shape preset or file becomes the current scenario, shown
sequentially and pipelined on one clock, edited by the form's shape editor; a book preset
gives the book's form back."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.model.shape_file import ShapedScenario, load_any_preset
from gui.main_window import MainWindow


def test_a_shape_preset_shows_both_runs_on_its_own_units(window: MainWindow) -> None:
    assert window.choose_preset("hopper-ping-pong")
    assert window.model.external is None  # the current scenario, not an external run
    shape = window.model.shape
    assert shape is not None and shape.name == "Hopper warp-specialized GEMM, ping-pong"
    run = window.model.run
    assert run is not None
    assert "what binds: tensor cores: each mma takes 2 s" in run.description
    assert "One op at a time 54 s → pipelined 26.5 s, 2.04× faster" in run.description
    shown = window.model.shown
    assert shown is not None
    sequential, pipelined = shown.schedules
    assert (sequential.policy, pipelined.policy) == ("sequential", "pipelined")
    assert pipelined.unit_names == ("TMA", "tensor cores", "consumers")
    assert pipelined.makespan == 26.5
    panel = window.scenario_panel
    assert panel.isEnabled() and panel.shows_shape  # the form edits it
    assert not window.external_banner.isVisible()
    assert "ping-pong" in window.windowTitle()
    bottleneck = {line.label: line.value for _, line in window.stats.lines}["bottleneck"]
    assert "tensor cores" in bottleneck
    assert window.choose_preset("book")
    assert window.model.shape is None and not panel.shows_shape
    assert [s.makespan for s in window.schedules] == [9.0, 5.0]


def test_the_preset_list_offers_the_shapes_after_the_book_s(window: MainWindow) -> None:
    combo = window.scenario_panel.preset
    names = [combo.itemData(i) for i in range(combo.count())]
    assert names.index("hopper-cooperative") > names.index("book")
    assert None in names  # (the separator before the shapes)


def test_a_shape_file_opens_and_a_bad_one_is_one_line(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(
        "gui.main_window.warn", lambda parent, title, text: said.append((title, text))
    )
    good = tmp_path / "coop.toml"
    good.write_text(load_any_preset("hopper-cooperative").to_toml())
    assert window.open_file(good)
    shown = window.model.shown
    assert shown is not None and shown.schedules[-1].makespan == 1.0 + 12 * 3.5
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text().replace('to = "epilogue"', 'to = "load"'))
    assert not window.open_file(bad)
    assert said[-1][0] == "Cannot open scenario" and "\n" not in said[-1][1]
    assert "given back at 'load', an earlier stage" in said[-1][1]
    assert window.model.shown is shown  # what was shown stays


def test_a_shape_beyond_the_app_s_cap_is_refused_in_one_line(window: MainWindow) -> None:
    shape = load_any_preset("pipeline-parallel")
    assert isinstance(shape, ShapedScenario)
    big = shape.with_ops(800_000)  # 3.2 million tasks: more than 10^6 book ops have
    assert not window.model.open_shape(big, wait=True)
    assert "at most 3,000,000 tasks, not 3,200,000 (800,000 ops of 4 stages" in window.model.error
    assert window.model.external is None and window.model.shape is None
