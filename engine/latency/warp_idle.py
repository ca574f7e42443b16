"""Why a warp run's rows are idle: what the gaps of an `engine.latency.warps` Schedule mean.

A warp row is busy computing or waiting for its load; a gap on it is time the warp was
*ready but not picked* (``stall``: another warp held the issue unit). A gap on the issue
unit's row is time no warp was ready (``starved``: every warp waited for memory). The
pipeline's reasons (`engine.reasons.waits`: input, slot, done) do not apply: a warp run has no
buffer slots and no "previous stage", and its work never runs out before the run ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.latency.warps import ISSUE_UNIT, STAGE_NAMES, UNIT_NAMES
from engine.model.schedule import Schedule

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The reasons a warp run's row is idle, by code.
WARP_IDLE_REASONS: tuple[str, ...] = ("stall", "starved")
STALL, STARVED = 0, 1


def is_warp_schedule(schedule: Schedule) -> bool:
    """Whether ``schedule`` is a warp run's timeline (units warp and issue, stages compute
    and memory), whose rows mean what this module says."""
    return schedule.unit_names == UNIT_NAMES and schedule.stage_names == STAGE_NAMES


@dataclass(frozen=True, eq=False)
class WarpIdle:
    """Every row's gaps in [0, makespan], sorted by (row, start), with their reason code
    (`WARP_IDLE_REASONS`)."""

    row: IntArray
    start: FloatArray
    end: FloatArray
    reason: IntArray

    def __len__(self) -> int:
        return len(self.row)


def warp_idle(schedule: Schedule) -> WarpIdle:
    """The gaps of each row of a warp run's ``schedule`` and why (see the module doc)."""
    n_rows, span = schedule.n_workers, schedule.makespan
    row = schedule.row.astype(np.int64)
    order = np.lexsort((schedule.start, row))
    r, s, e = row[order], schedule.start[order], schedule.end[order]
    # How far each row's work has reached before each task: the running maximum of the
    # ends within the row (shifted by row so that one accumulate serves every row).
    shift = r * (span + 1.0)
    reached = np.maximum.accumulate(e + shift) - shift if len(r) else e
    first = np.r_[True, r[1:] != r[:-1]] if len(r) else np.zeros(0, dtype=bool)
    previous_end = np.where(first, 0.0, np.r_[0.0, reached[:-1]])
    inner = s > previous_end  # a gap before this task (from the row's start or its last)
    rows = [r[inner]]
    starts = [previous_end[inner]]
    ends = [s[inner]]
    last_end = np.zeros(n_rows)
    if len(r):
        np.maximum.at(last_end, r, e)
    tail = last_end < span  # a gap from the row's last task to the run's end
    rows.append(np.flatnonzero(tail))
    starts.append(last_end[tail])
    ends.append(np.full(int(tail.sum()), span))
    out_row = np.concatenate(rows).astype(np.int64)
    out_start = np.concatenate(starts).astype(np.float64)
    out_end = np.concatenate(ends).astype(np.float64)
    keep = np.lexsort((out_start, out_row))
    out_row, out_start, out_end = out_row[keep], out_start[keep], out_end[keep]
    issue_row = int(schedule.worker_offsets[ISSUE_UNIT])
    reason = np.where(out_row == issue_row, STARVED, STALL).astype(np.int64)
    return WarpIdle(out_row, out_start, out_end, reason)
