"""Kineto / Chrome trace JSON: what ``torch.profiler`` and ``export_chrome_trace`` write.

GPU activity is the complete events (``"ph": "X"``) whose ``cat`` is ``kernel``,
``gpu_memcpy`` or ``gpu_memset`` (older files: ``Kernel``, ``Memcpy``, ``Memset``; matched
without case). Everything else — CPU ops, runtime calls, flows, ``gpu_user_annotation``
spans on GPU rows, metadata — is not activity. Device: ``args.device``, else ``pid``;
stream: ``args.stream``, else ``tid``; ``ts`` and ``dur`` are µs and may be fractional.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.base.errors import PipeLabError
from gpu.profile.activity import COMPUTE, Activity, ActivityColumns, copy_direction, copy_unit

_KERNEL = frozenset({"kernel"})
_COPY = frozenset({"gpu_memcpy", "memcpy"})
_SET = frozenset({"gpu_memset", "memset"})
_ACTIVITY = _KERNEL | _COPY | _SET
#: Keys Kineto may use for a peer copy's destination device.
_DESTINATION_KEYS = ("dst device", "dstDevice", "dst_device")


def trace_events(data: Any, source: str) -> list[Any]:
    """The events of a Chrome trace: ``{"traceEvents": [...]}`` or a bare list."""
    events = data.get("traceEvents") if isinstance(data, Mapping) else data
    if not isinstance(events, list):
        raise PipeLabError(f"{source}: a JSON file but not a trace (no traceEvents list)")
    return events


def read_kineto(events: Iterable[Any], source: str) -> Activity:
    """The GPU activity of a Kineto or Chrome trace's events."""
    columns = ActivityColumns()
    for number, event in enumerate(events, start=1):
        if not isinstance(event, Mapping) or event.get("ph") != "X":
            continue
        category = event.get("cat")
        if not isinstance(category, str) or category.lower() not in _ACTIVITY:
            continue
        try:
            _add(columns, event, category.lower())
        except (TypeError, ValueError, OverflowError) as error:
            raise PipeLabError(f"{source}: event {number:,}: {error}") from None
    return columns.finished(1e-6)


def _add(columns: ActivityColumns, event: Mapping[str, Any], category: str) -> None:
    args = event.get("args")
    args = args if isinstance(args, Mapping) else {}
    device = _id(args.get("device", event.get("pid")), "device")
    stream = _id(args.get("stream", event.get("tid")), "stream")
    start = _number(event.get("ts"), "ts")
    end = start + _number(event.get("dur", 0.0), "dur")
    name = str(event.get("name", category))
    if category in _COPY:
        destination = next((args[k] for k in _DESTINATION_KEYS if k in args), None)
        to_here = None if destination is None else _id(destination, "dst device") == device
        unit = copy_unit(copy_direction(name), to_here)
    else:
        unit = COMPUTE
    columns.add(device, stream, unit, start, end, name)


def _id(value: Any, what: str) -> int:
    """A device or stream id: an integer, or a string holding one."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"no {what} (args.{what} or its pid/tid)")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(f"its {what} {str(value)[:40]!r} is not a number")


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"its {what} is not a number")
    return float(value)
