"""An imported profile for people (a table) and for scripts (the contract's JSON).

JSON: ``{"format", "devices": [{"device", "time_unit", "origin", "makespan", "busy",
"breakdown", "headroom", "copies_hidden", "workers", "tasks", "idle", "bottleneck", "what_if"}]}`` —
tasks and idle spans written a chunk at a time, so 10^6 events take bounded memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from engine.analysis.writers import CHUNK, Write, json_number, object_body
from engine.base.text import count_words, time_text
from engine.model.schedule import UNITS
from gpu.profile import Profile
from gpu.profile.chains import WhatIf, what_if
from gpu.profile.figures import PARTS, DeviceFigures
from gpu.profile.idle import IMPORTED_REASONS, ImportedIdle, analysed
from gpu.profile.lanes import DeviceRun

_TASK = '{"name": %s, "unit": %s, "stream": %d, "start": %.12g, "end": %.12g%s}'
_IDLE = '{"unit": %s, "stream": %d, "start": %.12g, "end": %.12g, "reason": %s%s}'
#: Words for the parts of the makespan, in the table.
PART_WORDS = {
    "compute_only": "compute, no copy running",
    "overlapped": "compute while a copy runs",
    "copy_only": "copies, no compute running",
    "idle": "nothing running",
}


def what_if_fields(found: WhatIf) -> dict[str, Any]:
    """The what-if for JSON: the bound, and the pipeline of the chains where there are."""
    fields: dict[str, Any] = {"bound": json_number(found.bound), "chains": found.chains}
    if found.pipelined is not None:
        fields |= {
            "slots": found.streams,
            "workers": dict(zip(UNITS, found.pipelined.workers, strict=True)),
            "measured": json_number(found.measured),
            "pipelined": json_number(found.pipelined.makespan),
        }
    return fields


def what_if_line(found: WhatIf, figures: DeviceFigures, unit: str) -> str:
    """The what-if in a sentence: "measured 812 ms · a pipeline of the same work 640 ms
    (21% headroom)", or that only the bound applies and why."""
    if found.pipelined is None:
        return (
            f"no copy-in → kernel → copy-out chains on a stream ({found.chains} found): only "
            f"the bound applies, {time_text(found.bound, unit)} (the busiest unit's work)"
        )
    slots = "unlimited slots" if found.streams == 0 else count_words(found.streams, "slot")
    return (
        f"measured {time_text(found.measured, unit)} · a pipeline of the same work "
        f"{time_text(found.pipelined.makespan, unit)} ({found.saving:.0%} headroom; "
        f"{found.chains:,} chains as ops, {slots}); copies {figures.copies_hidden:.0%} "
        f"hidden; {time_text(figures.breakdown['idle'], unit)} with the GPU idle"
    )


def write_profile_json(write: Write, profile: Profile) -> None:
    write(f'{{\n "format": {json.dumps(profile.format)},\n "devices": [')
    for number, run in enumerate(profile.devices):
        write(("," if number else "") + "\n  {\n")
        _write_device(write, run)
        write("\n  }")
    write("\n ]\n}\n")


def _write_device(write: Write, run: DeviceRun) -> None:
    figures, idle = analysed(run)
    schedule = run.schedule
    head: dict[str, Any] = {
        "device": run.device,
        "time_unit": schedule.time_unit,
        "origin": json_number(run.origin),
        "makespan": json_number(figures.makespan),
        "busy": {k: json_number(v) for k, v in figures.busy.items()},
        "breakdown": {k: json_number(figures.breakdown[k]) for k in PARTS},
        "headroom": json_number(figures.headroom),
        "copies_hidden": json_number(figures.copies_hidden),
        "workers": {u: list(s) for u, s in zip(UNITS, run.streams, strict=True)},
    }
    inner, line = "   ", "\n    "
    write(object_body(head, inner) + f',\n{inner}"tasks": [')
    for number, text in enumerate(_task_lines(run)):
        write(("," if number else "") + line + text)
    write(f'\n{inner}],\n{inner}"idle": [')
    for number, text in enumerate(_idle_lines(run, idle)):
        write(("," if number else "") + line + text)
    neck = figures.bottleneck
    tail = {
        "bottleneck": {"resource": neck.resource, "busy": json_number(neck.busy), "why": neck.why},
        "what_if": what_if_fields(what_if(run, figures)),
    }
    write(f"\n{inner}],\n" + object_body(tail, inner))


def _task_lines(run: DeviceRun) -> Iterator[str]:
    schedule = run.schedule
    units = [json.dumps(name) for name in schedule.unit_names]
    names = [json.dumps(name) for name in schedule.names]
    stages = [json.dumps(name) for name in schedule.stage_names]
    own = schedule.task_name is None  # (a PipeLab trace: ops and stages are its own)
    name_column = schedule.stage if schedule.task_name is None else schedule.task_name
    for lo in range(0, len(schedule), CHUNK):
        part = slice(lo, lo + CHUNK)
        columns = zip(
            schedule.op[part].tolist(),
            schedule.stage[part].tolist(),
            schedule.unit[part].tolist(),
            schedule.worker[part].tolist(),
            schedule.start[part].tolist(),
            schedule.end[part].tolist(),
            name_column[part].tolist(),
            strict=True,
        )
        yield ",\n    ".join(
            _TASK
            % (
                f'"op {op + 1} {stages[stage][1:-1]}"' if own else names[name],
                units[unit],
                _stream(run, unit, worker),
                start,
                end,
                f', "op": {op}, "stage": {stages[stage]}' if own else "",
            )
            for op, stage, unit, worker, start, end, name in columns
        )


def _stream(run: DeviceRun, unit: int, worker: int) -> int:
    return run.streams[unit][worker]


def _idle_lines(run: DeviceRun, idle: ImportedIdle) -> Iterator[str]:
    schedule = run.schedule
    offsets = schedule.worker_offsets
    reasons = [json.dumps(name) for name in IMPORTED_REASONS]
    for lo in range(0, len(idle), CHUNK):
        part = slice(lo, lo + CHUNK)
        rows = zip(
            idle.row[part].tolist(),
            idle.start[part].tolist(),
            idle.end[part].tolist(),
            idle.reason[part].tolist(),
            idle.task[part].tolist(),
            strict=True,
        )
        lines = []
        for row, start, end, reason, task in rows:
            unit = int(offsets.searchsorted(row, side="right") - 1)
            awaited = "" if task < 0 else f', "copy": {json.dumps(_task_label(run, task))}'
            lines.append(
                _IDLE
                % (
                    json.dumps(schedule.unit_names[unit]),
                    _stream(run, unit, row - int(offsets[unit])),
                    start,
                    end,
                    reasons[reason],
                    awaited,
                )
            )
        yield ",\n    ".join(lines)


def _task_label(run: DeviceRun, task: int) -> str:
    schedule = run.schedule
    title = schedule.task_title(task)
    if title is not None:
        return title
    return f"op {int(schedule.op[task]) + 1} {schedule.stage_names[schedule.stage[task]]}"


def profile_table(profile: Profile) -> str:
    """Per device: the lanes, the busy times, the breakdown, the headroom, the bottleneck."""
    blocks = [f"format       {profile.format}"]
    if profile.left_out:
        blocks[0] += f" ({profile.left_out:,} host-to-host copies left out: no device in them)"
    for run in profile.devices:
        blocks.append(_device_block(run))
    return "\n\n".join(blocks)


def _device_block(run: DeviceRun) -> str:
    figures, idle = analysed(run)
    unit = run.schedule.time_unit
    makespan = figures.makespan

    def share(value: float) -> str:
        return f"{time_text(value, unit):>10}  {value / makespan:>4.0%}" if makespan > 0 else "0"

    lines = [f"device {run.device}   {len(run.schedule):,} activities, {time_text(makespan, unit)}"]
    for name, streams in zip(UNITS, run.streams, strict=True):
        lanes = ", ".join(str(s) for s in streams) or "none"
        lines.append(f"  {name:<8} busy {share(figures.busy[name])}   streams {lanes}")
    lines.append(f"  {'any':<8} busy {share(figures.busy['any'])}")
    lines.append("  breakdown")
    for part in PARTS:
        lines.append(f"    {PART_WORDS[part]:<28} {share(figures.breakdown[part])}")
    lines.append(f"  copies hidden under compute  {figures.copies_hidden:.0%}")
    lines.append(
        f"  headroom     {time_text(figures.headroom, unit)}: what perfect overlap of this "
        "work could save at most"
    )
    waits = ", ".join(
        f"{reason} {time_text(idle.total(reason), unit)}" for reason in IMPORTED_REASONS[:3]
    )
    lines.append(f"  lanes idle   {waits} (summed over lanes)")
    lines.append(f"  bottleneck   {figures.bottleneck.why}")
    lines.append(f"  what if      {what_if_line(what_if(run, figures), figures, unit)}")
    return "\n".join(lines)
