"""Nsight Systems: the SQLite export (``nsys export --type sqlite``) and the
``cuda_gpu_trace`` report as CSV (``nsys stats -r cuda_gpu_trace -f csv``).

SQLite: the tables ``CUPTI_ACTIVITY_KIND_KERNEL``, ``_MEMCPY`` and ``_MEMSET`` (any may be
missing), times in ns, ``deviceId``, ``streamId``, a copy's ``copyKind`` (CUPTI's enum,
`gpu.profile.activity.COPY_KINDS`) and, for peer copies, ``dstDeviceId`` or
``srcDeviceId``;
names through ``StringIds``. Read with the standard library's ``sqlite3``, read-only.

CSV: nsys prints lines before the header; the header holds ``Start`` and ``Name`` columns
(with their unit, "Start (ns)"), copies are named "[CUDA memcpy …]", memsets
"[CUDA memset]", and the device is "NVIDIA H200 (0)" or a number.
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from engine.base.errors import PipeLabError
from gpu.profile.activity import (
    COMPUTE,
    COPY_KINDS,
    Activity,
    ActivityColumns,
    copy_direction,
    copy_unit,
)

_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")
_TICKS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def read_nsys_sqlite(path: Path, source: str) -> Activity:
    """The GPU activity of an Nsight Systems SQLite export."""
    try:
        with _read_only(path) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            found = [t for t in _TABLES if t in tables]
            if not found:
                raise PipeLabError(
                    f"{source}: an SQLite file without Nsight Systems' CUPTI_ACTIVITY_KIND_"
                    "KERNEL, _MEMCPY or _MEMSET tables (export with nsys export --type sqlite)"
                )
            names = (
                dict(db.execute("SELECT id, value FROM StringIds")) if "StringIds" in tables else {}
            )
            columns = ActivityColumns()
            for table in found:
                _read_table(db, table, names, columns)
    except sqlite3.DatabaseError as error:
        raise PipeLabError(f"{source}: not a readable SQLite file ({error})") from None
    return columns.finished(1e-9)


class _read_only:
    """An SQLite connection to ``path`` that cannot write it, closed on exit."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)

    def __enter__(self) -> sqlite3.Connection:
        return self.connection

    def __exit__(self, *exc: object) -> None:
        self.connection.close()


def _columns_of(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _read_table(
    db: sqlite3.Connection, table: str, names: dict[int, str], columns: ActivityColumns
) -> None:
    have = _columns_of(db, table)
    if table.endswith("KERNEL"):
        name_column = next(
            (c for c in ("shortName", "demangledName", "mangledName") if c in have), None
        )
        select = f"start, end, deviceId, streamId, {name_column or 'NULL'}"
        for start, end, device, stream, name in db.execute(f"SELECT {select} FROM {table}"):
            label = names.get(name, str(name)) if name_column else "kernel"
            columns.add(device, stream, COMPUTE, start, end, label)
    elif table.endswith("MEMSET"):
        for start, end, device, stream in db.execute(
            f"SELECT start, end, deviceId, streamId FROM {table}"
        ):
            columns.add(device, stream, COMPUTE, start, end, "memset")
    else:
        peer = next((c for c in ("dstDeviceId", "srcDeviceId") if c in have), None)
        query = f"SELECT start, end, deviceId, streamId, copyKind, {peer or 'NULL'} FROM {table}"
        for start, end, device, stream, kind, other in db.execute(query):
            direction = COPY_KINDS.get(kind)
            # a peer copy lands here when its destination is this device (or its source
            # is another one)
            to_here = None if other is None else (other == device) == (peer == "dstDeviceId")
            label = f"memcpy {direction[0]}to{direction[1]}" if direction else "memcpy"
            columns.add(device, stream, copy_unit(direction, to_here), start, end, label)


def read_nsys_csv(text: str, source: str) -> Activity:
    """The GPU activity of an nsys ``cuda_gpu_trace`` CSV report."""
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if _is_header(line)), None)
    if header is None:
        raise PipeLabError(
            f"{source}: not a profile PipeLab reads (JSON trace, Nsight Systems SQLite, or "
            "nsys cuda_gpu_trace CSV with Start and Name columns)"
        )
    rows = csv.reader(io.StringIO("\n".join(lines[header:])))
    fields = next(rows)
    find = _finder(fields, source)
    start_at, start_unit = find("Start")
    duration_at, duration_unit = find("Duration")
    name_at, _ = find("Name")
    device_at, _ = find("Device")
    stream_at, _ = find("Strm", "Stream")
    columns = ActivityColumns()
    for number, row in enumerate(rows, start=header + 2):
        if not row or not "".join(row).strip():
            continue
        try:
            name = row[name_at]
            start = float(row[start_at]) * start_unit
            end = start + float(row[duration_at]) * duration_unit
            device, stream = _device_number(row[device_at]), int(row[stream_at])
        except (IndexError, ValueError):
            raise PipeLabError(f"{source}: line {number:,} is not a row of the report") from None
        columns.add(device, stream, _unit_of_row(name), start, end, name)
    return columns.finished(1.0)


def _is_header(line: str) -> bool:
    cells = [cell.strip().strip('"') for cell in line.split(",")]
    return any(c.startswith("Start") for c in cells) and "Name" in cells


def _finder(fields: list[str], source: str) -> Callable[..., tuple[int, float]]:
    """Finds a column by its name's first word; returns its index and its unit in s."""

    def find(*wanted: str) -> tuple[int, float]:
        for index, field in enumerate(fields):
            word, _, rest = field.strip().partition(" ")
            if word in wanted:
                unit = re.search(r"\((\w+)\)", rest)
                return index, _TICKS.get(unit.group(1), 1e-9) if unit else 1e-9
        raise PipeLabError(f"{source}: the report has no {wanted[0]} column")

    return find


def _device_number(cell: str) -> int:
    """ "NVIDIA H200 (0)" or "0": the device's number."""
    found = re.search(r"\((\d+)\)\s*$", cell)
    return int(found.group(1) if found else cell)


def _unit_of_row(name: str) -> int:
    lower = name.lower()
    if "memcpy" in lower:
        return copy_unit(copy_direction(name))
    return COMPUTE
