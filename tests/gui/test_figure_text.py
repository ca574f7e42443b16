"""No two texts of a figure overlap, and none leaves it: every preset at every size, both
row modes, with and without a cursor, and a million ops at column width (where the run
title and the makespan label ran into each other and the title was cut short)."""

from __future__ import annotations

import pytest
from export_checks import layout_of, overlapping_texts

from engine.naming import renamed_if_changed
from engine.scenario import load_preset, preset_names
from engine.scheduler import simulate

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
