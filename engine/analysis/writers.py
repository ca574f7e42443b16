"""Writers of Schedules: the contract's JSON and Chrome Trace Event JSON (Perfetto).

Both stream: tasks and idle spans are formatted a chunk at a time from the numpy columns
and handed to ``write`` (a file's, a StringIO's), so 10^6 ops take seconds and bounded
memory, not one Python dict per task.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis.derived import Derived
from engine.analysis.metrics import speedup, steady_state, utilization_by_unit
from engine.model.schedule import Schedule
from engine.reasons.pool_waits import pool_use
from engine.reasons.waits import IDLE_REASONS

Write = Callable[[str], Any]

TIME_TO_MICROSECONDS = {"s": 1e6, "ms": 1e3, "us": 1.0, "µs": 1.0, "ns": 1e-3, "cycles": 1.0}
#: Tasks formatted per chunk.
CHUNK = 65_536
#: Times keep 12 significant digits: binary noise (1201.8000000000227) stays out of files.
_TASK = '{"op": %d, "stage": %s, "unit": %s, "worker": %d, "start": %.12g, "end": %.12g}'
_IDLE = '{"unit": %s, "worker": %d, "start": %.12g, "end": %.12g, "reason": %s, "ops": [%s]}'
_EVENT = (
    '{"name": %s, "cat": %s, "ph": "X", "ts": %.12g, "dur": %.12g, "pid": %d, '
    '"tid": %d, "args": {"op": %d, "stage": %s, "unit": %s, "worker": %d}}'
)


def json_number(value: float) -> float | int:
    """Whole numbers as ints (5 rather than 5.0); others rounded to 12 significant digits."""
    rounded = float(f"{value:.12g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def _summary(derived: Derived, baseline: Schedule | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The contract's fields before "tasks", and those after it (the idle spans go between
    "utilization" and "bottleneck")."""
    schedule = derived.schedule
    head: dict[str, Any] = {
        "policy": schedule.policy,
        "source": schedule.source,
        "time_unit": schedule.time_unit,
        "makespan": json_number(schedule.makespan),
        "ops": schedule.n_ops,
        "buffers": schedule.buffers,
        "workers": dict(zip(schedule.unit_names, schedule.workers, strict=True)),
    }
    neck = steady_state(derived)
    if schedule.pools:  # a pipeline shape's: each with the period it alone would allow
        periods = dict(neck.periods)
        head["pools"] = [
            {
                "name": pool.name,
                "size": pool.size,
                "from": schedule.stage_names[pool.first],
                "to": schedule.stage_names[pool.last],
                "period": json_number(periods.get(pool.name, 0.0)),
            }
            for pool in schedule.pools
        ]
        # How the run used each: the most slots held at once, the mean over the
        # makespan, and the time ops waited for a slot, all ops together.
        for entry, use in zip(head["pools"], pool_use(schedule), strict=False):
            entry["peak_in_use"] = use.peak
            entry["mean_in_use"] = json_number(use.mean)
            entry["waited"] = json_number(use.waited)
    tail: dict[str, Any] = {
        "utilization": {k: json_number(v) for k, v in utilization_by_unit(derived).items()},
        "bottleneck": {
            "resource": neck.resource,
            "period": json_number(neck.period),
            "why": neck.why,
        },
    }
    if baseline is not None:
        tail["speedup"] = json_number(speedup(baseline, schedule))
    return head, tail


def write_tasks(
    write: Write,
    chunks: Iterable[Sequence[tuple[Any, ...]]],
    stage_names: Sequence[str],
    unit_names: Sequence[str],
    line: str,
) -> None:
    """Tasks as the contract's JSON objects, each after ``line`` (a newline and an indent),
    comma-separated, without the brackets; ``chunks`` gives them a chunk at a time, each
    task a row (op, stage, unit, worker, start, end) of Python numbers."""
    stages = [json.dumps(name) for name in stage_names]
    units = [json.dumps(name) for name in unit_names]
    first = True
    for chunk in chunks:
        if not chunk:
            continue
        text = ("," + line).join(
            _TASK % (op, stages[stage], units[unit], worker, start, end)
            for op, stage, unit, worker, start, end in chunk
        )
        write(("" if first else ",") + line + text)
        first = False


def _task_chunks(
    schedule: Schedule, order: npt.NDArray[np.int64] | None = None
) -> Iterator[list[tuple[int, int, int, int, float, float]]]:
    for lo in range(0, len(schedule), CHUNK):
        index = slice(lo, lo + CHUNK) if order is None else order[lo : lo + CHUNK]
        yield list(
            zip(
                schedule.op[index].tolist(),
                schedule.stage[index].tolist(),
                schedule.unit[index].tolist(),
                schedule.worker[index].tolist(),
                schedule.start[index].tolist(),
                schedule.end[index].tolist(),
                strict=True,
            )
        )


def object_body(fields: dict[str, Any], indent: str) -> str:
    """``fields`` as the inside of a JSON object (no braces), one key per line."""
    return ",\n".join(f"{indent}{json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items())


def write_json(
    write: Write, schedule: Schedule, baseline: Schedule | None = None, indent: str = ""
) -> None:
    """The contract's JSON object for one Schedule (``speedup`` against ``baseline``).
    What it derives from the Schedule (idle spans, utilization) is its own, for this
    write (`Derived`)."""
    derived = Derived(schedule)
    head, tail = _summary(derived, baseline)
    inner = indent + " "
    write("{\n" + object_body(head, inner) + f',\n{inner}"tasks": [')
    line = f"\n{inner} "
    write_tasks(write, _task_chunks(schedule), schedule.stage_names, schedule.unit_names, line)
    utilization = {"utilization": tail.pop("utilization")}
    write(f"\n{inner}],\n" + object_body(utilization, inner) + f',\n{inner}"idle": [')
    _write_idle(write, derived, line)
    write(f"\n{inner}],\n" + object_body(tail, inner) + f"\n{indent}}}")


def _write_idle(write: Write, derived: Derived, line: str) -> None:
    """The idle spans, a chunk at a time: unit, worker, start, end, reason, ops (0-based)."""
    schedule, spans = derived.schedule, derived.idle_spans
    units = [json.dumps(name) for name in schedule.unit_names]
    reasons = [json.dumps(name) for name in IDLE_REASONS]
    for lo in range(0, len(spans), CHUNK):
        hi = min(lo + CHUNK, len(spans))
        rows = zip(
            spans.unit[lo:hi].tolist(),
            spans.worker[lo:hi].tolist(),
            spans.start[lo:hi].tolist(),
            spans.end[lo:hi].tolist(),
            spans.reason[lo:hi].tolist(),
            spans.ops_lists(lo, hi),
            strict=True,
        )
        text = ("," + line).join(
            _IDLE % (units[u], w, a, b, reasons[r], ", ".join(map(str, ops)))
            for u, w, a, b, r, ops in rows
        )
        write(("" if lo == 0 else ",") + line + text)


def write_both_json(write: Write, sequential: Schedule, pipelined: Schedule) -> None:
    """``{"sequential": {...}, "pipelined": {...}, "speedup"}`` for ``--policy both``."""
    write('{\n "sequential": ')
    write_json(write, sequential, indent=" ")
    write(',\n "pipelined": ')
    write_json(write, pipelined, baseline=sequential, indent=" ")
    write(f',\n "speedup": {json.dumps(json_number(speedup(sequential, pipelined)))}\n}}')


def _metadata(schedules: list[Schedule]) -> list[dict[str, Any]]:
    """Process and thread names (and sort hints) as ``ph: "M"`` events."""
    events: list[dict[str, Any]] = []
    for pid, schedule in enumerate(schedules, start=1):
        title = schedule.label or schedule.policy
        events += [
            {"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
             "args": {"name": f"{title} ({schedule.source})"}},
            {"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0,
             "args": {"sort_index": pid}},
        ]  # fmt: skip
        for row in range(schedule.n_workers):
            events += [
                {"name": "thread_name", "ph": "M", "pid": pid, "tid": row + 1,
                 "args": {"name": schedule.row_label(row)}},
                {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": row + 1,
                 "args": {"sort_index": row}},
            ]  # fmt: skip
    return events


#: The key in a trace's ``otherData`` under which PipeLab keeps what its events do not say
#: (a run's time unit, workers, names): reading it back gives the same Schedule.
TRACE_KEY = "pipelab"


def trace_metadata(schedule: Schedule) -> dict[str, Any]:
    """What a trace keeps of a Schedule beside its events (``otherData.pipelab``)."""
    return {
        "time_unit": schedule.time_unit,
        "policy": schedule.policy,
        "source": schedule.source,
        "buffers": schedule.buffers,
        "label": schedule.label,
        "ops": schedule.n_ops,
        "workers": list(schedule.workers),
        "units": list(schedule.unit_names),
        "stages": list(schedule.stage_names),
        "unit_titles": None if schedule.unit_titles is None else list(schedule.unit_titles),
        "row_titles": None if schedule.row_titles is None else list(schedule.row_titles),
    }


def write_trace(write: Write, schedules: list[Schedule]) -> None:
    """Chrome Trace Event JSON for Perfetto: a process per Schedule, a thread per worker (no
    two events on a track overlap), times in µs, events named "op 1 read" (ops from 1) or
    the task's own name; ``args.op`` is 0-based; ``otherData.pipelab``: `trace_metadata`."""
    other = json.dumps({TRACE_KEY: [trace_metadata(s) for s in schedules]})
    write(f'{{"displayTimeUnit": "ms", "otherData": {other}, "traceEvents": [\n')
    write(",\n".join(json.dumps(event) for event in _metadata(schedules)))
    for pid, schedule in enumerate(schedules, start=1):
        scale = TIME_TO_MICROSECONDS.get(schedule.time_unit, 1.0)
        stages = [json.dumps(name) for name in schedule.stage_names]
        units = [json.dumps(name) for name in schedule.unit_names]
        offsets = schedule.worker_offsets.tolist()
        order = np.lexsort((schedule.row, schedule.start))
        for lo, chunk in zip(
            range(0, len(schedule), CHUNK), _task_chunks(schedule, order), strict=True
        ):
            titles = _event_names(schedule, order[lo : lo + CHUNK], chunk)
            text = ",\n".join(
                _EVENT
                % (
                    title,
                    stages[stage],
                    start * scale,
                    (end - start) * scale,
                    pid,
                    offsets[unit] + worker + 1,
                    op,
                    stages[stage],
                    units[unit],
                    worker,
                )
                for title, (op, stage, unit, worker, start, end) in zip(titles, chunk, strict=True)
            )
            write(",\n" + text)
    write("\n]}\n")


def _event_names(
    schedule: Schedule,
    tasks: npt.NDArray[np.int64],
    chunk: list[tuple[int, int, int, int, float, float]],
) -> list[str]:
    """The JSON-quoted event names of a chunk of tasks: their own names, else "op 1 read"."""
    if schedule.task_name is not None:
        quoted = [json.dumps(name) for name in schedule.names]
        return [quoted[i] for i in schedule.task_name[tasks].tolist()]
    inner = [json.dumps(name)[1:-1] for name in schedule.stage_names]  # (escaped, unquoted)
    return [f'"op {op + 1} {inner[stage]}"' for op, stage, *_ in chunk]


def _collect(produce: Callable[[Write], None]) -> str:
    buffer = io.StringIO()
    produce(buffer.write)
    return buffer.getvalue()


def schedule_to_dict(schedule: Schedule, baseline: Schedule | None = None) -> dict[str, Any]:
    """The contract's JSON object as a dict (for callers that add fields of their own)."""
    data: dict[str, Any] = json.loads(to_json(schedule, baseline))
    return data


def to_json(schedule: Schedule, baseline: Schedule | None = None) -> str:
    return _collect(lambda write: write_json(write, schedule, baseline))


def to_trace(schedules: list[Schedule]) -> str:
    return _collect(lambda write: write_trace(write, schedules))
