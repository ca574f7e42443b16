"""Rows of a Gantt and the idle spans on them, for the app's timeline and every export.

Two ways to give tasks rows: ``workers`` (one row per worker: what each unit does over
time) and ``ops`` (one row per op: the textbook staircase, op 1's read, compute and write,
then op 2 shifted right). Idle spans come from ONE function, `idle_spans`, with a reason
name per span that picks its hatch in `gui.colours.IDLE_STYLES`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.density import SpanIndex
from engine.errors import PipeLabError
from engine.schedule import Schedule
from engine.view_model import idle_intervals

ROW_MODES = ("workers", "ops")

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def check_rows(mode: str) -> str:
    if mode not in ROW_MODES:
        raise PipeLabError(f"rows must be one of {', '.join(ROW_MODES)}, not {mode!r}")
    return mode


def row_count(schedule: Schedule, mode: str) -> int:
    """How many rows ``schedule`` takes in ``mode``."""
    return schedule.n_ops if mode == "ops" else schedule.n_workers


def task_rows(schedule: Schedule, mode: str) -> IntArray:
    """Each task's row in ``mode``: its worker's row, or its op."""
    return schedule.op if mode == "ops" else schedule.row


def row_label(schedule: Schedule, mode: str, row: int) -> str:
    """Words for a row: "load unit", "compute unit 2", … or "op 12"."""
    return f"op {row + 1:,}" if mode == "ops" else schedule.row_label(row)


@dataclass(frozen=True, eq=False)
class IdleSpans:
    """Idle spans of one Schedule's rows: (row, start, end) per span and the name of its
    reason (``reasons[code]``), one of the keys of `gui.colours.IDLE_STYLES`."""

    row: IntArray
    start: FloatArray
    end: FloatArray
    code: IntArray
    reasons: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.row)


_CACHE: weakref.WeakKeyDictionary[Schedule, dict[str, IdleSpans]] = weakref.WeakKeyDictionary()
_INDEXES: weakref.WeakKeyDictionary[Schedule, dict[str, SpanIndex]] = weakref.WeakKeyDictionary()


def task_index(schedule: Schedule) -> SpanIndex:
    """The worker rows' tasks indexed for views (cached on the Schedule, freed with it)."""
    indexes = _INDEXES.setdefault(schedule, {})
    if "tasks" not in indexes:
        indexes["tasks"] = SpanIndex.of_schedule(schedule)
    return indexes["tasks"]


def idle_index(schedule: Schedule) -> SpanIndex:
    """The worker rows' idle spans (`idle_spans`) indexed for views (cached)."""
    indexes = _INDEXES.setdefault(schedule, {})
    if "idle" not in indexes:
        spans = idle_spans(schedule)
        indexes["idle"] = SpanIndex.build(spans.start, spans.end, spans.row, schedule.n_workers)
    return indexes["idle"]


def idle_spans(schedule: Schedule, mode: str = "workers") -> IdleSpans:
    """The idle spans a Gantt hatches (cached on the Schedule, freed with it).

    ``workers``: every worker's idle time in [0, makespan]. The reason is "idle" until the
    engine reports why (`engine.waits.idle_spans`: "input", "slot", "done"): swap the source
    here and every view and export hatches each reason in its own style.
    ``ops``: the time an op waits between its stages (reason "idle")."""
    per_mode = _CACHE.setdefault(schedule, {})
    if mode not in per_mode:
        per_mode[mode] = _waiting_spans(schedule) if mode == "ops" else _worker_spans(schedule)
    return per_mode[mode]


def _worker_spans(schedule: Schedule) -> IdleSpans:
    rows, starts, ends = idle_intervals(schedule)
    return IdleSpans(rows, starts, ends, np.zeros(len(rows), dtype=np.int64), ("idle",))


def _waiting_spans(schedule: Schedule) -> IdleSpans:
    """Gaps between consecutive tasks of each op (overlapping tasks count once)."""
    if not len(schedule):
        empty = np.zeros(0)
        return IdleSpans(empty.astype(np.int64), empty, empty, empty.astype(np.int64), ("idle",))
    if schedule.is_pipeline:
        starts, ends = schedule.op_starts, schedule.op_ends
        order = np.argsort(starts, axis=1, kind="stable")
        s = np.take_along_axis(starts, order, axis=1)
        reach = np.maximum.accumulate(np.take_along_axis(ends, order, axis=1), axis=1)
        gap_start, gap_end = reach[:, :-1], s[:, 1:]
        ops = np.broadcast_to(np.arange(schedule.n_ops)[:, None], gap_start.shape)
        keep = gap_end > gap_start
        rows, a, b = ops[keep], gap_start[keep], gap_end[keep]
    else:
        order = np.lexsort((schedule.start, schedule.op))
        op, s, e = schedule.op[order], schedule.start[order], schedule.end[order]
        reach = e.copy()
        for i in range(1, len(reach)):  # measured runs only: a few thousand tasks
            if op[i] == op[i - 1]:
                reach[i] = max(reach[i], reach[i - 1])
        same = op[1:] == op[:-1]
        keep = same & (s[1:] > reach[:-1])
        rows, a, b = op[1:][keep], reach[:-1][keep], s[1:][keep]
    rows = np.asarray(rows, dtype=np.int64)
    return IdleSpans(rows, np.asarray(a), np.asarray(b), np.zeros(len(rows), np.int64), ("idle",))
