"""The stats panel's lines for an imported device's lanes: what `pipelab import` prints, one
number a line with the sentence that says how it was obtained (`engine.analysis.stats.StatLine`).

The engine's own stats read a simulated run's rules (a bottleneck per worker, the model's
wait reasons); a trace has neither, so its figures come from the unions of
`gpu.profile.figures` and its idle time from `gpu.profile.idle`.
"""

from __future__ import annotations

import numpy as np

from engine.analysis.stats import ScheduleStats, StatLine, WorkerUse
from engine.base.text import time_text
from engine.model.schedule import UNITS, Schedule
from gpu.profile.figures import PARTS, device_figures, union_of, unit_unions
from gpu.profile.idle import IMPORTED_REASONS, imported_idle

#: The parts of the makespan, in a line.
PART_NAMES = {
    "compute_only": "compute only",
    "overlapped": "overlapped",
    "copy_only": "copies only",
    "idle": "idle",
}


def profile_stats(schedule: Schedule) -> ScheduleStats:
    """The figures of one imported device (its lanes' Schedule), each explained."""
    unit = schedule.time_unit
    unions = unit_unions(schedule)
    figures = device_figures(schedule, unions)
    span = figures.makespan

    def part(value: float) -> str:
        return f"{time_text(value, unit)} ({value / span:.0%})" if span > 0 else time_text(0, unit)

    idle = imported_idle(schedule, unions)
    lines = (
        StatLine(
            "makespan",
            time_text(span, unit),
            f"The device's last end minus its first start ({len(schedule):,} activities).",
        ),
        StatLine(
            "busy",
            " · ".join(f"{name} {part(figures.busy[name])}" for name in UNITS),
            "Each unit's busy time: the length of the union of its streams' activities "
            "(two streams copying at once are one busy load unit), against the makespan.",
        ),
        StatLine(
            "breakdown",
            " · ".join(f"{PART_NAMES[name]} {part(figures.breakdown[name])}" for name in PARTS),
            "The makespan in four parts that add up to it: compute with no copy running, "
            "compute while a copy in or out runs, copies with no compute running, nothing "
            "running.",
        ),
        StatLine(
            "copies hidden",
            f"{figures.copies_hidden:.0%}",
            "The share of the copying time that ran while compute ran: overlapped ÷ "
            "(overlapped + copies only).",
        ),
        StatLine(
            "headroom",
            time_text(figures.headroom, unit),
            "The makespan minus the busiest unit's busy time: what a perfect overlap of "
            "these same activities could save at most.",
        ),
        StatLine(
            "bottleneck",
            f"the {figures.bottleneck.resource} unit",
            f"{figures.bottleneck.why[:1].upper()}{figures.bottleneck.why[1:]}.",
        ),
        StatLine(
            "lanes idle",
            " · ".join(
                f"{reason} {time_text(idle.total(reason), unit)}" for reason in IMPORTED_REASONS
            ),
            "Every stream's idle time by what the rest of the device did, summed over "
            "streams: input (a copy in ran on another stream), host (the device ran "
            "nothing), other (other streams ran other work), done (after its last task). A "
            "trace records order, not dependencies.",
        ),
    )
    return ScheduleStats(schedule.label or "imported", lines, _lanes(schedule, span))


def _lanes(schedule: Schedule, span: float) -> tuple[WorkerUse, ...]:
    """Each stream's busy share of the device's makespan."""
    order, bounds = schedule.by_row
    unit = schedule.time_unit
    lanes = []
    for row in range(schedule.n_workers):
        tasks = np.asarray(order[int(bounds[row]) : int(bounds[row + 1])], dtype=np.int64)
        busy = union_of(schedule.start, schedule.end, tasks).length if len(tasks) else 0.0
        how = (
            f"Busy {time_text(busy, unit)} of the device's {time_text(span, unit)} "
            "(overlapping activities on the stream count once)."
        )
        lanes.append(WorkerUse(schedule.row_label(row), busy / span if span > 0 else 0.0, how))
    return tuple(lanes)
