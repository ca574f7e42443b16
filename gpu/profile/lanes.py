"""An imported device as a `Schedule`: every activity a task on its unit, every stream a
worker (a lane of the Gantt), time 0 the device's first activity.

The three units are the pipeline's (load, compute, store); a unit's workers are the
streams that ran work on it, in stream order ("load · stream 7"); a unit no stream used
keeps one empty lane so that every figure has its three rows. Ops are the tasks in the
order they start (a trace records no ops; `gpu.profile.chains` finds them where it can),
each task the stage of its unit ("copy in", "compute", "copy out").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.model.schedule import UNITS, Schedule
from gpu.profile.activity import Activity

#: The stage of each unit's tasks in an imported run.
STAGES = ("copy in", "compute", "copy out")


def is_profile_schedule(schedule: Schedule) -> bool:
    """Whether ``schedule`` is an imported device's lanes (its rows are streams, its idle
    reasons `gpu.profile.idle`'s)."""
    return schedule.stage_names == STAGES and schedule.unit_names == UNITS


@dataclass(frozen=True)
class DeviceRun:
    """One device of a profile: its Schedule, where its time 0 is on the file's clock
    (``origin``, s), and the stream of each worker of each unit (empty: no stream)."""

    device: int
    schedule: Schedule
    origin: float
    streams: tuple[tuple[int, ...], ...]


def device_run(activity: Activity, device: int, label: str) -> DeviceRun:
    """The lanes of ``device`` in ``activity`` (which has activity on it)."""
    mine = activity.on_device(device)
    origin = float(mine.start.min())
    streams = tuple(
        tuple(int(s) for s in np.unique(mine.stream[mine.unit == unit]))
        for unit in range(len(UNITS))
    )
    worker = np.zeros(len(mine), dtype=np.int64)
    for unit, held in enumerate(streams):
        on_unit = mine.unit == unit
        worker[on_unit] = np.searchsorted(np.asarray(held, dtype=np.int64), mine.stream[on_unit])
    titles = tuple(
        f"{name} · stream {stream}" if held else f"{name} · no stream"
        for name, held in zip(UNITS, streams, strict=True)
        for stream in (held or (None,))
    )
    schedule = Schedule(
        op=np.arange(len(mine), dtype=np.int64),
        stage=mine.unit,
        unit=mine.unit,
        worker=worker,
        start=mine.start - origin,
        end=mine.end - origin,
        workers=tuple(max(1, len(held)) for held in streams),
        n_ops=len(mine),
        policy="measured",
        source="measured",
        label=label,
        stage_names=STAGES,
        row_titles=titles,
        task_name=mine.name,
        names=mine.names,
    )
    return DeviceRun(device, schedule, mine.base + origin, streams)
