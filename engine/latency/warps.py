"""Warp latency hiding: how one SM pipelines its warps, simulated as a `Schedule`.

Model (docs/model.md, "The warp model", binding): one SM, W warps, one issue unit. Each warp
loops: C cycles of compute, which need the issue unit, then a memory load of latency L
cycles (any number in flight), then again. When the issue unit is free it goes to the ready
warp that became ready first (ties: lower warp index); every warp is ready at cycle 0. A
warp keeps the issue unit for its whole C-cycle burst. The run lasts T cycles; tasks still
going at T are cut there.

The timeline is an ordinary `Schedule` in cycles: units ``("warp", "issue")`` with workers
``(W, 1)`` (a row per warp, then the issue unit), stages ``("compute", "memory")``, op =
warp index. A warp row holds its bursts and loads, so a gap on it is time the warp is
*ready but not picked* (idle to the generic views); the issue unit's row repeats each burst.

`simulate_warps_reference` is the rule in code (a heap ordered by (ready cycle, warp));
`simulate_warps` is vectorized and equal (tests check it): loads all take L cycles, so warps
become ready in issue order, round-robin, and burst n (warp n mod W) starts at
``max(start[n-1] + C, start[n-W] + C + L)``, which solves to ``n·C + floor(n / W)·max(0, D)``
with D = C + L − W·C.

Steady-state issue-unit utilization is min(1, W·C / (C + L)); the knee, the fewest warps
that hide the latency, is W = (C + L) / C.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis.timeline import workers_at
from engine.base.errors import PipeLabError
from engine.base.text import join_words, time_text
from engine.base.tolerance import time_tolerance
from engine.base.validation import whole_number
from engine.model.columns import frozen
from engine.model.schedule import Schedule

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

UNIT_NAMES: tuple[str, ...] = ("warp", "issue")
STAGE_NAMES: tuple[str, ...] = ("compute", "memory")
WARP_UNIT, ISSUE_UNIT = 0, 1
COMPUTE, MEMORY = 0, 1

#: Limits (inclusive). Every burst is three tasks: a million bursts are about 150 MB.
MAX_WARPS = 1024
MAX_CYCLES = 10_000_000
MAX_COMPUTE = 100_000
MAX_LATENCY = 1_000_000
MAX_BURSTS = 1_000_000


@dataclass(frozen=True)
class WarpConfig:
    """One SM's workload: ``warps`` warps, ``compute`` cycles of issue per burst, memory
    ``latency`` cycles per load, a run of ``cycles`` cycles. Validated on creation."""

    warps: int = 4
    compute: int = 10
    latency: int = 40
    cycles: int = 400

    def __post_init__(self) -> None:
        limits = (
            ("warps", 1, MAX_WARPS),
            ("compute", 1, MAX_COMPUTE),
            ("latency", 0, MAX_LATENCY),
            ("cycles", 1, MAX_CYCLES),
        )
        for name, low, high in limits:
            unit = "warps" if name == "warps" else "cycles"
            value = whole_number(getattr(self, name), name, low, high, unit)
            object.__setattr__(self, name, value)
        if self.max_bursts > MAX_BURSTS:
            raise PipeLabError(
                f"{self.cycles:,} cycles of {self.compute}-cycle bursts is up to "
                f"{self.max_bursts:,} bursts, more than {MAX_BURSTS:,}: "
                "use fewer cycles or more compute per burst"
            )

    @property
    def max_bursts(self) -> int:
        """Bursts that fit in the run if the issue unit never rests (an upper bound)."""
        return math.ceil(self.cycles / self.compute)

    @property
    def period(self) -> int:
        """Cycles between a warp's bursts in steady state: max(W·C, C + L)."""
        return max(self.warps * self.compute, self.compute + self.latency)

    @property
    def warm_up(self) -> int:
        """Cycles until every warp has issued once and its first load has come back."""
        return self.warps * self.compute + self.latency

    @property
    def analytic_utilization(self) -> float:
        return float(analytic_utilization(self.warps, self.compute, self.latency))

    @property
    def knee(self) -> float:
        return knee_warps(self.compute, self.latency)


def analytic_utilization(warps: npt.ArrayLike, compute: float, latency: float) -> Any:
    """Steady-state issue-unit utilization min(1, W·C / (C + L)); vectorizes over warps."""
    result = np.minimum(1.0, np.asarray(warps, dtype=np.float64) * compute / (compute + latency))
    return float(result) if np.ndim(result) == 0 else result


def knee_warps(compute: float, latency: float) -> float:
    """W = (C + L) / C: from this many warps on, the issue unit never waits for memory."""
    return (compute + latency) / compute


# -- the run -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class WarpRun:
    """A simulated run: its configuration, its timeline and, per burst in issue order, the
    warp, the cycle it became ready and the cycle it started."""

    config: WarpConfig
    schedule: Schedule
    burst_warp: IntArray
    burst_ready: FloatArray
    burst_start: FloatArray

    @cached_property
    def burst_end(self) -> FloatArray:
        return np.minimum(self.burst_start + self.config.compute, self.config.cycles)

    @property
    def utilization(self) -> float:
        """Issue-unit busy cycles / run cycles, over the whole run (warm-up included)."""
        return self.utilization_between(0, self.config.cycles)

    def utilization_between(self, start: float, end: float) -> float:
        """Issue-unit busy fraction of the window [start, end)."""
        if end <= start:
            raise PipeLabError("a utilization window must end after it starts")
        busy = np.clip(
            np.minimum(self.burst_end, end) - np.maximum(self.burst_start, start), 0, None
        )
        return float(busy.sum() / (end - start))

    @property
    def steady_state_utilization(self) -> float | None:
        """Utilization after the warm-up over the whole periods the run holds (None: none)."""
        config = self.config
        periods = (config.cycles - config.warm_up) // config.period
        if periods < 1:
            return None
        return self.utilization_between(config.warm_up, config.warm_up + periods * config.period)

    @property
    def headline(self) -> str:
        """The run in a line: "issue unit busy 80.0% (model 80.0%); knee W = 5" (steady-state
        busy where the run has it)."""
        steady = self.steady_state_utilization
        busy = self.utilization if steady is None else steady
        config = self.config
        return (
            f"issue unit busy {busy:.1%} (model {config.analytic_utilization:.1%}); "
            f"knee W = {config.knee:.3g}"
        )


def ready_intervals(run: WarpRun) -> tuple[IntArray, FloatArray, FloatArray]:
    """Stalls as (warp, start, end) intervals, cut at the run's end: exactly the gaps on
    the warp rows of ``run.schedule`` ("ready, not picked")."""
    config = run.config
    waited = run.burst_start > run.burst_ready
    warps = [run.burst_warp[waited]]
    starts = [run.burst_ready[waited]]
    ends = [run.burst_start[waited]]
    # A warp that became ready again before the end but never got the issue unit back.
    last = np.full(config.warps, -1, dtype=np.int64)
    last[run.burst_warp] = np.arange(len(run.burst_warp))
    issued = last >= 0
    again = np.where(
        issued, run.burst_start[np.maximum(last, 0)] + config.compute + config.latency, 0.0
    )
    pending = again < config.cycles
    warps.append(np.flatnonzero(pending))
    starts.append(again[pending])
    ends.append(np.full(int(pending.sum()), float(config.cycles)))
    return np.concatenate(warps), np.concatenate(starts), np.concatenate(ends)


def burst_starts(config: WarpConfig, n: IntArray) -> FloatArray:
    """Start cycle of bursts ``n`` (issue order): ``n·C + floor(n / W)·max(0, C + L − W·C)``."""
    extra = max(0, config.compute + config.latency - config.warps * config.compute)
    starts: FloatArray = (n * config.compute + (n // config.warps) * extra).astype(np.float64)
    return starts


def burst_count(config: WarpConfig) -> int:
    """How many bursts start before the run ends (starts rise with n: a binary search)."""
    extra = max(0, config.compute + config.latency - config.warps * config.compute)
    low, high = 0, config.max_bursts  # burst `high` never starts in time
    while low < high:
        middle = (low + high) // 2  # (`burst_starts` in Python ints: no array a step)
        if middle * config.compute + (middle // config.warps) * extra < config.cycles:
            low = middle + 1
        else:
            high = middle
    return low


def bursts_between(config: WarpConfig, low: int, high: int) -> Bursts:
    """Bursts ``low`` .. ``high`` - 1 (issue order): a warp is ready at 0, then C + L after
    its previous burst (burst n − W) started."""
    c, latency, w = config.compute, config.latency, config.warps
    n = np.arange(low, high, dtype=np.int64)
    ready = np.where(n >= w, burst_starts(config, np.maximum(n - w, 0)) + c + latency, 0.0)
    return Bursts.of(config, n % w, ready, burst_starts(config, n))


@dataclass(frozen=True)
class Bursts:
    """Bursts in issue order (warp, ready, start, end cycle) and the loads that follow them
    within the run (warp, start, end); ends cut at the run's end."""

    warp: IntArray
    ready: FloatArray
    start: FloatArray
    end: FloatArray
    load_warp: IntArray
    load_start: FloatArray
    load_end: FloatArray

    @classmethod
    def of(cls, config: WarpConfig, warp: IntArray, ready: FloatArray, start: FloatArray) -> Bursts:
        """The bursts that start at ``start``, with their ends and loads."""
        c, latency, t = config.compute, config.latency, config.cycles
        has_load = (start + c < t) if latency > 0 else np.zeros(len(start), dtype=bool)
        load_start = start[has_load] + c
        end = np.minimum(start + c, t)
        return cls(
            warp, ready, start, end, warp[has_load], load_start, np.minimum(load_start + latency, t)
        )

    def tasks(self) -> tuple[IntArray, IntArray, IntArray, IntArray, FloatArray, FloatArray]:
        """Their tasks (op, stage, unit, worker, start, end): bursts and loads on the warp
        rows, then the bursts again on the issue unit's row."""
        n, m = len(self.start), len(self.load_start)
        op = np.concatenate([self.warp, self.load_warp, self.warp])
        stage = np.concatenate([np.full(n, COMPUTE), np.full(m, MEMORY), np.full(n, COMPUTE)])
        unit = np.concatenate([np.full(n + m, WARP_UNIT), np.full(n, ISSUE_UNIT)])
        worker = np.concatenate([self.warp, self.load_warp, np.zeros(n, dtype=np.int64)])
        start = np.concatenate([self.start, self.load_start, self.start])
        end = np.concatenate([self.end, self.load_end, self.end])
        return op, stage, unit, worker, start, end


def _bursts_to_run(config: WarpConfig, bursts: Bursts) -> WarpRun:
    op, stage, unit, worker, starts, ends = bursts.tasks()
    order = np.lexsort((worker, unit, starts))
    schedule = Schedule(
        op=op[order],
        stage=stage[order],
        unit=unit[order],
        worker=worker[order],
        start=starts[order],
        end=ends[order],
        workers=(config.warps, 1),
        n_ops=config.warps,
        policy="oldest ready first",
        source="simulated",
        time_unit="cycles",
        label=f"{config.warps} warps, C = {config.compute}, L = {config.latency}",
        unit_names=UNIT_NAMES,
        stage_names=STAGE_NAMES,
        unit_titles=("warp", "issue unit"),
    )
    return WarpRun(
        config,
        schedule,
        frozen(bursts.warp, np.int64),
        frozen(bursts.ready, np.float64),
        frozen(bursts.start, np.float64),
    )


def simulate_warps(config: WarpConfig) -> WarpRun:
    """Simulate ``config`` (vectorized; equal to `simulate_warps_reference`)."""
    return _bursts_to_run(config, bursts_between(config, 0, burst_count(config)))


def simulate_warps_reference(config: WarpConfig) -> WarpRun:
    """The rule event by event: the free issue unit takes the earliest (ready, warp) off a
    heap; that warp is ready again C + L cycles after it started."""
    c, latency, t = config.compute, config.latency, config.cycles
    queue = [(0, k) for k in range(config.warps)]
    free_at = 0
    warps: list[int] = []
    readies: list[int] = []
    starts: list[int] = []
    while True:
        ready, warp = heapq.heappop(queue)
        start = max(ready, free_at)
        if start >= t:
            break
        warps.append(warp)
        readies.append(ready)
        starts.append(start)
        free_at = start + c
        heapq.heappush(queue, (start + c + latency, warp))
    bursts = Bursts.of(
        config,
        np.array(warps, dtype=np.int64),
        np.array(readies, dtype=np.float64),
        np.array(starts, dtype=np.float64),
    )
    return _bursts_to_run(config, bursts)


def utilization_curve(
    compute: int, latency: int, warps: npt.ArrayLike, periods: int = 40
) -> FloatArray:
    """Simulated steady-state utilization per warp count (same C, L), each run its warm-up
    plus ``periods`` periods."""
    values = []
    for w in np.asarray(warps, dtype=np.int64).reshape(-1).tolist():
        probe = WarpConfig(warps=w, compute=compute, latency=latency, cycles=1)
        cycles = min(MAX_CYCLES, probe.warm_up + periods * probe.period)
        cycles = min(cycles, MAX_BURSTS * compute)
        run = simulate_warps(WarpConfig(w, compute, latency, cycles))
        steady = run.steady_state_utilization
        values.append(run.utilization if steady is None else steady)
    return np.array(values, dtype=np.float64)


# -- the state at an instant, and what changes there ---------------------------------------


class WarpPhase(IntEnum):
    """What a warp is doing at an instant."""

    READY = 0  # ready, but another warp holds the issue unit (a stall)
    COMPUTING = 1  # holds the issue unit
    MEMORY = 2  # its load is in flight
    WINDOW_ENDED = 3  # the simulated window is over (warps loop forever: none finishes)


PHASE_WORDS = {
    WarpPhase.READY: "ready, not picked",
    WarpPhase.COMPUTING: "computing",
    WarpPhase.MEMORY: "waiting for memory",
    WarpPhase.WINDOW_ENDED: "still running",  # (the issue unit's row: "window ended")
}


@dataclass(frozen=True, eq=False)
class WarpSnapshot:
    """The SM at cycle ``time``, per warp: ``phase`` (`WarpPhase`), ``fraction`` into its
    burst or load, ``ready_since`` (NaN unless READY); ``issuing``: the warp holding the
    issue unit, or -1."""

    time: float
    phase: IntArray
    fraction: FloatArray
    ready_since: FloatArray
    issuing: int

    @property
    def loads_in_flight(self) -> int:
        return int((self.phase == WarpPhase.MEMORY).sum())

    @property
    def ready_count(self) -> int:
        return int((self.phase == WarpPhase.READY).sum())


def _check(schedule: Schedule) -> int:
    """The warp count of a warp-model Schedule, or PipeLabError for any other Schedule."""
    if schedule.unit_names != UNIT_NAMES or schedule.stage_names != STAGE_NAMES:
        raise PipeLabError("this timeline is not a warp-model run (units warp and issue)")
    return schedule.workers[WARP_UNIT]


def warp_state_at(schedule: Schedule, time: float) -> WarpSnapshot:
    """Every warp's phase and the issue unit's holder at ``time`` (tasks run on [start,
    end); from the window's end every warp is WINDOW_ENDED: warps loop forever)."""
    warps = _check(schedule)
    state = workers_at(schedule, time)
    stage = state.stage[:warps]
    phase = np.where(
        stage == COMPUTE, WarpPhase.COMPUTING, np.where(stage == MEMORY, WarpPhase.MEMORY, 0)
    ).astype(np.int64)
    ready_since = np.where(stage < 0, state.idle_since[:warps], np.nan)
    if len(schedule) and time >= schedule.makespan:
        phase[:] = WarpPhase.WINDOW_ENDED
        ready_since[:] = np.nan
    issuing = int(state.op[warps])
    return WarpSnapshot(float(time), phase, state.fraction[:warps].copy(), ready_since, issuing)


def _names(warps: list[int]) -> str:
    names = [str(k + 1) for k in warps]
    if len(names) == 1:
        return f"warp {names[0]}"
    return "warps " + join_words(
        names if len(names) <= 4 else [*names[:3], f"{len(names) - 3} more"]
    )


def narrate_warps(schedule: Schedule, time: float) -> str:
    """What happens on the SM at cycle ``time``: "cycle 40: warp 2 stalls on memory; the
    SM switches to warp 3, ready for 10 cycles" (warps count from 1)."""
    warps = _check(schedule)
    tolerance = time_tolerance(schedule.makespan)
    head = f"cycle {time_text(time, 'cycles').split(' ')[0]}: "  # ("1,234")
    at = np.abs(schedule.start - time) <= tolerance
    ends_now = (np.abs(schedule.end - time) <= tolerance) & (schedule.end > schedule.start)
    issue = schedule.unit == ISSUE_UNIT
    on_warp = schedule.unit == WARP_UNIT
    memory = schedule.stage == MEMORY
    if len(schedule) and time >= schedule.makespan - tolerance:
        busy = float((schedule.end - schedule.start)[issue].sum())
        share = busy / schedule.makespan if schedule.makespan > 0 else 0.0
        return head + f"the run ends; the issue unit was busy {share:.0%} of the time"
    snapshot = warp_state_at(schedule, time)
    starter = np.flatnonzero(issue & at & (schedule.end > schedule.start))
    finished = sorted(schedule.op[np.flatnonzero(issue & ends_now)].tolist())
    stalls = set(schedule.op[np.flatnonzero(on_warp & memory & at)].tolist())
    returned = sorted(schedule.op[np.flatnonzero(on_warp & memory & ends_now)].tolist())
    parts: list[str] = []
    for warp in finished:
        verb = "stalls on memory" if warp in stalls else "ends its burst"
        parts.append(f"{_names([warp])} {verb}")
    if len(starter):
        warp = int(schedule.op[starter[0]])
        rows = np.flatnonzero(
            on_warp & (schedule.worker == warp) & (schedule.end <= time + tolerance)
        )
        since = float(schedule.end[rows].max()) if len(rows) else 0.0
        waited = time - since
        if time <= tolerance:
            ready = f"all {warps} warps are ready" if warps > 1 else "the one warp is ready"
            parts.append(f"{ready}; the SM issues from {_names([warp])}")
        elif finished == [warp]:
            parts.append(f"{_names([warp])} is the only one ready and issues again")
        elif finished:
            text = f"the SM switches to {_names([warp])}"
            parts.append(
                text + (f", ready for {time_text(waited, 'cycles')}" if waited > tolerance else "")
            )
        else:
            parts.append(f"{_names([warp])}'s load returns; the idle SM issues from it at once")
        returned = [k for k in returned if k != warp]
    elif finished:
        parts.append(
            f"no warp is ready, so the issue unit idles ({snapshot.loads_in_flight} of "
            f"{warps} loads in flight)"
        )
    if returned:
        verb = "gets its data and waits" if len(returned) == 1 else "get their data and wait"
        parts.append(f"{_names(returned)} {verb} for the issue unit")
    if parts:
        return head + "; ".join(parts)
    if snapshot.issuing >= 0:
        text = f"{_names([snapshot.issuing])} computes"
    else:
        text = "the issue unit idles"
    return head + (
        f"{text}; {snapshot.loads_in_flight} loads in flight, {snapshot.ready_count} warps ready"
    )
