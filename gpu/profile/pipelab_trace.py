"""PipeLab's own Chrome trace (``simulate --format trace``, measured runs) read back into
the Schedules it was written from: ops, stages, units and workers from each event's
``args``, the rest from ``otherData.pipelab`` (`engine.analysis.writers.trace_metadata`).

Tasks come back in (op, stage) order — the order a simulation makes them in; times to the
12 significant digits the trace keeps. Grant times are not in a trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.analysis.writers import TIME_TO_MICROSECONDS, TRACE_KEY
from engine.base.errors import PipeLabError
from engine.model.schedule import Schedule


def is_pipelab_trace(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("otherData"), Mapping)
        and (TRACE_KEY in data["otherData"])
    )


def read_pipelab_trace(data: Mapping[str, Any], source: str) -> list[Schedule]:
    """The Schedules of a PipeLab trace, one per process, in process order."""
    runs = data["otherData"][TRACE_KEY]
    if not isinstance(runs, list) or not runs:
        raise PipeLabError(f"{source}: otherData.{TRACE_KEY} does not list PipeLab's runs")
    events: dict[int, list[Mapping[str, Any]]] = {pid: [] for pid in range(1, len(runs) + 1)}
    for event in data.get("traceEvents", []):
        if isinstance(event, Mapping) and event.get("ph") == "X" and event.get("pid") in events:
            events[event["pid"]].append(event)
    try:
        return [_schedule(meta, events[pid]) for pid, meta in enumerate(runs, start=1)]
    except (KeyError, TypeError, ValueError) as error:
        raise PipeLabError(f"{source}: not a trace PipeLab wrote ({error!s:.80})") from None


def _schedule(meta: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Schedule:
    units, stages = list(meta["units"]), list(meta["stages"])
    scale = TIME_TO_MICROSECONDS.get(meta["time_unit"], 1.0)
    args = [event["args"] for event in events]
    op = np.array([a["op"] for a in args], dtype=np.int64)
    stage = np.array([stages.index(a["stage"]) for a in args], dtype=np.int64)
    order = np.lexsort((stage, op))
    ts = np.array([event["ts"] for event in events], dtype=np.float64)
    dur = np.array([event["dur"] for event in events], dtype=np.float64)
    titles = meta.get("row_titles")
    return Schedule(
        op=op[order],
        stage=stage[order],
        unit=np.array([units.index(a["unit"]) for a in args], dtype=np.int64)[order],
        worker=np.array([a["worker"] for a in args], dtype=np.int64)[order],
        start=(ts / scale)[order],
        end=((ts + dur) / scale)[order],
        workers=tuple(meta["workers"]),
        n_ops=int(meta["ops"]),
        policy=str(meta["policy"]),
        source=str(meta["source"]),
        time_unit=str(meta["time_unit"]),
        buffers=int(meta["buffers"]),
        label=str(meta["label"]),
        unit_names=tuple(units),
        stage_names=tuple(stages),
        unit_titles=None if meta.get("unit_titles") is None else tuple(meta["unit_titles"]),
        row_titles=None if titles is None else tuple(titles),
    )
