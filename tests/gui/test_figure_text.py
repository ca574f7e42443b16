"""No two texts of a figure overlap, and none leaves it: every preset at every size, both
row modes, with and without a cursor, a million ops at column width (where the run title
and the makespan label ran into each other and the title was cut short) and warp runs.
Thin rows keep their labels off the axis, initials in bars are explained, and the cursor
leaves the labels it crosses legible."""

from __future__ import annotations

import pytest
from export_checks import layout_of, overlapping_texts

from engine.latency.warps import WarpConfig, simulate_warps
from engine.model.naming import renamed_if_changed
from engine.model.scenario import load_preset, preset_names
from engine.model.scheduler import simulate
from engine.model.shape_file import load_any_preset
from gui.figure.fonts import box_of, cap_height
from gui.figure.model import Line

#: An export's sizes: the vector sizes, and a PNG at its default 1600 px.
SIZES = [{"size": "column"}, {"size": "page"}, {"size": "slide"}, {}]


def runs_of(scenario):
    return [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("rows", ["workers", "ops"])
def test_no_texts_overlap_for_any_preset(qapp, preset, rows) -> None:
    scenario = load_preset(preset)
    schedules = runs_of(scenario)
    middle = max(s.makespan for s in schedules) / 2
    for options in SIZES:
        suffix = ".svg" if options else ".png"
        for time in (None, middle):
            figure, _ = layout_of(
                schedules, suffix, rows=rows, time=time, title=scenario.name, **options
            )
            assert overlapping_texts(figure) == [], (options, time)


SHAPES = sorted(set(preset_names(shapes=True)) - set(preset_names()))


@pytest.mark.parametrize("preset", SHAPES)
def test_no_texts_overlap_for_any_shape_preset(qapp, preset) -> None:
    """A shape's figure: headings that name its pools, the legend's pool names, rows per
    worker of each unit; nothing overlaps at any size."""
    scenario = load_any_preset(preset)
    schedules = [scenario.simulate("sequential"), scenario.simulate("pipelined")]
    for options in SIZES:
        suffix = ".svg" if options else ".png"
        figure, _ = layout_of(schedules, suffix, title=scenario.name, **options)
        assert overlapping_texts(figure) == [], options


@pytest.fixture(scope="module")
def a_million_ops():
    book = load_preset("book")
    scenario = renamed_if_changed(book, book.with_changes(ops=1_000_000, workers=(2, 1, 1)))
    return scenario.name, runs_of(scenario)


@pytest.mark.parametrize("rows", ["workers", "ops"])
@pytest.mark.parametrize("options", SIZES)
def test_no_texts_overlap_at_a_million_ops(qapp, a_million_ops, rows, options) -> None:
    title, schedules = a_million_ops
    suffix = ".svg" if options else ".png"
    figure, _ = layout_of(schedules, suffix, rows=rows, title=title, **options)
    assert overlapping_texts(figure) == []
    # The title wraps to a second line rather than losing its end.
    drawn = " ".join(t.text for t in figure.texts("title"))
    assert drawn == title == "The book example with 1,000,000 ops, 2 load workers"


@pytest.mark.parametrize(
    "config",
    [
        WarpConfig(warps=4, compute=10, latency=40, cycles=300),
        WarpConfig(warps=12, compute=4, latency=60, cycles=600),
        WarpConfig(warps=64, compute=2, latency=300, cycles=20_000),
    ],
    ids=lambda c: f"{c.warps}-warps",
)
def test_no_texts_overlap_for_a_warp_run(qapp, config) -> None:
    run = simulate_warps(config)
    for options in SIZES:
        suffix = ".svg" if options else ".png"
        for time in (None, config.cycles / 3):
            figure, _ = layout_of(
                [run.schedule], suffix, time=time, title="Warp latency hiding", note=run.headline,
                **options,
            )  # fmt: skip
            assert overlapping_texts(figure) == [], (options, time)
            labels = {t.text for t in figure.texts("row-label")}
            assert {"warp 1", "issue unit"} <= labels


def test_thin_rows_keep_their_labels_inside_the_run(qapp) -> None:
    """3,334 ops, one row per op: "op 3,334" sat on the time axis, beside its "0"."""
    book = load_preset("book")
    schedule = simulate(book.with_changes(ops=3334), "pipelined")
    figure, _ = layout_of([schedule], ".svg", rows="ops")
    top, bottom = figure.runs[0]
    labels = figure.texts("row-label")
    assert labels[0].text == "op 1" and labels[-1].text == "op 3,334"
    for text in labels:
        _, high, _, low = box_of(text)
        assert top - 0.35 * text.size <= high and low <= bottom


def test_initials_in_bars_are_explained(qapp) -> None:
    """One row per op at column width writes "c" where "compute" does not fit: the
    legend says what it stands for (and only what is used)."""
    scenario = load_preset("book")
    schedules = runs_of(scenario)
    figure, _ = layout_of(schedules, ".svg", rows="ops", size="column")
    assert "c" in {t.text for t in figure.texts("task-label")}
    assert [t.text for t in figure.texts("legend-note")] == ["c = compute"]
    wide, _ = layout_of(schedules, ".svg", rows="ops", size="slide")
    assert "c" not in {t.text for t in wide.texts("task-label")}
    assert not wide.texts("legend-note")


def test_the_cursor_leaves_a_gap_at_the_labels_it_crosses(qapp) -> None:
    """At t = 2.5 s the cursor struck through "op 3" (pipelined, load unit) and "op 1"."""
    schedules = runs_of(load_preset("book"))
    figure, _ = layout_of(schedules, ".pdf", size="column", time=2.5)
    lines = [i for i in figure.walk() if isinstance(i, Line) and i.cls == "cursor-line"]
    x = lines[0].x1
    crossed = [t for t in figure.texts("task-label") if box_of(t)[0] <= x <= box_of(t)[2]]
    assert {t.text for t in crossed} >= {"op 1", "op 3"}
    for text in crossed:
        letters = (text.y - cap_height(text.size), text.y)
        assert all(line.y2 <= letters[0] or line.y1 >= letters[1] for line in lines), text
    # ... and it is still one line over each run's rows, top to bottom.
    for top, bottom in figure.runs:
        inside = [line for line in lines if top - 2 <= line.y1 and line.y2 <= bottom + 2]
        assert min(line.y1 for line in inside) < top and max(line.y2 for line in inside) > bottom
