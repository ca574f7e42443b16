"""The terminal's view of a Schedule: a compact text Gantt and its metrics (the app's own
stats, from `engine.analysis.stats.schedule_stats`, printed as text)."""

from __future__ import annotations

import textwrap

import numpy as np

from engine.analysis.derived import Derived
from engine.analysis.stats import schedule_stats
from engine.base.text import elided, time_text
from engine.model.scenario import Scenario
from engine.model.schedule import UNITS, Schedule
from engine.model.shape_file import AnyScenario, ShapedScenario, shape_words

IDLE = "·"


#: A time for people: the one formatter, `engine.base.text.time_text` ("5 s", "723 ms",
#: "1,000,002 s").
seconds = time_text


def _row_cells(schedule: Schedule, row: int, width: int, makespan: float) -> str:
    """One row of the text Gantt: each task's cells carry its op number where the task has
    them to itself ("[ 12 ]", or "3=" when tight), "█" where ops share cells or a label
    would not fit unambiguously, and IDLE elsewhere. Vectorized: 10^6 tasks stay quick."""
    order, bounds = schedule.by_row
    tasks = order[bounds[row] : bounds[row + 1]]
    start, end = schedule.start[tasks], schedule.end[tasks]
    real = end > start
    tasks, start, end = tasks[real], start[real], end[real]
    # Fractions of the span first: start * (width / span) overflows when the span is tiny.
    with np.errstate(all="ignore"):
        lo_cell = np.rint(np.nan_to_num(start / makespan) * width) if makespan > 0 else 0 * start
        hi_cell = np.rint(np.nan_to_num(end / makespan) * width) if makespan > 0 else 0 * end
    lo = np.clip(lo_cell, 0, width - 1).astype(np.int64)
    hi = np.maximum(lo + 1, np.clip(hi_cell, 0, width)).astype(np.int64)
    change = np.zeros(width + 1, dtype=np.int64)
    np.add.at(change, lo, 1)
    np.add.at(change, hi, -1)
    cover = np.cumsum(change)[:width]
    cells = [IDLE if c == 0 else "█" for c in cover.tolist()]
    shared = np.concatenate([[0], np.cumsum(cover > 1)])
    alone = shared[hi] - shared[lo] == 0  # no cell of the task is shared: at most `width`
    for op, a, b in zip(
        schedule.op[tasks[alone]].tolist(), lo[alone].tolist(), hi[alone].tolist(), strict=True
    ):
        label, span = str(op + 1), b - a
        if span >= len(label) + 2:
            cells[a:b] = "[" + label.center(span - 2) + "]"
        elif span == len(label) + 1:
            cells[a:b] = label + "="  # never two labels touching ("1112" for 11 and 12)
    return "".join(cells)


def text_gantt(schedule: Schedule, width: int = 80) -> str:
    """One line per worker with op numbers in their cells, scaled to ``width`` columns."""
    labels = [schedule.row_label(row) for row in range(schedule.n_workers)]
    margin = max(len(label) for label in labels) + 2
    cells = max(10, width - margin)
    span = schedule.makespan
    end_label = seconds(span, schedule.time_unit)
    axis = "0".ljust(cells - len(end_label)) + end_label
    lines = [" " * margin + axis]
    lines += [
        label.ljust(margin) + _row_cells(schedule, row, cells, span)
        for row, label in enumerate(labels)
    ]
    return "\n".join(lines)


#: The columns a scenario's name may always take in the heading (a wider table gives it more).
_NAME_COLUMNS = 80


def describe(scenario: AnyScenario, width: int = 100) -> str:
    """The table's heading: the scenario's name, escaped and cut to what ``width`` leaves
    (a file's name is hostile text: no escape sequence or megabyte line reaches the
    terminal), then its ops, workers and slots (a pipeline shape: its stages on their
    units, and its pools)."""
    if isinstance(scenario, ShapedScenario):
        details = f": {scenario.n_ops:,} ops; {shape_words(scenario.shape)}"
    else:
        workers = ", ".join(f"{k} {u}" for u, k in zip(UNITS, scenario.workers, strict=True))
        slots = "unlimited" if scenario.buffers == 0 else str(scenario.buffers)
        details = f": {scenario.n_ops:,} ops, workers {workers}, buffer slots {slots}"
    name = elided(scenario.name, max(_NAME_COLUMNS, width - len(details)))
    return name + details


#: Width of the label column ("utilization  ").
_LABEL = 13


def metrics_lines(schedule: Schedule, scenario: AnyScenario, width: int = 100) -> list[str]:
    """The stats the app shows, as lines of at most ``width`` columns: makespan,
    utilization, what binds and why, the closed form with its numbers, each worker's idle
    time with its reasons, and any anomaly (with its explanation)."""
    book = scenario if isinstance(scenario, Scenario) else None  # (its formula, anomalies)
    stats = schedule_stats(Derived(schedule), book, time_text=seconds)
    indent = " " * _LABEL

    def block(label: str, text: str, hang: int = _LABEL) -> list[str]:
        return textwrap.wrap(
            text,
            width=max(width, _LABEL + 20),
            initial_indent=label.ljust(_LABEL),
            subsequent_indent=" " * hang,
            break_on_hyphens=False,
        )

    lines: list[str] = []
    for line in stats.lines:
        if line.label == "idle":
            margin = max(len(use.label) for use in stats.workers) + 2
            for row, use in enumerate(stats.workers):
                label = "idle" if row == 0 else ""
                head = label.ljust(_LABEL) + use.label.ljust(margin)
                lines += textwrap.wrap(
                    use.idle,
                    width=max(width, len(head) + 20),
                    initial_indent=head,
                    subsequent_indent=indent + " " * margin,
                    break_on_hyphens=False,
                )
        elif line.label == "anomaly":
            lines += block("anomaly", f"{line.value}. {line.how}")
        else:
            lines += block(line.label, line.value)
        if line.label == "makespan":
            rows = "  ".join(f"{use.label} {use.utilization:.0%}" for use in stats.workers)
            lines += block("utilization", rows)
    return lines


def policy_block(schedule: Schedule, scenario: AnyScenario, width: int) -> str:
    if isinstance(scenario, ShapedScenario):
        held = "one op at a time" if schedule.policy == "sequential" else "the shape's pools"
        title = f"{schedule.policy} ({held})"
    else:
        slots = "unlimited" if schedule.buffers == 0 else schedule.buffers
        title = f"{schedule.policy} (buffer slots: {slots})"
    lines = metrics_lines(schedule, scenario, width)
    return "\n".join([title, text_gantt(schedule, width), *lines])
