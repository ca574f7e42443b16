"""Pure functions of a Schedule: busy time, utilization, speedup, bottleneck, what binds the
steady state and the makespan's closed form. Those that read what is kept per Schedule
take its `engine.analysis.derived.Derived`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.base.text import time_text
from engine.base.tolerance import time_tolerance
from engine.model.schedule import STAGES, UNITS, Schedule
from engine.reasons.critical_path import ranked_charges

if TYPE_CHECKING:
    from engine.analysis.derived import Derived

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def measure_busy(schedule: Schedule) -> FloatArray:
    """Busy time of every worker, overlaps counted once (read-only): measured rows may
    overlap (several streams' kernels on the SMs), so the union of intervals counts."""
    order, bounds = schedule.by_row
    starts = schedule.row_starts
    if schedule.rows_disjoint:  # every task adds all of itself: row by row, no big copies
        added = None
    else:
        # A task adds only what reaches past everything before it on its row (the running
        # maximum of ends); a row's first task: all of it.
        reach, _ = schedule.row_reach
        added = np.empty(len(starts))
        added[1:] = reach[:-1]
        firsts = bounds[:-1][np.diff(bounds) > 0]
        added[firsts] = starts[firsts]
        np.maximum(starts, added, out=added)
        np.subtract(schedule.end[order], added, out=added)
        np.clip(added, 0, None, out=added)
    busy = np.zeros(schedule.n_workers)
    for row in range(schedule.n_workers):
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        if lo < hi:
            part = schedule.end[order[lo:hi]] - starts[lo:hi] if added is None else added[lo:hi]
            busy[row] = float(part.sum())
    busy.flags.writeable = False
    return busy


def utilization_by_worker(derived: Derived) -> FloatArray:
    """Busy time / makespan per worker, in [0, 1] (0 for an empty schedule)."""
    schedule = derived.schedule
    span = schedule.makespan
    return derived.busy_by_worker / span if span > 0 else np.zeros(schedule.n_workers)


def utilization_by_unit(derived: Derived) -> dict[str, float]:
    """Mean utilization of each unit's workers, keyed by unit name."""
    schedule = derived.schedule
    per_worker = utilization_by_worker(derived)
    offsets = schedule.worker_offsets
    return {
        name: float(per_worker[offsets[u] : offsets[u] + schedule.workers[u]].mean())
        for u, name in enumerate(schedule.unit_names)
    }


def speedup(baseline: Schedule, improved: Schedule) -> float:
    """How many times faster ``improved`` finishes than ``baseline``."""
    if improved.makespan <= 0:
        return float("inf") if baseline.makespan > 0 else 1.0
    return baseline.makespan / improved.makespan


@dataclass(frozen=True)
class Bottleneck:
    """The stage whose unit has the most work per worker: a lower bound on any makespan."""

    stage: str
    unit: str
    work_per_worker: float
    share: float  # work_per_worker / makespan: 1.0 means that unit never rests
    tied: tuple[str, ...] = ()  # every stage with that much work per worker (balanced if > 1)
    unit_title: str = ""  # how people call the unit: "load unit", "copy-in", "SMs"

    @property
    def summary(self) -> str:
        """e.g. "read (load unit)", or "none: read = compute = write" when balanced."""
        if len(self.tied) > 1:
            return "none: " + " = ".join(self.tied) + " (balanced)"
        return f"{self.stage} ({self.unit_title or self.unit + ' unit'})"


def bottleneck(derived: Derived) -> Bottleneck:
    schedule = derived.schedule
    work = derived.op_work if schedule.unit is schedule.stage and schedule.op_major else None
    if work is not None:  # each unit is a stage: its running sum in op order, kept
        per_unit: FloatArray = work.per_stage.copy()
    else:  # (bincount adds each unit's durations in task order, as np.add.at did)
        per_unit = np.bincount(
            schedule.unit, weights=schedule.duration, minlength=schedule.n_units
        ).astype(np.float64)
    load = per_unit / np.asarray(schedule.workers, dtype=float)
    unit = int(np.argmax(load))
    span = schedule.makespan
    units_are_stages = (
        len(schedule) > 0 and schedule.unit is schedule.stage and schedule.is_pipeline
    )

    def main_stage(u: int) -> str:
        if units_are_stages:  # every task of unit u is stage u
            return schedule.stage_names[u]
        tasks = schedule.stage[schedule.unit == u]
        return schedule.stage_names[int(np.bincount(tasks).argmax()) if len(tasks) else 0]

    tolerance = time_tolerance(float(load[unit]))
    tied = tuple(main_stage(int(u)) for u in np.flatnonzero(load >= load[unit] - tolerance))
    return Bottleneck(
        stage=main_stage(unit),
        unit=schedule.unit_names[unit],
        unit_title=schedule.unit_title(unit),
        work_per_worker=float(load[unit]),
        share=float(load[unit] / span) if span > 0 else 0.0,
        tied=tied,
    )


# -- what binds the steady state, and the makespan's closed form ---------------------------

#: The resources that can bind a pipeline's throughput (the contract's "resource" values).
RESOURCES: tuple[str, ...] = (*UNITS, "slots")
_STAGE_WORDS = dict(zip(UNITS, STAGES, strict=True))
#: A unit's work in all: "19 s of reads".
_WORK_WORDS = dict(zip(UNITS, ("reads", "compute", "writes"), strict=True))


@dataclass(frozen=True)
class SteadyState:
    """What limits a pipeline once it is full: each resource allows one op every read /
    k_load, compute / k_compute, write / k_store and (read + compute + write) / B (none with
    unlimited slots); the largest is the ``period`` (uneven ops: the mean over all ops).
    ``resource`` binds: "load" | "compute" | "store" | "slots", or "none" when two or more
    tie (balanced) or there is no work. ``why``: one sentence with the numbers.
    """

    resource: str
    period: float
    why: str
    periods: tuple[tuple[str, float], ...] = ()  # every resource's own period
    tied: tuple[str, ...] = ()
    identical: bool = True


@dataclass(frozen=True, eq=False)
class OpWork:
    """What the steady state and the closed form read from a pipeline's (n_ops, 3) stage
    durations, kept per Schedule (`Derived.op_work`; the durations are not: 24 MB at 10^6
    ops). Each number is the expression noted on the durations, to the bit."""

    n: int
    per_stage: FloatArray  # durations.sum(axis=0)
    column_sums: tuple[float, ...]  # float(durations[:, i].sum())
    total: float  # float(durations.sum())
    identical: bool
    first: FloatArray  # durations[0]
    hold_mean: float  # durations.sum(axis=1).mean()
    longest_op: float  # durations.sum(axis=1).max()
    median_positive: float  # the median positive task duration (1 when none)


def op_work(schedule: Schedule) -> OpWork | None:
    """`OpWork` of a three-stage pipeline on three units (None for other Schedules)."""
    if not len(schedule) or schedule.n_units != 3 or schedule.pools or not schedule.is_pipeline:
        return None  # (a pipeline shape's run: `_shape_state`)
    durations = schedule.op_ends - schedule.op_starts
    n = len(durations)
    # Column by column (numpy's reductions along an axis of length 3 are slow), with the
    # same arithmetic: a sum along axis 0 adds each column in order (a running sum), one
    # along axis 1 adds a row's three values left to right, ptp is max − min.
    columns = [durations[:, i] for i in range(durations.shape[1])]
    holds = np.add(columns[0], columns[1]) if len(columns) > 1 else columns[0].copy()
    for column in columns[2:]:
        holds += column
    margin = time_tolerance(float(durations.max(initial=0.0)))
    identical = all(float(c.max() - c.min()) <= margin for c in columns)
    scratch = np.empty(n)
    per_stage = []
    for column in columns:
        np.cumsum(column, out=scratch)
        per_stage.append(float(scratch[-1]))
    return OpWork(
        n=n,
        per_stage=np.array(per_stage),
        column_sums=tuple(float(c.sum()) for c in columns),
        total=float(durations.sum()),
        identical=identical,
        first=durations[0].copy(),
        hold_mean=float(holds.mean()),
        longest_op=float(holds.max()),
        median_positive=median_positive_in_place(durations.reshape(-1)),  # (last: it reorders them)
    )


def median_positive_in_place(durations: FloatArray) -> float:
    """The median of the positive ``durations`` (1 when none), partitioning them in place
    (the caller's own array): as ``np.median(durations[durations > 0])``."""
    positive = durations if bool((durations > 0).all()) else durations[durations > 0]
    n = len(positive)
    if not n:
        return 1.0
    # np.median partitions at both middles and at the end (its NaN check; none here: the
    # values are positive): one partition at the upper middle, then the lower middle is
    # the largest value below it; the same (low + high) / 2 np.median's mean computes.
    half = n // 2
    positive.partition(half)
    high = float(positive[half])
    if n % 2:
        return high
    return (float(positive[:half].max()) + high) / 2


def steady_state(derived: Derived) -> SteadyState:
    """The binding resource of a pipeline Schedule (simulated or measured), from its own
    stage times, worker counts and slots. Other Schedules: the unit with most work per
    worker."""
    schedule = derived.schedule
    sec = partial(time_text, unit=schedule.time_unit)
    work = derived.op_work
    if len(schedule) and (schedule.pools or (work is None and schedule.is_pipeline)):
        return _shape_state(schedule)  # (a pipeline of other stages, units or pools)
    if work is None:
        neck = bottleneck(derived) if len(schedule) else None
        if neck is None or neck.work_per_worker <= 0:
            return SteadyState("none", 0.0, "no work: nothing binds")
        period = neck.work_per_worker / max(schedule.n_ops, 1)
        why = f"the {neck.unit_title}: the most work per worker, {sec(neck.work_per_worker)}"
        return SteadyState(neck.unit, period, why, identical=False)
    n = work.n
    workers = np.asarray(schedule.workers, dtype=float)
    slots = schedule.buffers
    totals = list(work.per_stage / workers)
    names = list(RESOURCES[:3])
    if slots > 0:
        totals.append(work.total / slots)
        names.append("slots")
    periods = np.asarray(totals) / n
    top = float(periods.max())
    tolerance = time_tolerance(top)
    tied = tuple(name for name, p in zip(names, periods, strict=True) if p >= top - tolerance)
    identical = work.identical
    listed = tuple((name, float(p)) for name, p in zip(names, periods, strict=True))
    if top <= 0:
        return SteadyState("none", 0.0, "no op takes any time: nothing binds", listed, tied)
    if not identical:
        return _uneven_state(derived, work, names, periods)
    every = "one op every " + sec(top)
    if len(tied) > 1:
        words = " = ".join(_STAGE_WORDS.get(name, f"{slots} slots") for name in tied)
        why = f"none: {words}: each allows {every} (balanced)"
        return SteadyState("none", top, why, listed, tied, identical)
    (resource,) = tied
    index = names.index(resource)
    if resource == "slots":
        each = f"each op holds {'the only slot' if slots == 1 else 'one'} for {sec(work.hold_mean)}"
        why = f"buffer slots: {each}" + (f" and there are {slots}" if slots > 1 else "")
        why += f": {every}"
    else:
        stage = _STAGE_WORDS[resource]
        title = schedule.unit_title(index)
        k = schedule.workers[index]
        why = f"the {title}: each {stage} takes {sec(float(work.first[index]))}"
        why += f" on {k} workers: {every}" if k > 1 else f": {every}"
    return SteadyState(resource, top, why, listed, tied, identical)


def _shape_state(schedule: Schedule) -> SteadyState:
    """What binds a pipeline shape's run: each unit allows one op every (its work per op)
    / k, each pool of B slots one every (the time an op works while holding it) / B; the
    largest period binds (ties: balanced). Uneven ops: the same over all ops (a mean)."""
    t = schedule.time_unit
    n = max(schedule.n_ops, 1)
    durations = schedule.duration
    per_stage = np.bincount(schedule.stage, weights=durations, minlength=len(schedule.stage_names))
    per_unit = np.bincount(schedule.unit, weights=durations, minlength=schedule.n_units)
    names = list(schedule.unit_names)
    periods = list(per_unit / np.asarray(schedule.workers, dtype=float) / n)
    for pool in schedule.pools:
        if pool.size:
            names.append(pool.name)
            periods.append(float(per_stage[pool.first : pool.last + 1].sum()) / pool.size / n)
    listed = tuple((name, float(p)) for name, p in zip(names, periods, strict=True))
    top = max(periods)
    if top <= 0:
        return SteadyState("none", 0.0, "no op takes any time: nothing binds", listed)
    tied = tuple(name for name, p in listed if p >= top - time_tolerance(top))
    spread = np.ptp(durations.reshape(n, -1), axis=0) if schedule.op_major else durations
    identical = bool((spread <= time_tolerance(float(durations.max()))).all())
    every = f"one op every {time_text(top, t)}" + ("" if identical else " on average")
    mean = "" if identical else " on average"
    if len(tied) > 1:
        words = " = ".join(_resource_title(schedule, name) for name in tied)
        return SteadyState(
            "none", top, f"none: {words}: each allows {every} (balanced)", listed, tied, identical
        )
    (resource,) = tied
    if resource in schedule.unit_names:
        unit = schedule.unit_names.index(resource)
        stages = [
            i for i in range(len(per_stage)) if np.any(schedule.unit[schedule.stage == i] == unit)
        ]
        times = [(schedule.stage_names[i], time_text(float(per_stage[i]) / n, t)) for i in stages]
        if len(times) == 1:
            each = "each {} takes {}".format(*times[0])
        else:
            each = "each op's " + " + ".join(f"{stage} {time}" for stage, time in times)
        k = schedule.workers[unit]
        why = f"{schedule.unit_title(unit)}: {each}{mean}" + (f" on {k} workers" if k > 1 else "")
    else:
        pool = next(p for p in schedule.pools if p.name == resource)
        held = float(per_stage[pool.first : pool.last + 1].sum()) / n
        span = schedule.stage_names[pool.first]
        if pool.last != pool.first:
            span += f" to {schedule.stage_names[pool.last]}"
        which = "the only slot" if pool.size == 1 else f"one of {pool.size}"
        why = f"{pool.name}: each op holds {which} for {time_text(held, t)}{mean} ({span})"
    return SteadyState(resource, top, f"{why}: {every}", listed, tied, identical)


def _resource_title(schedule: Schedule, name: str) -> str:
    """A unit's title ("tensor cores") or a pool's name, for a sentence."""
    if name in schedule.unit_names:
        return schedule.unit_title(schedule.unit_names.index(name))
    return name


def _uneven_state(
    derived: Derived, work: OpWork, names: list[str], periods: FloatArray
) -> SteadyState:
    """Uneven ops: no one period holds, so what binds most of the time is what paces most
    of the run's critical path (`engine.reasons.critical_path`); its mean period is given too."""
    schedule = derived.schedule
    t = schedule.time_unit
    listed = tuple((name, float(p)) for name, p in zip(names, periods, strict=True))
    ranked = ranked_charges(derived.critical_charges)
    if not ranked:
        return SteadyState("none", 0.0, "no op takes any time: nothing binds", listed, (), False)
    top = ranked[0][1]
    tolerance = time_tolerance(schedule.makespan)
    tied = tuple(name for name, paced in ranked if paced >= top - tolerance)
    span = time_text(schedule.makespan, t)

    def title(name: str) -> str:
        return (
            "buffer slots" if name == "slots" else "the " + schedule.unit_title(names.index(name))
        )

    others = ", ".join(f"{title(name)} {time_text(paced, t)}" for name, paced in ranked[1:])
    path = f"along the critical path{': ' + others if others else ''}"
    if len(tied) > 1:
        words = " and ".join(title(name) for name in tied)
        why = f"none: {words} each pace {time_text(top, t)} of the {span} run ({path})"
        return SteadyState("none", top, why, listed, tied, False)
    resource = tied[0]
    period = float(periods[names.index(resource)]) if resource in names else 0.0
    every = f"one op every {time_text(period, t)} on average"
    if resource == "slots":
        head = "buffer slots bind most of the time: ops waiting on slot holds pace"
        which = "the only slot" if schedule.buffers == 1 else f"one of the {schedule.buffers} slots"
        mean = f"an op holds {which} for {time_text(work.hold_mean, t)} on average: {every}"
    else:
        index = names.index(resource)
        k = schedule.workers[index]
        head = f"{title(resource)} binds most of the time: it paces"
        workers = f" on {k} workers" if k > 1 else ""
        work_words = _WORK_WORDS[resource]
        mean = f"{time_text(work.column_sums[index], t)} of {work_words} in all{workers}: {every}"
    why = f"{head} {time_text(top, t)} of the {span} run ({path}); {mean}"
    return SteadyState(resource, period, why, listed, tied, False)


@dataclass(frozen=True)
class MakespanFormula:
    """The textbook closed form of a pipeline's makespan with its numbers, or why there is
    none. ``text``: "5 s = 3 s for the first op + 2 × 1 s", or "no closed form (uneven
    ops): at least 7.5 s". ``value``: the closed form's makespan (None without one).
    ``how``: the formula in symbols and why it holds."""

    text: str
    value: float | None
    how: str


def makespan_formula(derived: Derived) -> MakespanFormula | None:
    """The closed form for a pipeline Schedule's own stage times, workers and slots (None
    for other Schedules).

    Identical ops, one worker per unit, T = r + c + w, m = max(r, c, w), N ops, B slots:
    T + (N − 1)·m when the slots never bind (B = 0 or B·m ≥ T), else the ops go in rounds
    of B that each hold every slot for T: (⌊(N − 1)/B⌋ + 1)·T + ((N − 1) mod B)·m
    With one slot (sequential) every op runs alone, whatever the workers: Σ(r + c + w).
    Anything else has no closed form; the text then gives the bound no schedule can beat.
    """
    schedule, work = derived.schedule, derived.op_work
    if work is None:
        shape = len(schedule) and schedule.is_pipeline and schedule.source == "simulated"
        return _shape_formula(derived) if shape else None
    sec = partial(time_text, unit=schedule.time_unit)
    n, b = work.n, schedule.buffers
    if b == 1:  # one op at a time, whatever the workers: the sum of every op's time
        value = work.total
        if work.identical:
            text = f"{sec(value)} = {n:,} × {sec(value / n)}"
        else:
            text = f"{sec(value)} = the sum of every op's read + compute + write"
        return MakespanFormula(text, value, "Σ(r + c + w): one slot, so one op at a time.")
    several = [
        f"{k} {name} workers" for name, k in zip(RESOURCES, schedule.workers, strict=False) if k > 1
    ]
    if several or not work.identical:
        why = ", ".join(several) if several else "uneven ops"
        bound = _work_bound(schedule, work)
        return MakespanFormula(
            f"no closed form ({why}): at least {sec(bound)}",
            None,
            "The textbook formula needs identical ops and one worker per unit. No schedule "
            f"can finish before {sec(bound)}: the busiest resource's work (per worker, or "
            "per slot) or the longest op, whichever is larger.",
        )
    r, c, w = (float(v) for v in work.first)
    total, longest = r + c + w, max(r, c, w)
    if b == 0 or b * longest >= total - time_tolerance(total):
        value = total + (n - 1) * longest
        text = f"{sec(value)} = {sec(total)} for the " + (
            "only op" if n == 1 else f"first op + {n - 1:,} × {sec(longest)}"
        )
        how = (
            "(r + c + w) + (N − 1)·max(r, c, w): the first op takes read + compute + write; "
            "after it one op finishes every max(r, c, w), the longest stage"
        )
        how += "." if b == 0 else f" ({b} slots are enough: (r + c + w)/B ≤ max(r, c, w))."
        return MakespanFormula(text, value, how)
    rounds, rest = (n - 1) // b + 1, (n - 1) % b
    value = rounds * total + rest * longest
    text = f"{sec(value)} = {rounds:,} rounds × {sec(total)}"
    if rest:
        text += f" + {rest:,} × {sec(longest)}"
    how = (
        "(⌊(N − 1)/B⌋ + 1)·(r + c + w) + ((N − 1) mod B)·max(r, c, w): the slots bind "
        "((r + c + w)/B > max(r, c, w)), so the ops go in rounds of B, each holding every slot "
        "for read + compute + write; within a round they follow one another by the longest stage."
    )
    return MakespanFormula(text, value, how)


def _shape_formula(derived: Derived) -> MakespanFormula:
    """A pipeline shape's run: T₁ + (N − 1)·P (the first op, then one op every P, the
    period of what binds) where the run settles into P at once, as the presets' textbook
    forms do (the bubble (M + S − 1)·t, ping-pong's load + N·mma + epilogue); else no
    closed form and the bound no run can beat."""
    schedule = derived.schedule
    sec = partial(time_text, unit=schedule.time_unit)
    n = schedule.n_ops
    per_op = (schedule.op_ends - schedule.op_starts).sum(axis=1)
    state = steady_state(derived)
    period, first = state.period, float(per_op[0])
    bound = max(period * n, float(per_op.max()))
    value = first + (n - 1) * period
    makespan = schedule.makespan
    if not state.identical:
        why = "uneven ops"
    elif abs(value - makespan) > time_tolerance(makespan):
        why = f"the run does not settle at once into one op every {sec(period)}"
    else:
        text = f"{sec(value)} = {sec(first)} for the " + (
            "only op" if n == 1 else f"first op + {n - 1:,} × {sec(period)}"
        )
        how = (
            "T₁ + (N − 1)·P: the first op takes all its stages, then one op finishes every "
            "P, the period of what binds (" + state.why + "). For a pipeline shape this "
            "holds where the run settles into that period at once; PipeLab checks it against "
            "the run and says 'no closed form' where it does not."
        )
        return MakespanFormula(text, value, how)
    return MakespanFormula(
        f"no closed form ({why}): at least {sec(bound)}",
        None,
        f"T₁ + (N − 1)·P would be {sec(value)}: {why}. No schedule can finish before "
        f"{sec(bound)}: the busiest resource's work (per worker, or per slot) or the "
        "longest op, whichever is larger.",
    )


def _work_bound(schedule: Schedule, work: OpWork) -> float:
    """No schedule can finish before this: the busiest unit's work per worker, the longest op,
    and with B slots all the work over B, whichever is largest."""
    per_unit = work.per_stage / np.asarray(schedule.workers, dtype=float)
    bound = max(float(per_unit.max()), work.longest_op)
    if schedule.buffers > 0:
        bound = max(bound, work.total / schedule.buffers)
    return bound
