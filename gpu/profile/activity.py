"""What every profile format is read into: the GPU's activity, one entry per kernel, copy
or memset, in columns, and the rule that puts each on a unit.

The rule (the contract, also in docs/model.md): per device,

* **load** — copies into the device from outside it: host to device or array (pageable or
  pinned), unified memory host to device, peer-to-peer onto this device;
* **store** — copies out of it: device or array to host, unified device to host,
  peer-to-peer from this device;
* **compute** — kernels, memsets, and copies that stay on the device (device or array to
  device or array, unified device to device).

Host-to-host copies touch no device: they are counted and left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.model.schedule import UNITS

LOAD, COMPUTE, STORE = (UNITS.index(name) for name in ("load", "compute", "store"))
#: Not a unit: an activity left out (a host-to-host copy).
LEFT_OUT = -1

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Where a copy goes, by the letters of CUPTI's names: Host, Device, Array, Peer (a peer
#: copy is placed by its devices, `peer_unit`).
_PLACES = {"host": "H", "device": "D", "array": "A", "peer": "P", "pinned": "H", "pageable": "H"}
_LETTERS = re.compile(r"\b([HDAP])to([HDAP])\b")
_WORDS = re.compile(r"\b(host|device|array|peer)[- ]?to[- ]?(host|device|array|peer)\b", re.I)

#: CUPTI's memcpy kinds (``copyKind`` in an Nsight Systems export): 1 HtoD, 2 DtoH,
#: 3 HtoA, 4 AtoH, 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP; 11–13 unified memory
#: HtoD, DtoH, DtoD.
COPY_KINDS: dict[int, str] = {
    1: "HD", 2: "DH", 3: "HA", 4: "AH", 5: "AA", 6: "AD", 7: "DA", 8: "DD", 9: "HH",
    10: "PP", 11: "HD", 12: "DH", 13: "DD",
}  # fmt: skip


def copy_direction(name: str) -> str | None:
    """A copy's source and destination letters ("HD", "DH", "PP"…) from its name, in
    Kineto's form ("Memcpy HtoD (Pageable -> Device)") or Nsight Systems' ("[CUDA memcpy
    Host-to-Device]", "[CUDA memcpy Unified Device-to-Host]"); None if it names none."""
    found = _LETTERS.search(name)
    if found:
        return found.group(1) + found.group(2)
    words = _WORDS.search(name)
    if words:
        return _PLACES[words.group(1).lower()] + _PLACES[words.group(2).lower()]
    return None


def copy_unit(direction: str | None, to_this_device: bool | None = None) -> int:
    """The unit of a copy going ``direction`` ("HD", "DH"…). A copy whose file does not
    say where it goes (None) counts as load, as does a peer copy whose devices are not
    recorded; a peer copy is load when it lands on this device, store when it leaves it."""
    if direction is None:
        return LOAD
    source, target = direction[0], direction[1]
    if source == "P" or target == "P":
        return STORE if to_this_device is False else LOAD
    if source == "H" and target == "H":
        return LEFT_OUT
    if source == "H":
        return LOAD
    if target == "H":
        return STORE
    return COMPUTE


@dataclass
class ActivityColumns:
    """Activity as it is read, appended one entry at a time (a reader's scratch)."""

    device: list[int] = field(default_factory=list)
    stream: list[int] = field(default_factory=list)
    unit: list[int] = field(default_factory=list)
    start: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=list)
    name: list[int] = field(default_factory=list)
    names: dict[str, int] = field(default_factory=dict)

    def name_index(self, name: str) -> int:
        """The index of ``name`` in the names read so far (added when new)."""
        return self.names.setdefault(name, len(self.names))

    def add(self, device: int, stream: int, unit: int, start: float, end: float, name: str) -> None:
        self.device.append(device)
        self.stream.append(stream)
        self.unit.append(unit)
        self.start.append(start)
        self.end.append(end)
        self.name.append(self.name_index(name))

    def finished(self, seconds_per_tick: float) -> Activity:
        """The columns as an `Activity`, times in seconds (read in ticks of
        ``seconds_per_tick``: 1e-6 for µs, 1e-9 for ns) from the first start, which is
        ``base`` seconds on the file's clock. Ticks are taken from the first start before
        they are scaled: a clock of 1.7·10^15 µs since 1970 would keep 0.25 µs steps."""
        start = np.asarray(self.start, dtype=np.float64)
        end = np.asarray(self.end, dtype=np.float64)
        first = float(start.min()) if len(start) else 0.0
        return Activity(
            device=np.asarray(self.device, dtype=np.int64),
            stream=np.asarray(self.stream, dtype=np.int64),
            unit=np.asarray(self.unit, dtype=np.int64),
            start=(start - first) * seconds_per_tick,
            end=(end - first) * seconds_per_tick,
            base=first * seconds_per_tick,
            name=np.asarray(self.name, dtype=np.int64),
            names=tuple(self.names),
        )


@dataclass(frozen=True)
class Activity:
    """A profile's GPU activity: one entry per kernel, copy or memset, times in seconds
    from ``base`` on the file's own clock. ``unit`` is `LOAD`, `COMPUTE`, `STORE` or
    `LEFT_OUT`."""

    device: IntArray
    stream: IntArray
    unit: IntArray
    start: FloatArray
    end: FloatArray
    name: IntArray
    names: tuple[str, ...]
    base: float = 0.0

    def __len__(self) -> int:
        return len(self.device)

    def checked(self, source: str) -> Activity:
        """This activity, or a one-line error naming ``source`` when it has none on any
        device, or times that are not finite or run backwards."""
        kept = self.unit != LEFT_OUT
        if not kept.any():
            raise PipeLabError(f"{source}: no GPU activity (kernels, copies or memsets) in it")
        if not (np.isfinite(self.start).all() and np.isfinite(self.end).all()):
            raise PipeLabError(f"{source}: an activity's time is not a finite number")
        if (self.end < self.start).any():
            task = int(np.flatnonzero(self.end < self.start)[0])
            raise PipeLabError(f"{source}: {self.names[self.name[task]]!r} ends before it starts")
        return self

    @property
    def left_out(self) -> int:
        """How many activities no unit takes (host-to-host copies)."""
        return int((self.unit == LEFT_OUT).sum())

    def devices(self) -> list[int]:
        """The devices with activity on a unit, in order."""
        return sorted({int(d) for d in np.unique(self.device[self.unit != LEFT_OUT])})

    def on_device(self, device: int) -> Activity:
        """The activity of one device on a unit, in the order of its starts (then ends)."""
        keep = np.flatnonzero((self.device == device) & (self.unit != LEFT_OUT))
        keep = keep[np.lexsort((self.end[keep], self.start[keep]))]
        return Activity(
            device=self.device[keep],
            stream=self.stream[keep],
            unit=self.unit[keep],
            start=self.start[keep],
            end=self.end[keep],
            name=self.name[keep],
            names=self.names,
            base=self.base,
        )
