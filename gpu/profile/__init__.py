"""Profiles recorded elsewhere, imported: a PyTorch (Kineto) or Chrome trace, an Nsight
Systems SQLite export or ``cuda_gpu_trace`` CSV, or PipeLab's own trace — each device's
GPU activity as load, compute and store lanes (`gpu.profile.lanes`), with the figures of
`gpu.profile.figures` and the wait reasons of `gpu.profile.idle`.

The format is told by the content, not the suffix; a ``.gz`` of any of them is read too.
Anything else — empty, not JSON/SQLite/CSV, a truncated gzip, no GPU activity — is a
one-line `PipeLabError` naming the file. Pure Python and numpy (``sqlite3`` from the
standard library): no Qt, no CuPy.

Importing this package (as every `gpu.profile.lanes` import does: the app's Gantt asks
whether a run is a profile's) loads no reader: the readers, with json, gzip and sqlite3,
load when a file is read (`load_profile`), so the app's start-up does not pay for them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.base.errors import PipeLabError
from engine.base.validation import path_text
from engine.model.schedule import UNITS, Schedule

if TYPE_CHECKING:
    from gpu.profile.activity import Activity
    from gpu.profile.lanes import DeviceRun

FORMATS = ("kineto", "nsys-sqlite", "nsys-csv", "pipelab-trace")
_SQLITE = b"SQLite format 3\x00"
_GZIP = b"\x1f\x8b"


@dataclass(frozen=True)
class Profile:
    """An imported profile: its format, its devices in order, and how many activities no
    unit takes (host-to-host copies)."""

    format: str
    devices: tuple[DeviceRun, ...]
    left_out: int = 0

    def device(self, number: int) -> DeviceRun:
        for run in self.devices:
            if run.device == number:
                return run
        have = ", ".join(str(run.device) for run in self.devices)
        raise PipeLabError(f"--device {number}: the profile has device {have}")


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """The profile in the file at ``path``."""
    source = path_text(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise PipeLabError(f"{source}: cannot read it ({error.strerror or error})") from None
    compressed = raw.startswith(_GZIP)
    if compressed:
        raw = _gunzipped(raw, source)
    if not raw.strip():
        raise PipeLabError(f"{source}: the file is empty")
    if raw.startswith(_SQLITE):
        return _from_sqlite(raw if compressed else None, Path(path), source)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PipeLabError(
            f"{source}: not a profile PipeLab reads (a binary file that is not SQLite or gzip)"
        ) from None
    if text.lstrip()[:1] in ("{", "["):
        return _from_json(text, source)
    from gpu.profile.nsys import read_nsys_csv

    return _profile("nsys-csv", read_nsys_csv(text, source), source)


#: How much of a file `looks_like_profile` reads.
SNIFF_BYTES = 4096


def looks_like_profile(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` is one `load_profile` should read rather than a
    scenario (TOML), told by its first bytes: gzip or SQLite, a JSON object or array, or
    a CSV header with Start and Name columns. False when it cannot be read (the
    scenario loader then says why)."""
    try:
        with open(path, "rb") as file:
            head = file.read(SNIFF_BYTES)
    except OSError:
        return False
    if head.startswith((_GZIP, _SQLITE)):
        return True
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("{"):
        return True
    if text.startswith("["):  # a JSON array of events, not a TOML table ("[workers]")
        return text[1:].lstrip()[:1] in ("{", "]")
    first = next((line for line in text.splitlines() if "," in line), "")
    return "Start" in first and "Name" in first


def _gunzipped(raw: bytes, source: str) -> bytes:
    import gzip
    import zlib

    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as error:
        raise PipeLabError(f"{source}: a gzip file that cannot be read ({error})") from None


def _from_sqlite(gunzipped: bytes | None, path: Path, source: str) -> Profile:
    """An SQLite file, or the ``gunzipped`` content of one (written to a temporary file:
    sqlite3 reads files)."""
    import tempfile

    from gpu.profile.nsys import read_nsys_sqlite

    if gunzipped is None:
        return _profile("nsys-sqlite", read_nsys_sqlite(path, source), source)
    with tempfile.TemporaryDirectory(prefix="pipelab-") as folder:
        plain = Path(folder) / "profile.sqlite"
        plain.write_bytes(gunzipped)
        return _profile("nsys-sqlite", read_nsys_sqlite(plain, source), source)


def _from_json(text: str, source: str) -> Profile:
    import json

    from gpu.profile.kineto import read_kineto, trace_events
    from gpu.profile.pipelab_trace import is_pipelab_trace, read_pipelab_trace

    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise PipeLabError(
            f"{source}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise PipeLabError(f"{source}: not a trace (JSON nested too deeply)") from None
    if is_pipelab_trace(data):
        schedules = read_pipelab_trace(data, source)
        runs = tuple(_own_run(i, s, source) for i, s in enumerate(schedules))
        return Profile("pipelab-trace", runs)
    return _profile("kineto", read_kineto(trace_events(data, source), source), source)


def _own_run(number: int, schedule: Schedule, source: str) -> DeviceRun:
    """A PipeLab run read back: its own Schedule, every worker its own lane."""
    from gpu.profile.lanes import DeviceRun

    if schedule.unit_names != UNITS:
        raise PipeLabError(
            f"{source}: a PipeLab trace without load, compute and store units "
            f"({', '.join(schedule.unit_names)}): nothing to import"
        )
    streams = tuple(tuple(range(k)) for k in schedule.workers)
    return DeviceRun(number, schedule, 0.0, streams)


def _profile(format: str, activity: Activity, source: str) -> Profile:
    from gpu.profile.lanes import device_run

    activity = activity.checked(source)
    name = Path(source).name
    runs = tuple(
        device_run(activity, device, f"{name} · device {device}") for device in activity.devices()
    )
    return Profile(format, runs, activity.left_out)
