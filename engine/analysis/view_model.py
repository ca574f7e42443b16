"""What the app asks of one Schedule under the pointer and on the assembly line (no Qt): the
task running on a row at an instant, its hover text, and the animation's glide length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.analysis.metrics import median_positive_in_place
from engine.model.schedule import Schedule

if TYPE_CHECKING:
    from engine.analysis.derived import Derived
from engine.base.text import elided, format_time

#: A task's own name (an imported kernel's) is cut to this many characters on hover:
#: C++ kernel names run to hundreds.
NAME_CHARS = 120

# -- the timeline ---------------------------------------------------------------------------


def task_at(schedule: Schedule, row: int, time: float) -> int:
    """Index of the task running on timeline row ``row`` at ``time``, or -1.

    Where measured tasks overlap, the one started last wins (it is drawn on top).
    """
    if row < 0 or row >= schedule.n_workers or not len(schedule):
        return -1
    order, bounds = schedule.by_row
    lo, hi = int(bounds[row]), int(bounds[row + 1])
    starts = schedule.row_starts[lo:hi]  # (the row's starts in that order: no copy)
    k = int(np.searchsorted(starts, time, side="right")) - 1
    # Scan back over the few tasks that started earlier and may still run (overlaps).
    for j in range(k, max(-1, k - 64), -1):
        task = int(order[lo + j])
        if schedule.start[task] <= time < schedule.end[task]:
            return task
    return -1


def describe_task(schedule: Schedule, task: int) -> str:
    """Tooltip text of one task: op and stage (a task with a name of its own, an imported
    kernel or copy: that name), worker, start, end, duration."""
    unit = schedule.time_unit
    start, end = float(schedule.start[task]), float(schedule.end[task])
    title = schedule.label or schedule.policy
    own = schedule.task_title(task)
    what = (
        elided(own, NAME_CHARS)
        if own is not None
        else f"op {int(schedule.op[task]) + 1} · {schedule.stage_names[schedule.stage[task]]}"
    )
    return (
        f"{what}\n"
        f"{schedule.row_label(int(schedule.rows_of(task)))} ({title}, {schedule.source})\n"
        f"start {format_time(start, unit)} · end {format_time(end, unit)}\n"
        f"duration {format_time(end - start, unit)}"
    )


# -- the assembly line --------------------------------------------------------------------


def typical_duration(derived: Derived) -> float:
    """Median positive task duration (1 for an empty schedule): sets the glide length."""
    work = derived.op_work  # a pipeline's: measured with its stage statistics
    return (
        median_positive_in_place(derived.schedule.duration)
        if work is None
        else work.median_positive
    )
