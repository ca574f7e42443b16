"""gui.scenario_edits and gui.runs (pure, no Qt): what a form field, a table block, a paste
and "make all alike" do to a Scenario; the sentence of an edited scenario; the
names and the comparison line of a pinned run beside the current one."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.base.errors import PipeLabError
from engine.base.validation import MIN_DURATION
from engine.model.naming import sentence
from engine.model.scenario import Scenario, load_preset
from gui.runs import compare_line, compose, compute_run, difference_names, pinned
from gui.scenario_edits import (
    edit_field,
    make_alike,
    parse_block,
    set_durations,
)


def uneven() -> Scenario:
    return Scenario(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0]), np.array([0.5, 1.0, 1.5]))


def finish(job):  # type: ignore[no-untyped-def]
    try:
        while True:
            next(job)
    except StopIteration as stop:
        return stop.value


def test_a_stage_field_sets_that_stage_for_every_op_and_keeps_the_others() -> None:
    edited = edit_field(uneven(), "read", 2.0)
    assert edited.read.tolist() == [2.0, 2.0, 2.0]
    assert edited.write.tolist() == [0.5, 1.0, 1.5]  # each op keeps its own write
    assert not edited.uniform
    alike = edit_field(edited, "write", 1.0)
    assert alike.uniform  # now every op is the same


def test_the_op_count_repeats_the_ops_and_the_app_cap_names_the_command_line() -> None:
    assert edit_field(uneven(), "ops", 5).read.tolist() == [1, 2, 3, 1, 2]
    with pytest.raises(PipeLabError, match=r"at most 1,000 ops.*simulate command"):
        edit_field(uneven(), "ops", 1001, max_ops=1000)
    with pytest.raises(PipeLabError, match="whole number"):
        edit_field(uneven(), "ops", 2.5)
    with pytest.raises(PipeLabError, match="unknown scenario field"):
        edit_field(uneven(), "colour", 1)


def test_the_sentence_of_an_edited_scenario_says_what_it_now_is() -> None:
    book = load_preset("book")
    edited = edit_field(edit_field(book, "ops", 20), "buffers", 2)
    assert sentence(edited).startswith("20 ops, each read 1 s, compute 1 s, write 1 s")
    assert "2 slots of shared memory" in sentence(edited)
    workers = edit_field(edited, "load_workers", 2)
    assert "2 load workers, 1 compute worker, 1 store worker" in sentence(workers)
    assert "with their own durations: read 1–3 s" in sentence(uneven())


def test_a_block_writes_cells_and_rows_past_the_end_add_ops() -> None:
    one = set_durations(uneven(), 1, 2, [[9.0]])
    assert one.write.tolist() == [0.5, 9.0, 1.5] and one.read.tolist() == [1, 2, 3]
    column = set_durations(uneven(), 0, 1, [[4.0], [5.0], [6.0], [7.0], [8.0]])
    assert column.n_ops == 5
    assert column.compute.tolist() == [4, 5, 6, 7, 8]
    assert column.read.tolist() == [1, 2, 3, 3, 3]  # new ops copy the last op elsewhere
    block = set_durations(uneven(), 2, 0, [[1, 2, 3], [4, 5, 6]])
    assert block.durations[2:].tolist() == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(PipeLabError, match="do not fit"):
        set_durations(uneven(), 0, 2, [[1, 2]])
    with pytest.raises(PipeLabError, match="op 2 read duration must be 0 or more"):
        set_durations(uneven(), 0, 0, [[1], [-1]])
    with pytest.raises(PipeLabError, match="at most 4 ops"):
        set_durations(uneven(), 3, 0, [[1], [1]], max_ops=4)


def test_make_alike_copies_one_op_everywhere() -> None:
    alike = make_alike(uneven(), 2)
    assert alike.uniform and alike.durations.tolist() == [[3.0, 1.0, 1.5]] * 3
    with pytest.raises(PipeLabError, match="no op 4"):
        make_alike(uneven(), 3)


def test_parse_block_reads_spreadsheet_cells() -> None:
    assert parse_block("1\t2\t3\r\n4.5\t5 s\t6\n\n") == [[1, 2, 3], [4.5, 5, 6]]
    assert parse_block("0.25\n0.5\n") == [[0.25], [0.5]]
    with pytest.raises(PipeLabError, match="row 2, column 1: 'abc'"):
        parse_block("1\nabc")
    with pytest.raises(PipeLabError, match="nothing to paste"):
        parse_block("\n\n")


@given(
    st.lists(st.just(0.0) | st.floats(MIN_DURATION, 100, allow_nan=False), min_size=1, max_size=30)
)
def test_a_pasted_column_lands_exactly(values: list[float]) -> None:
    text = "\n".join(repr(v) for v in values)
    edited = set_durations(uneven(), 0, 1, parse_block(text))
    assert edited.compute[: len(values)].tolist() == values
    assert edited.n_ops == max(3, len(values))


def run_of(scenario: Scenario, policies: tuple[str, ...] = ("sequential", "pipelined")):
    return finish(compute_run(scenario, policies))


def test_pinned_runs_are_named_by_what_differs_and_compared() -> None:
    book = load_preset("book")
    two = run_of(edit_field(book, "buffers", 2))
    three = run_of(edit_field(book, "buffers", 3))
    assert compare_line(two, three, "pipelined") == "2 slots: 6 s · 3 slots: 5 s (1 s faster)"
    assert compare_line(three, two, "pipelined") == "3 slots: 5 s · 2 slots: 6 s (1 s slower)"
    assert compare_line(two, three, "sequential") is None  # sequential runs have one slot
    assert difference_names(book, edit_field(book, "load_workers", 2)) == (
        "1 load worker",
        "2 load workers",
    )
    assert difference_names(uneven(), set_durations(uneven(), 0, 0, [[1.0], [3.0], [2.0]])) == (
        "read as pinned",
        "read edited",
    )
    pin = pinned(two)
    assert [s.label for s in pin.schedules] == [
        "pinned sequential · 2 slots",
        "pinned pipelined · 2 slots",
    ]
    assert [st.title for st in pin.stats] == [s.label for s in pin.schedules]
    shown = compose(three, (pin,))
    # the pinned sequential run equals the current one (one slot either way): left out;
    # the pinned pipelined run sits right above the pipelined run it is compared with
    assert shown.schedules == (three.schedules[0], pin.schedules[1], three.schedules[1])
    assert shown.titles == (
        "sequential · 3 ops · 1 slot",
        "pinned pipelined · 3 ops · 2 slots",
        "pipelined · 3 ops · 3 slots",
    )
    assert [st.title for st in shown.stats] == [s.label for s in shown.schedules]
    assert shown.comparisons == ("pipelined: 2 slots: 6 s · 3 slots: 5 s (1 s faster)",)
    assert [h.label for h in shown.headlines] == ["pipelined vs pinned", "speedup"]
    assert shown.animated == three.schedules  # four lanes would crowd the assembly line
    assert shown.end == 9.0 and shown.events[-1] == 9.0
    assert compose(three, (pinned(three),)).comparisons == (
        "the pinned run has the same settings as this one",
    )


def test_each_pinned_run_sits_above_the_run_it_is_compared_with_named_by_the_difference() -> None:
    book = run_of(load_preset("book"))
    slower = run_of(edit_field(load_preset("book"), "read", 2))
    pin = pinned(book)
    shown = compose(slower, (pin,))
    assert shown.schedules == (
        pin.schedules[0],
        slower.schedules[0],
        pin.schedules[1],
        slower.schedules[1],
    )
    assert shown.titles == (
        "pinned sequential · 3 ops · 1 slot · read 1 s",
        "sequential · 3 ops · 1 slot · read 2 s",
        "pinned pipelined · 3 ops · unlimited slots · read 1 s",
        "pipelined · 3 ops · unlimited slots · read 2 s",
    )
    assert [st.title for st in shown.stats] == [s.label for s in shown.schedules]
    # a pin of a policy the current run does not show comes first, with no comparison
    only = compose(run_of(edit_field(load_preset("book"), "read", 2), ("pipelined",)), (pin,))
    assert only.titles[0] == "pinned sequential · 3 ops · 1 slot"
    assert only.schedules[1:] == (pin.schedules[1], *only.current.schedules)


def test_switching_the_view_reuses_the_schedules_already_simulated() -> None:
    book = load_preset("book")
    both = run_of(book)
    only = finish(compute_run(book, ("pipelined",), reuse=both))
    assert only.schedules[0] is both.schedules[1]
    assert only.stats[0] is both.stats[1]


def test_an_edit_of_the_slots_keeps_the_sequential_run() -> None:
    """A sequential run has one slot whatever the scenario says: an edit of the slots
    simulates only the pipelined run; any other edit simulates both."""
    book, both_policies = load_preset("book"), ("sequential", "pipelined")
    both = run_of(book)
    slots = finish(compute_run(book.with_changes(buffers=2), both_policies, reuse=both))
    assert slots.schedules[0] is both.schedules[0] and slots.stats[0] is both.stats[0]
    assert slots.schedules[1] is not both.schedules[1]
    assert slots.schedules[1].makespan == 6.0
    fresh = run_of(book.with_changes(buffers=2))
    assert np.array_equal(slots.schedules[0].start, fresh.schedules[0].start)
    assert slots.stats[0] == fresh.stats[0]
    slower = finish(compute_run(book.with_changes(compute=2.0), both_policies, reuse=both))
    assert slower.schedules[0] is not both.schedules[0]
    more = finish(compute_run(replace(book, workers=(2, 1, 1)), both_policies, reuse=both))
    assert more.schedules[0] is not both.schedules[0]
