"""Writers of Schedules: the contract's JSON and Chrome Trace Event JSON (Perfetto)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from engine.metrics import speedup, utilization_by_unit
from engine.schedule import Schedule

_TIME_TO_MICROSECONDS = {"s": 1e6, "ms": 1e3, "us": 1.0, "µs": 1.0, "ns": 1e-3, "cycles": 1.0}


def _number(value: float) -> float | int:
    """Whole numbers as ints (5 rather than 5.0); others rounded to 12 significant digits so
    binary noise (1201.8000000000227) doesn't reach the file."""
    rounded = float(f"{value:.12g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def schedule_to_dict(schedule: Schedule, baseline: Schedule | None = None) -> dict[str, Any]:
    """The contract's JSON object for one Schedule (``speedup`` against ``baseline``)."""
    tasks = [
        {
            "op": int(op),
            "stage": schedule.stage_names[stage],
            "unit": schedule.unit_names[unit],
            "worker": int(worker),
            "start": _number(start),
            "end": _number(end),
        }
        for op, stage, unit, worker, start, end in zip(
            schedule.op.tolist(),
            schedule.stage.tolist(),
            schedule.unit.tolist(),
            schedule.worker.tolist(),
            schedule.start.tolist(),
            schedule.end.tolist(),
            strict=True,
        )
    ]
    data: dict[str, Any] = {
        "policy": schedule.policy,
        "source": schedule.source,
        "time_unit": schedule.time_unit,
        "makespan": _number(schedule.makespan),
        "ops": schedule.n_ops,
        "buffers": schedule.buffers,
        "workers": dict(zip(schedule.unit_names, schedule.workers, strict=True)),
        "tasks": tasks,
        "utilization": {k: _number(v) for k, v in utilization_by_unit(schedule).items()},
    }
    if baseline is not None:
        data["speedup"] = _number(speedup(baseline, schedule))
    return data


def to_json(schedule: Schedule, baseline: Schedule | None = None) -> str:
    return json.dumps(schedule_to_dict(schedule, baseline), indent=1)


def both_to_json(sequential: Schedule, pipelined: Schedule) -> str:
    """``{"sequential": {...}, "pipelined": {...}, "speedup"}`` for ``--policy both``."""
    data = {
        "sequential": schedule_to_dict(sequential),
        "pipelined": schedule_to_dict(pipelined, baseline=sequential),
        "speedup": _number(speedup(sequential, pipelined)),
    }
    return json.dumps(data, indent=1)


def trace_events(schedules: list[Schedule]) -> list[dict[str, Any]]:
    """Chrome Trace Event objects: one process per Schedule, one thread (tid) per worker so
    that no two events on a track overlap, names as metadata events, times in µs."""
    events: list[dict[str, Any]] = []
    for pid, schedule in enumerate(schedules, start=1):
        scale = _TIME_TO_MICROSECONDS.get(schedule.time_unit, 1.0)
        title = schedule.label or schedule.policy
        events.append(
            {
                "name": "process_name",
                "ph": "M",
                "pid": pid,
                "tid": 0,
                "args": {"name": f"{title} ({schedule.source})"},
            }
        )
        events.append(
            {
                "name": "process_sort_index",
                "ph": "M",
                "pid": pid,
                "tid": 0,
                "args": {"sort_index": pid},
            }
        )
        for row in range(schedule.n_workers):
            events.append(
                {
                    "name": "thread_name",
                    "ph": "M",
                    "pid": pid,
                    "tid": row + 1,
                    "args": {"name": schedule.row_label(row)},
                }
            )
            events.append(
                {
                    "name": "thread_sort_index",
                    "ph": "M",
                    "pid": pid,
                    "tid": row + 1,
                    "args": {"sort_index": row},
                }
            )
        order = np.lexsort((schedule.row, schedule.start))
        for task in order.tolist():
            op = int(schedule.op[task])
            stage = schedule.stage_names[schedule.stage[task]]
            start = float(schedule.start[task])
            events.append(
                {
                    "name": f"op {op + 1} {stage}",
                    "cat": stage,
                    "ph": "X",
                    "ts": round(start * scale, 3),
                    "dur": round((float(schedule.end[task]) - start) * scale, 3),
                    "pid": pid,
                    "tid": int(schedule.row[task]) + 1,
                    "args": {
                        "op": op,
                        "stage": stage,
                        "unit": schedule.unit_names[schedule.unit[task]],
                        "worker": int(schedule.worker[task]),
                    },
                }
            )
    return events


def to_trace(schedules: list[Schedule]) -> str:
    """Chrome Trace Event JSON (object form) that opens in Perfetto and chrome://tracing."""
    return json.dumps({"traceEvents": trace_events(schedules), "displayTimeUnit": "ms"})
