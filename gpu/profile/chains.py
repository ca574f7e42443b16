"""The what-if of an imported device: what a pipeline of the same work would take.

Always the bound: no overlap of these activities can finish before the busiest unit has
done its work, ``max(busy.load, busy.compute, busy.store)``. Where the trace's activities
form repeated **chains** — on one stream, copies in, then kernels, then copies out, in that
order — the chains are the ops of a scenario with the measured times (a chain's copies in
summed as its read, its kernels as its compute, its copies out as its write), each unit
as many workers as the trace ran its tasks at once (`most_at_once`), and the file's
number of streams that carry chains as buffer slots; the engine schedules it, and the
run goes beside the measured one on one clock. A trace records no dependencies: a chain
is an order on a stream, not a proof that the kernel read what the copy brought.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.base.validation import MAX_DURATION, MIN_DURATION
from engine.model.scenario import Scenario
from engine.model.schedule import UNITS, Schedule
from engine.model.scheduler import simulate
from gpu.profile.figures import DeviceFigures
from gpu.profile.idle import analysed
from gpu.profile.lanes import DeviceRun

LOAD, COMPUTE, STORE = (UNITS.index(name) for name in ("load", "compute", "store"))
IntArray = npt.NDArray[np.int64]

#: Fewer chains than this are no pipeline to speak of.
MIN_CHAINS = 2


@dataclass(frozen=True)
class WhatIf:
    """The bound, and where there are chains: how many, on how many streams, the span of
    the chained work as measured, and the engine's run of them (None without chains)."""

    bound: float
    chains: int
    streams: int
    measured: float
    pipelined: Schedule | None

    @property
    def saving(self) -> float:
        """The share of the measured chained span a pipeline would save (0 without one)."""
        if self.pipelined is None or self.measured <= 0:
            return 0.0
        return max(0.0, 1 - self.pipelined.makespan / self.measured)


@dataclass(frozen=True)
class Chain:
    """One chain's tasks (indices into the device's Schedule) and its three times."""

    tasks: tuple[int, ...]
    read: float
    compute: float
    write: float
    start: float
    end: float


def find_chains(run: DeviceRun) -> list[Chain]:
    """The chains of the device, in the order they start (see the module doc). A run that
    has ops of its own (PipeLab's trace) has them as its chains.

    Each stream's tasks are walked in start order across its units: a copy in opens a
    chain (or extends its copies in), kernels follow, copies out close it; anything out of
    that order drops the chain being built."""
    schedule = run.schedule
    if schedule.task_name is None and schedule.is_pipeline:
        per_op = schedule.op_task_index
        return [_chain(schedule, per_op[op]) for op in range(schedule.n_ops)]
    found: list[Chain] = []
    for tasks in _stream_tasks(run):
        found += _chains_on_stream(schedule, tasks)
    found.sort(key=lambda chain: (chain.start, chain.end))
    return found


def _stream_of_row(run: DeviceRun) -> IntArray:
    """The stream of each row (-1: a unit's empty lane)."""
    return np.array([s for held in run.streams for s in (held or (-1,))], dtype=np.int64)


def _stream_tasks(run: DeviceRun) -> list[IntArray]:
    """Each stream's tasks, in start order (then end)."""
    schedule = run.schedule
    stream = _stream_of_row(run)[schedule.row]
    order = np.lexsort((schedule.end, schedule.start, stream))
    bounds = np.flatnonzero(np.diff(stream[order])) + 1
    return np.split(order, bounds)


def _chains_on_stream(schedule: Schedule, tasks: IntArray) -> list[Chain]:
    chains: list[Chain] = []
    current: list[int] = []
    phase = -1  # the unit of the last task taken into the chain being built
    for task, kind in zip(tasks.tolist(), schedule.unit[tasks].tolist(), strict=True):
        if kind == LOAD and phase not in (-1, LOAD):
            if phase == STORE:
                chains.append(_chain(schedule, np.asarray(current)))
            current, phase = [], -1
        follows = kind == LOAD or (kind == COMPUTE and phase in (LOAD, COMPUTE))
        if follows or (kind == STORE and phase in (COMPUTE, STORE)):
            current.append(task)
            phase = kind
        else:
            current, phase = [], -1
    if phase == STORE:
        chains.append(_chain(schedule, np.asarray(current)))
    return chains


def _chain(schedule: Schedule, picked: IntArray) -> Chain:
    length = schedule.end[picked] - schedule.start[picked]
    units = schedule.unit[picked]
    return Chain(
        tasks=tuple(int(t) for t in picked),
        read=float(length[units == LOAD].sum()),
        compute=float(length[units == COMPUTE].sum()),
        write=float(length[units == STORE].sum()),
        start=float(schedule.start[picked].min()),
        end=float(schedule.end[picked].max()),
    )


def what_if(run: DeviceRun, figures: DeviceFigures) -> WhatIf:
    """The bound and, where the device has chains, the engine's pipeline of them."""
    bound = max(figures.busy[name] for name in UNITS)
    chains = find_chains(run)
    if len(chains) < MIN_CHAINS:
        return WhatIf(bound, len(chains), 0, 0.0, None)
    schedule = run.schedule
    if schedule.task_name is None:  # (PipeLab's own run: its own slots and workers)
        streams, workers = schedule.buffers, schedule.workers
    else:
        stream = _stream_of_row(run)
        streams = len({int(stream[schedule.rows_of(chain.tasks[0])]) for chain in chains})
        workers = tuple(most_at_once(schedule, unit) for unit in range(len(UNITS)))
    lengths = np.array([(c.read, c.compute, c.write) for c in chains])
    scale = _finer_unit(lengths)
    lengths = lengths * scale
    lengths[(lengths > 0) & (lengths < MIN_DURATION)] = MIN_DURATION
    scenario = Scenario(
        read=lengths[:, 0],
        compute=lengths[:, 1],
        write=lengths[:, 2],
        workers=(workers[0], workers[1], workers[2]),
        buffers=streams,
        name=f"{run.schedule.label}: a pipeline of its {len(chains)} chains",
    )
    simulated = simulate(scenario, "pipelined")
    if scale != 1.0:
        simulated = _in_unit(simulated, 1.0 / scale)
    pipelined = simulated.with_meta(
        label=f"a pipeline of the same work ({streams} slots)", time_unit=run.schedule.time_unit
    )
    measured = max(c.end for c in chains) - min(c.start for c in chains)
    return WhatIf(bound, len(chains), streams, measured, pipelined)


def _finer_unit(lengths: npt.NDArray[np.float64]) -> float:
    """The factor that puts every non-zero length at or above the engine's shortest
    duration (`engine.base.validation.MIN_DURATION`, a microsecond of a trace's seconds; copies
    and memsets often run shorter) without the longest passing `MAX_DURATION`: 1 where
    the lengths fit already, else up to 10^6 (microseconds of the trace's unit). What is
    still shorter (under 10^-12 s) is simulated as the shortest duration."""
    positive = lengths[lengths > 0]
    if not len(positive) or float(positive.min()) >= MIN_DURATION:
        return 1.0
    return min(1e6, MAX_DURATION / float(positive.max()))


def _in_unit(schedule: Schedule, factor: float) -> Schedule:
    """``schedule`` with every time multiplied by ``factor`` (back to the trace's unit)."""
    start, end = schedule.start * factor, schedule.end * factor
    grant = None if schedule.grant is None else schedule.grant * factor
    for column in (start, end, grant):
        if column is not None:
            column.flags.writeable = False
    return replace(schedule, start=start, end=end, grant=grant)


def most_at_once(schedule: Schedule, unit: int) -> int:
    """The most tasks of ``unit`` the trace ran at one time (at least 1): the workers the
    what-if gives the unit, as measured (two copy engines copying in at once, kernels of
    several streams sharing the SMs)."""
    picked = schedule.unit == unit
    starts, ends = schedule.start[picked], schedule.end[picked]
    if not len(starts):
        return 1
    times = np.concatenate([ends, starts])
    change = np.concatenate([np.full(len(ends), -1), np.full(len(starts), 1)])
    order = np.lexsort((change, times))  # (an end at t before a start at t)
    return max(1, int(np.cumsum(change[order]).max()))


def with_what_if(run: DeviceRun) -> list[Schedule]:
    """The device's measured lanes and, where it has chains, the engine's pipeline of them
    beside it: what a figure or the app shows of an imported device."""
    figures, _ = analysed(run)
    pipelined = what_if(run, figures).pipelined
    return [run.schedule] if pipelined is None else [run.schedule, pipelined]


def profile_runs(runs: Iterable[DeviceRun]) -> list[Schedule]:
    """Every device's lanes, each followed by its what-if where it has one: what a figure
    and the app show of a profile."""
    return [schedule for run in runs for schedule in with_what_if(run)]
