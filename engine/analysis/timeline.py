"""Time travel over a Schedule: the state of every worker and op at any instant, and one
line of narration for what changes at each event time."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.base.text import elided, join_words, op_list, time_text
from engine.model.schedule import STAGES, UNITS, Schedule
from engine.reasons.waits import (
    DONE,
    OVERHEAD,
    SLOT,
    IdleNow,
    OpsWaiting,
    OwnReasons,
    idle_now,
    ops_waiting_at,
)

if TYPE_CHECKING:
    from engine.analysis.derived import Derived

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class Place(IntEnum):
    """Where an op is in a three-stage pipeline. The value counts stage starts and ends
    passed (each start and each end moves an op one place on)."""

    WAITING = 0  # not started reading yet (may or may not hold a slot)
    READING = 1
    READ = 2  # read done, waiting for the compute unit
    COMPUTING = 3
    COMPUTED = 4  # compute done, waiting for the store unit
    WRITING = 5
    DONE = 6


@dataclass(frozen=True, eq=False)
class WorkersNow:
    """Per timeline row at one instant: the task it runs (-1 idle), that task's op and stage
    (-1 idle), the fraction done, in [0, 1], and when an idle row last finished (0 if
    never, NaN while busy)."""

    task: IntArray
    op: IntArray
    stage: IntArray
    fraction: FloatArray
    idle_since: FloatArray


@dataclass(frozen=True, eq=False)
class State:
    """Everything at one instant ``time``: every worker's task (``workers``); per op, its
    `Place` (``op_place``, pipelines only; else empty) and whether it holds a shared-memory
    slot now (``op_holds_slot``); for a pipeline shape's run, per pool (`Schedule.pools`)
    and op, whether the op holds one of its slots (granted, the pool's last stage not ended).
    """

    time: float
    workers: WorkersNow
    op_place: IntArray
    op_holds_slot: npt.NDArray[np.bool_]
    pool_holds: tuple[npt.NDArray[np.bool_], ...] = ()

    @property
    def slots_in_use(self) -> int:
        return int(self.op_holds_slot.sum())

    def pool_in_use(self, pool: int) -> int:
        """Slots of pool ``pool`` held now."""
        return int(self.pool_holds[pool].sum())


def workers_at(schedule: Schedule, time: float) -> WorkersNow:
    """Every worker's task at ``time`` (or idle, and since when), in O(rows · log n).

    A task runs on [start, end): at its end instant the worker is already free. The row is
    busy if anything started so far reaches past ``time`` (measured rows may overlap)."""
    _, bounds = schedule.by_row
    starts = schedule.row_starts
    rows = schedule.n_workers
    task = np.full(rows, -1, dtype=np.int64)
    idle_since = np.zeros(rows)
    for row in range(rows):
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        if lo == hi:
            continue
        k = lo + int(np.searchsorted(starts[lo:hi], time, side="right")) - 1
        if k < lo:
            continue
        reach, reach_task = schedule.reach_at(k)
        if reach > time:
            task[row] = reach_task
            idle_since[row] = np.nan
        else:
            idle_since[row] = reach
    busy = task >= 0
    safe = np.maximum(task, 0)
    op = np.where(busy, schedule.op[safe], -1).astype(np.int64)
    stage = np.where(busy, schedule.stage[safe], -1).astype(np.int64)
    fraction = np.zeros(rows)
    if busy.any():
        fraction[busy] = progress(schedule.start[task[busy]], schedule.end[task[busy]], time)
    return WorkersNow(task, op, stage, fraction, idle_since)


def progress(start: FloatArray, end: FloatArray, time: float) -> FloatArray:
    """How much of each span [start, end) is done at ``time``, in [0, 1]."""
    span = end - start
    return np.clip((time - start) / np.where(span > 0, span, 1.0), 0.0, 1.0)


def state_at(schedule: Schedule, time: float) -> State:
    """The state of every worker and op at ``time``. A task runs on [start, end): at its
    end the worker is free, the op in its next place; zero-length tasks never run."""
    if schedule.is_pipeline:
        place = (schedule.op_starts <= time).sum(axis=1) + (schedule.op_ends <= time).sum(axis=1)
        place = place.astype(np.int64)
        last_end = schedule.op_ends[:, -1]
        first = schedule.grant if schedule.grant is not None else schedule.op_starts[:, 0]
        holds = (first <= time) & (time < last_end)
    else:
        place = np.zeros(0, dtype=np.int64)
        holds = np.zeros(0, dtype=bool)
    return State(time, workers_at(schedule, time), place, holds, _pool_holds(schedule, time))


def _pool_holds(schedule: Schedule, time: float) -> tuple[npt.NDArray[np.bool_], ...]:
    """Per pool of a shape's run, per op: granted a slot by ``time``, its last stage not
    ended (a slot is free again at that end's instant, as a worker is)."""
    grants = schedule.pool_grants
    if grants is None:
        return ()
    return tuple(
        (grants[:, p] <= time) & (time < schedule.op_ends[:, pool.last])
        for p, pool in enumerate(schedule.pools)
    )


_STARTS = {"read": "starts reading", "compute": "starts computing", "write": "starts writing"}
_ONGOING = {"read": "is reading", "compute": "is computing", "write": "is writing"}
#: An imported task's own name (a C++ kernel's runs to hundreds of characters) is cut to
#: this many in the narration; the Gantt's hover shows it whole.
NARRATED_NAME = 48
#: Narrations kept per Schedule (the clock asks again whenever it passes an event).
_NARRATIONS_KEPT = 4096


def _phrases(schedule: Schedule, tasks: IntArray, verbs: dict[str, str]) -> list[str]:
    """ "the load unit starts reading op 2", … for every task, in row order; a shape's
    stages by name: "the tensor cores start mma of op 6", "the TMA is working on load of
    op 9"."""
    ordered = tasks[np.argsort(schedule.rows_of(tasks), kind="stable")]
    phrases = []
    shaped = bool(schedule.pools) or schedule.stage_names != STAGES
    for task in ordered.tolist():
        stage = schedule.stage_names[schedule.stage[task]]
        who = _worker_name(schedule, int(schedule.rows_of(task)))
        plural = _plural_name(schedule, who)
        if shaped and schedule.task_name is None and stage not in verbs:
            starts = "start" if plural else "starts"
            doing = "are working on" if plural else "is working on"
            verb = f"{starts if verbs is _STARTS else doing} {stage} of"
        else:
            verb = verbs.get(stage, f"works on {stage} of")
        own = schedule.task_title(task)
        if own is not None:  # an imported kernel or copy: its own name
            doing = "starts" if verbs is _STARTS else "is running"
            phrases.append(f"{who} {doing} {elided(own, NARRATED_NAME)}")
        else:
            phrases.append(f"{who} {verb} op {int(schedule.op[task]) + 1:,}")
    return phrases


def _plural_name(schedule: Schedule, who: str) -> bool:
    """Whether ``who`` (a worker's name in a phrase) reads as plural: a shape's unit of one
    worker whose name is a plural noun ("the tensor cores", "the consumers"; not "the
    TMA", not "consumers 2", not the book's units)."""
    if schedule.unit_titles is not None or schedule.row_titles is not None:
        return False
    return who.startswith("the ") and _plural_noun(who)


def _plural_noun(name: str) -> bool:
    """ "tensor cores", "SMs", "consumers": plural; "load unit", "TMA", "class": not."""
    return name.endswith("s") and not name.endswith("ss") and name not in UNITS


def _worker_name(schedule: Schedule, row: int) -> str:
    """ "the load unit" (a unit's only worker), "compute unit 2" (a numbered one)."""
    label = schedule.row_label(row)
    return label if label[-1:].isdigit() else f"the {label}"


def narrate(derived: Derived, time: float) -> str:
    """One line saying what changes at event time ``time``, what keeps going, and why
    anything waits (`engine.reasons.waits`): "t = 2 s: the compute unit starts computing op
    2 while the store unit starts writing op 1; the load unit waits: both slots are held
    (ops 1 and 2); the first frees at 3 s; op 3 waits for a slot" (ops from 1). O(rows ·
    log n), and kept (`Derived.narrations`): the animation may ask at every tick.
    """
    cache = derived.narrations
    key = float(time)
    text = cache.get(key)
    if text is None:
        if len(cache) >= _NARRATIONS_KEPT:
            cache.clear()
        text = cache[key] = _narrate(derived, key)
    return text


def _narrate(derived: Derived, time: float) -> str:
    schedule, index = derived.schedule, derived.waits
    unit = schedule.time_unit
    index.prepare_narration()  # the first call builds what every later one searches
    makespan = index.span  # (Schedule.makespan scans every task each time)
    tolerance = index.tol
    head = f"t = {time_text(time, unit)}: "
    if len(schedule) and time >= makespan - tolerance:
        span = time_text(makespan, unit)
        what = "ops" if schedule.task_name is None else "activities"
        return head + f"all {schedule.n_ops:,} {what} are done; the run took {span}"
    starting_parts = []
    for tasks in index.units:
        lo = int(np.searchsorted(tasks.starts, time - tolerance, "left"))
        hi = int(np.searchsorted(tasks.starts, time + tolerance, "right"))
        found = tasks.tasks_at(slice(lo, hi))
        starting_parts.append(found[schedule.end[found] > schedule.start[found]])
    starting = np.concatenate(starting_parts) if starting_parts else np.zeros(0, np.int64)
    running = workers_at(schedule, time).task
    candidates = running[running >= 0]
    ongoing = candidates[
        (schedule.start[candidates] < time - tolerance)
        & (schedule.end[candidates] > time + tolerance)
    ]
    busy = np.zeros(schedule.n_workers, dtype=bool)
    busy[schedule.rows_of(starting)] = True
    busy[schedule.rows_of(ongoing)] = True
    parts = []
    if len(starting):
        news = _phrases(schedule, starting, _STARTS)
        parts.append(news[0] + (" while " + join_words(news[1:]) if len(news) > 1 else ""))
    if len(ongoing):
        parts.append(join_words(_phrases(schedule, ongoing, _ONGOING)))
    idle_rows = np.flatnonzero(~busy).tolist()
    own = derived.own_reasons
    if own is not None:  # (its reasons say when the whole device is idle, and why)
        said = parts + _own_idle_phrases(schedule, own, idle_rows, time + tolerance)
        return head + "; ".join(said or ["every worker is idle"])
    if not parts:
        parts.append("nothing has started yet" if time <= tolerance else "every worker is idle")
    idle = idle_now(derived, idle_rows, time + tolerance)
    parts += _idle_phrases(schedule, idle, time - tolerance)
    parts += [_waiting_phrase(schedule, w) for w in ops_waiting_at(derived, time + tolerance)]
    return head + "; ".join(parts)


def _subject(schedule: Schedule, rows: list[int]) -> tuple[str, bool]:
    """ "the load unit", "compute units 2 and 3", "both store units"; and whether plural."""
    if len(rows) == 1:
        who = _worker_name(schedule, rows[0])
        return who, _plural_name(schedule, who)
    unit = int(np.searchsorted(schedule.worker_offsets, rows[0], "right") - 1)
    title = schedule.unit_title(unit)
    titles = title if _plural_noun(title) else f"{title}s"  # (not "both consumerss")
    k = schedule.workers[unit]
    if len(rows) == k:
        return (f"both {titles}" if k == 2 else f"all {k} {titles}"), True
    first = int(schedule.worker_offsets[unit])
    return f"{titles} " + join_words([str(r - first + 1) for r in rows]), True


def _idle_phrases(schedule: Schedule, reasons: list[IdleNow], earlier: float) -> list[str]:
    """One phrase per unit and reason (workers that wait for the same thing share one).
    Overhead is idle time only once some has passed: a stage ready since ``earlier`` or
    later (this instant, to the tolerance) is one a worker starts after a handoff."""
    groups: dict[tuple[int, int, tuple[int, ...], float, int, int], list[int]] = {}
    for item in reasons:
        unit = int(np.searchsorted(schedule.worker_offsets, item.row, "right") - 1)
        when = -1.0 if np.isnan(item.when) else item.when  # NaN is no dictionary key
        key = (unit, item.reason, item.ops, when, item.task if item.reason != SLOT else -1)
        groups.setdefault((*key, item.pool), []).append(item.row)
    unit_text = schedule.time_unit
    phrases = []
    finished = []
    for (_, reason, ops, when, task, pool), rows in groups.items():
        who, plural = _subject(schedule, rows)
        at = time_text(when, unit_text)
        if reason == DONE:
            finished.append((who, plural))
        elif reason == SLOT and pool >= 0:  # a shape's pool, by name
            name = schedule.pools[pool].name
            if not ops:
                held = "; it goes to the ops in turn"
            elif len(ops) == 1:
                held = f", held by {op_list(ops)} until {at}"
            else:
                held = f", held by {op_list(ops)} (the first frees at {at})"
            phrases.append(f"{who} {'wait' if plural else 'waits'} for a slot of {name}{held}")
        elif reason == SLOT:
            slots = schedule.buffers
            if slots == 1:
                held = f"the slot is held ({op_list(ops)}); it frees at {at}"
            else:
                amount = "both slots" if slots == 2 else f"all {slots} slots"
                held = f"{amount} are held ({op_list(ops)}); the first frees at {at}"
            phrases.append(f"{who} {'wait' if plural else 'waits'}: {held}")
        else:
            op = int(schedule.op[task]) + 1
            stage = int(schedule.stage[task])
            names = schedule.stage_names
            if reason == OVERHEAD and when >= earlier:
                phrases.append(_handoff_phrase(schedule, task, when, who, plural))
            elif reason == OVERHEAD:
                what = f"op {op:,}'s {names[stage]} has been ready since {at}"
                phrases.append(f"{who} {'are' if plural else 'is'} idle although {what}")
            elif schedule.is_pipeline and stage > 0:
                awaited = f"op {op:,}'s {names[stage - 1]} (ends at {at})"
                phrases.append(f"{who} {'wait' if plural else 'waits'} for {awaited}")
            else:
                own = schedule.task_title(task)
                name = f"op {op:,}" if own is None else elided(own, NARRATED_NAME)
                awaited = f"{name} (it starts at {at})"
                phrases.append(f"{who} {'wait' if plural else 'waits'} for {awaited}")
    if finished:
        plural = len(finished) > 1 or finished[0][1]
        who = join_words([name for name, _ in finished])
        phrases.append(f"{who} {'have' if plural else 'has'} no work left")
    return phrases


#: Idle workers named one by one in a phrase of their own reasons, at most.
_NAMED_WORKERS = 3


def _own_idle_phrases(
    schedule: Schedule, own: OwnReasons, rows: list[int], time: float
) -> list[str]:
    """One phrase per reason (and awaited task) of rows that wait for reasons of their
    own (an imported profile's streams): "compute · stream 7 and compute · stream 13 wait
    for data: Memcpy HtoD (Pinned -> Device) runs on another stream". Rows that ran
    nothing are not named."""
    groups: dict[tuple[int, int], list[int]] = {}
    for row in rows:
        found = own.reason_at(row, time)
        if found is not None:
            groups.setdefault(found, []).append(row)
    phrases = []
    for (reason, task), members in groups.items():
        names = [_worker_name(schedule, row) for row in members]
        if len(names) > _NAMED_WORKERS:
            rest = len(names) - _NAMED_WORKERS + 1
            names = [*names[: _NAMED_WORKERS - 1], f"{rest} more"]
        said = own.said(reason, task, plural=len(members) > 1)
        phrases.append(f"{join_words(names)} {said}")
    return phrases


def _handoff_phrase(schedule: Schedule, task: int, ready: float, who: str, plural: bool) -> str:
    """A stage that became ready at this instant and starts after a positive gap (a
    measured run's handoff): "the compute thread starts computing op 13 after 30 µs of
    overhead" (the idle workers are named apart when another one runs it)."""
    runner = _worker_name(schedule, int(schedule.rows_of(task)))
    [starting] = _phrases(schedule, np.asarray([task]), _STARTS)
    gap = time_text(float(schedule.start[task]) - ready, schedule.time_unit)
    text = f"{starting} after {gap} of overhead"
    if who == runner:
        return text
    return f"{who} {'are' if plural else 'is'} free; {text}"


def _op_range(first: int, last: int) -> tuple[str, bool]:
    """Ops first .. last (0-based) in words, and whether that is more than one."""
    if first == last:
        return f"op {first + 1:,}", False
    joiner = " and " if last == first + 1 else "–"
    return f"ops {first + 1:,}{joiner}{last + 1:,}", True


def _waiting_phrase(schedule: Schedule, waiting: OpsWaiting) -> str:
    """ "ops 3–5 wait for the compute units", every op named (a range, or one by one);
    past `LISTED_WAITING` out of order, their count and span: "412 ops between op 300
    and op 800 wait for …"."""
    if waiting.contiguous:
        who, plural = _op_range(waiting.first, waiting.last)
    elif waiting.ops is not None:
        who, plural = op_list(waiting.ops), len(waiting.ops) > 1
    elif waiting.first >= 0:
        span = f"op {waiting.first + 1:,} and op {waiting.last + 1:,}"
        who, plural = f"{waiting.count:,} ops between {span}", True
    else:
        who, plural = f"{waiting.count:,} ops", waiting.count > 1
    verb = "wait" if plural else "waits"
    if waiting.reason == "slot" and waiting.pool >= 0:
        what = f"a slot of {schedule.pools[waiting.pool].name}"
    elif waiting.reason == "slot":
        what = "a slot"
    else:
        unit = int(schedule.unit[schedule.task_of(0, waiting.stage)])
        title = schedule.unit_title(unit)
        many = title if _plural_noun(title) else f"{title}s"
        the = "" if title[-1:].isdigit() else "the "  # ("GPU 1", not "the GPU 1")
        what = f"{the}{title}" if schedule.workers[unit] == 1 else f"the {many}"
    text = f"{who} {verb} for {what}"
    if not waiting.contiguous and plural:
        text += f" (op {waiting.next_op + 1:,} goes next)"
    return text
