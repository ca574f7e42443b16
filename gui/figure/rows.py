"""Rows of a Gantt and the idle spans on them, for the app's timeline and every export.

Two ways to give tasks rows: ``workers`` (one row per worker: what each unit does over
time) and ``ops`` (one row per op: the textbook staircase, op 1's read, compute and write,
then op 2 shifted right). The spans a Gantt hatches come from ONE function, `idle_spans`
(or, for the part of the run in view, `idle_spans_in`): the engine's wait reasons
(`engine.reasons.waits`), a reason name per span that picks its hatch in `gui.colours.IDLE_STYLES`;
`describe_wait` gives the hover's words for one.

A pipeline run's worker rows are never held as spans here: at 10^6 ops they are millions
(hundreds of MB). `idle_spans_in` finds those in view from the tasks in view
(`engine.reasons.waits.idle_spans_between`), and legends read `Derived.idle_summary`.

Each function takes the Schedule's `engine.analysis.derived.Derived` (its run's: `derived_for`
makes the app's, a `ShownDerived`). What this module shapes from it for a figure (the
spans of a row mode, the reasons a legend lists) is kept in its `RowsKept`, held by the
`ShownDerived`: it goes with the run that holds it.

A warp run's and an imported profile's reasons (`engine.latency.warp_idle`, `gpu.profile.idle`)
load with the first such run: a run with the pipeline's stages is neither, and the app
starts on one (its start-up test holds the modules out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.indexes.span_index import SpanIndex
from engine.model.schedule import STAGES, Schedule
from engine.reasons.waits import (
    IDLE_REASONS,
    OP_WAIT_REASONS,
    OpWaits,
    OwnReasons,
    idle_spans_between,
    op_waits_between,
    reaching,
)
from engine.reasons.waits import IdleSpans as EngineIdleSpans
from gui.colours import IDLE_STYLES
from gui.export_formats import ROWS

if TYPE_CHECKING:
    from gpu.profile.idle import ImportedIdle

ROW_MODES = ROWS  # (declared with the exports' other options)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
CodeArray = npt.NDArray[np.integer[Any]]


def check_rows(mode: str) -> str:
    if mode not in ROW_MODES:
        raise PipeLabError(f"rows must be one of {', '.join(ROW_MODES)}, not {mode!r}")
    return mode


def row_count(schedule: Schedule, mode: str) -> int:
    """How many rows ``schedule`` takes in ``mode``."""
    return schedule.n_ops if mode == "ops" else schedule.n_workers


def task_rows(schedule: Schedule, mode: str) -> IntArray:
    """Each task's row in ``mode``: its worker's row, or its op (every task: for a pass
    over all of them; `rows_of` for a few)."""
    return schedule.op if mode == "ops" else schedule.row


def rows_of(schedule: Schedule, mode: str, tasks: IntArray) -> IntArray:
    """The rows of these tasks in ``mode``, as ``task_rows(schedule, mode)[tasks]``."""
    rows: IntArray = schedule.op[tasks] if mode == "ops" else schedule.rows_of(tasks)
    return rows


def row_label(schedule: Schedule, mode: str, row: int) -> str:
    """Words for a row: "load unit", "compute unit 2", … or "op 12"."""
    return f"op {row + 1:,}" if mode == "ops" else schedule.row_label(row)


@dataclass(frozen=True, eq=False)
class IdleSpans:
    """Idle spans of one Schedule's rows: (row, start, end) per span and the name of its
    reason (``reasons[code]``), one of the keys of `gui.colours.IDLE_STYLES`. Sorted by
    (row, start)."""

    row: IntArray
    start: FloatArray
    end: FloatArray
    code: CodeArray  # (any integer type)
    reasons: tuple[str, ...]
    #: The spans these are, one for one, where they describe themselves (a pipeline
    #: run's, an imported profile's); else `describe_wait` finds the words by index.
    engine: EngineIdleSpans | OpWaits | ImportedIdle | None = None

    def __len__(self) -> int:
        return len(self.row)

    def at(self, row: int, time: float) -> int:
        """Index of row ``row``'s span containing ``time`` (start ≤ time < end), or -1:
        two binary searches, whatever the number of spans (hovering asks at every move)."""
        lo, hi = np.searchsorted(self.row, [row, row + 1])
        k = int(lo + np.searchsorted(self.start[lo:hi], time, "right")) - 1
        return k if k >= lo and time < self.end[k] else -1

    def present(self) -> tuple[str, ...]:
        """The reasons that occur, in `reasons` order."""
        # One comparison a reason (a handful): np.bincount would first copy millions of
        # int8 codes into an int64 array.
        return tuple(r for c, r in enumerate(self.reasons) if np.count_nonzero(self.code == c))


@dataclass(eq=False)
class RowsKept:
    """What this module shapes from one `Derived` for a figure and keeps, per row mode:
    ``spans``, the spans `idle_spans` gives (only small or measured runs' are asked for:
    a pipeline run's come from `idle_spans_in`), and ``present``, the reasons a legend
    lists (`reasons_present`)."""

    spans: dict[str, IdleSpans] = field(default_factory=dict)
    present: dict[str, tuple[str, ...]] = field(default_factory=dict)


class ShownDerived(Derived):
    """A Schedule's `Derived` as the app shows it: its own wait reasons where its rows
    have them (an imported profile's lanes), and the figure's `RowsKept` (``rows_kept``)."""

    def __init__(
        self, schedule: Schedule, own_reasons: Callable[[Schedule], OwnReasons] | None = None
    ) -> None:
        super().__init__(schedule, own_reasons)
        self.rows_kept = RowsKept()


def derived_for(schedule: Schedule) -> ShownDerived:
    """A new `ShownDerived` of ``schedule``: an imported profile's lanes wait for the
    reasons its trace shows (`gpu.profile.idle`), not the pipeline's. Whoever shows the
    Schedule holds it (the app's `gui.runs.Run`; an export, for one figure)."""
    if schedule.task_name is not None:  # (gpu.profile is imported once a profile is open)
        from gpu.profile.idle import lane_idle
        from gpu.profile.lanes import is_profile_schedule

        if is_profile_schedule(schedule):
            return ShownDerived(schedule, lane_idle)
    return ShownDerived(schedule)


def derived_list(
    schedules: Sequence[Schedule], derived: Sequence[Derived] | None = None
) -> list[Derived]:
    """``derived`` (each Schedule's, in order; checked to match), or a new one each
    (`derived_for`) for a caller that shows Schedules without a run."""
    if derived is None:
        return [derived_for(s) for s in schedules]
    if len(derived) != len(schedules) or any(
        d.schedule is not s for d, s in zip(derived, schedules, strict=True)
    ):
        raise ValueError("each Schedule needs its own Derived, in the same order")
    return list(derived)


def kept_of(derived: Derived) -> RowsKept:
    """What is kept of ``derived`` for figures: a `ShownDerived`'s `RowsKept`; for a plain
    `Derived` (the command line's, a test's) a new one each time, kept by nobody."""
    return derived.rows_kept if isinstance(derived, ShownDerived) else RowsKept()


def task_index(derived: Derived) -> SpanIndex:
    """The worker rows' tasks indexed for views (`Derived.task_spans`)."""
    return derived.task_spans


def idle_spans(derived: Derived, mode: str = "workers") -> IdleSpans:
    """The spans a Gantt hatches, each with its wait reason (kept in its `RowsKept`).

    ``workers``: every worker's idle time in [0, makespan], with the engine's reasons
    (`engine.reasons.waits.idle_spans`: input, slot, done, overhead; a warp run's,
    `engine.latency.warp_idle`: stall, starved).
    ``ops``: the time each op waits (`engine.reasons.waits.op_waits`: worker, slot, overhead),
    before its read and between its stages; measured runs that are no three-stage
    pipeline have no op waits in the engine: the gaps between an op's tasks, reason
    "idle" (not known)."""
    per_mode = kept_of(derived).spans
    if mode not in per_mode:
        per_mode[mode] = _waiting_spans(derived) if mode == "ops" else _worker_spans(derived)
    return per_mode[mode]


def idle_spans_in(
    derived: Derived,
    mode: str,
    t0: float,
    t1: float,
    rows: range | None = None,
    shortest: float = 0.0,
) -> IdleSpans:
    """The spans of `idle_spans` (schedule, mode) a view of [t0, t1] needs: of a pipeline
    run, those on ``rows`` (all: None) reaching into [t0, t1] and at least ``shortest``
    long, found from the tasks or ops in view (not cached: a frame costs what it shows);
    else all of them (kept), for the caller to pick from."""
    schedule = derived.schedule
    if mode == "workers" and not _own_reasons(schedule):
        found = idle_spans_between(derived, t0, t1, rows, shortest)
        return IdleSpans(found.row, found.start, found.end, found.reason, IDLE_REASONS, found)
    if mode == "ops" and schedule.is_pipeline:
        first, last = (0, schedule.n_ops) if rows is None else (rows.start, rows.stop)
        waits = op_waits_between(derived, first, last)
        picked = waits.picked(reaching(waits.start, waits.end, t0, t1, shortest))
        return IdleSpans(
            picked.op, picked.start, picked.end, picked.reason, OP_WAIT_REASONS, picked
        )
    return idle_spans(derived, mode)


def reasons_present(derived: Derived, mode: str = "workers") -> tuple[str, ...]:
    """The wait reasons that occur in the Schedule's rows (kept): what a legend lists."""
    schedule = derived.schedule
    per_mode = kept_of(derived).present
    if mode not in per_mode:
        if mode == "workers" and not _own_reasons(schedule):
            per_mode[mode] = derived.idle_summary.present() if len(schedule) else ()
        elif mode == "ops" and schedule.is_pipeline:
            per_mode[mode] = derived.op_wait_reasons
        else:
            per_mode[mode] = idle_spans(derived, mode).present()
    return per_mode[mode]


def describe_wait(derived: Derived, mode: str, spans: IdleSpans, index: int) -> str:
    """Why span ``index`` of ``spans`` (`idle_spans` or `idle_spans_in` of schedule, mode)
    waits, in one line in the engine's words ("waiting for a slot: held by ops 1 and 2;
    the first frees at 3 s", "op 3 waits 0–3 s for a slot: held by ops 1 and 2 until
    3 s"); "" when the engine gives no reason (op rows of a run that is no pipeline)."""
    if index < 0:
        return ""
    if spans.engine is not None:
        return spans.engine.describe(index)
    schedule = derived.schedule
    if mode == "ops":
        return derived.op_waits.describe(index) if schedule.is_pipeline else ""
    # (a warp run's: worker rows with pipeline runs' spans describe themselves, above)
    from engine.latency.warp_idle import WARP_IDLE_REASONS, warp_idle

    return IDLE_STYLES[WARP_IDLE_REASONS[int(warp_idle(schedule).reason[index])]].label


def _own_reasons(schedule: Schedule) -> bool:
    """Whether ``schedule``'s worker rows wait for reasons of their own, not the
    pipeline's: a warp run's (stalls), an imported profile's (what the trace shows)."""
    if schedule.stage_names == STAGES:  # read, compute, write: neither (nothing to load)
        return False
    from engine.latency.warp_idle import is_warp_schedule
    from gpu.profile.lanes import is_profile_schedule

    return is_warp_schedule(schedule) or is_profile_schedule(schedule)


def _own_spans(derived: Derived) -> IdleSpans:
    """The worker rows' gaps of a warp run or an imported profile (`_own_reasons`)."""
    from engine.latency.warp_idle import WARP_IDLE_REASONS, is_warp_schedule, warp_idle
    from gpu.profile.idle import IMPORTED_REASONS, ImportedIdle, lane_idle

    schedule = derived.schedule
    if is_warp_schedule(schedule):  # a warp run's gaps are stalls, not pipeline waits
        gaps = warp_idle(schedule)
        return IdleSpans(gaps.row, gaps.start, gaps.end, gaps.reason, WARP_IDLE_REASONS)
    own = derived.own_reasons  # (`derived_for` gives them)
    lanes = own if isinstance(own, ImportedIdle) else lane_idle(schedule)
    return IdleSpans(lanes.row, lanes.start, lanes.end, lanes.reason, IMPORTED_REASONS, lanes)


def _worker_spans(derived: Derived) -> IdleSpans:
    schedule = derived.schedule
    if _own_reasons(schedule):
        return _own_spans(derived)
    spans = derived.idle_spans
    # The engine's int8 reason codes as they are: a copy in int64 is 8 bytes a span, and
    # a run of 10^6 ops with 2 workers a unit has millions of spans.
    return IdleSpans(spans.row, spans.start, spans.end, spans.reason, IDLE_REASONS, spans)


def _waiting_spans(derived: Derived) -> IdleSpans:
    """Each op's waits with their reasons (gaps between its tasks, measured runs that are
    no pipeline; overlapping tasks count once)."""
    schedule = derived.schedule
    if schedule.is_pipeline:
        waits = derived.op_waits
        code = waits.reason.astype(np.int64)
        return IdleSpans(waits.op, waits.start, waits.end, code, OP_WAIT_REASONS)
    if not len(schedule):
        empty = np.zeros(0)
        return IdleSpans(empty.astype(np.int64), empty, empty, empty.astype(np.int64), ("idle",))
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
