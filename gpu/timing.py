"""The one CUDA-event timer of gpu/: N back-to-back launches between one event pair.

Timing one launch per event pair puts the host's argument packing and ``cuLaunchKernel``
inside the timed window, a bias of several per cent for a kernel of ~100 µs. Here the
events bracket ``launches`` calls queued back to back on one stream, and the window is
divided by ``launches``: at least `MIN_LAUNCHES` of them, and enough for the window to last
`MIN_WINDOW_MS` (at most `MAX_LAUNCHES`).

Before the begin event the timer queues a short busy wait (gpu/kernels/spin.cu, at least
`SPIN_MS`, longer where queueing N launches takes the host longer). The host queues all N
launches while the device spins, so the window opens on a full queue: it times the
device's own work, launch-to-launch, and never the host's submission rate nor the first
launch's latency. After queueing, the timer asks whether the begin event has already
passed; if it has, the device caught up with the host inside the window, and the window
is counted in `Timing.host_bound_windows` (printed with the figures).

Every experiment times with `EventTimer`; experiment 1's per-stage events (which become a
Schedule, not a duration) are read with `elapsed_from`, also here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gpu.cuda_source import load_module

#: Launches per event pair: at least this many ...
MIN_LAUNCHES = 20
#: ... and enough for the window between the events to last this long.
MIN_WINDOW_MS = 2.0
#: An upper bound on launches per window. A stream holds about 1,000 pending launches
#: before cuLaunchKernel blocks the host (NVIDIA forums, "CUDA stream are blocked when
#: launch lots of kernels (>1000)"); past that the host would feed the window at its own
#: rate. 512 leaves room for the spin and the events.
MAX_LAUNCHES = 512
#: Device time of back-to-back work before a sweep, so clocks have ramped up.
WARMUP_MS = 100.0

#: The busy wait before every window: at least this long ...
SPIN_MS = 1.0
#: ... and this many times what queueing the window's launches took the host last time ...
SPIN_HOST_FACTOR = 1.5
#: ... but never longer than this.
MAX_SPIN_MS = 20.0
#: The spin stops after this many clock cycles per nanosecond asked, whatever %globaltimer
#: says (4 GHz: above any GPU's clock, so it only ends a spin whose timer does not move).
SPIN_CYCLES_PER_NS = 4
SPIN_SOURCE = "spin.cu"
SPIN_KERNEL = "pipelab_spin"

Action = Callable[[], object]


@dataclass(frozen=True)
class Timing:
    """Per-launch times (ms) of the timed windows; each window held ``launches`` launches."""

    launches: int
    per_launch_ms: tuple[float, ...]
    #: Timed windows the device reached before the host had queued every launch (see the
    #: module's docstring): their time may hold the host's submission rate.
    host_bound_windows: int = 0

    @property
    def median_ms(self) -> float:
        return float(np.median(self.per_launch_ms))

    @property
    def min_ms(self) -> float:
        return float(min(self.per_launch_ms))

    @property
    def max_ms(self) -> float:
        return float(max(self.per_launch_ms))

    def figures(self) -> dict[str, Any]:
        return {
            "launches_per_window": self.launches,
            "windows": len(self.per_launch_ms),
            "median_ms": self.median_ms,
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
            "host_bound_windows": self.host_bound_windows,
        }


class EventTimer:
    """Two CUDA events around work queued on one stream, a spin kernel queued before them.

    ``action`` callables must queue their work on `stream` (every device operation of an
    experiment goes there: a non-blocking stream is not ordered with the legacy default one).
    The spin kernel is compiled on the first window (CuPy keeps compiled kernels in memory
    and on disk, so another timer in the same run loads it without compiling again).
    """

    def __init__(self, cupy: Any, stream: Any | None = None) -> None:
        self.cupy = cupy
        self.stream = stream if stream is not None else cupy.cuda.Stream(non_blocking=True)
        self.begin = cupy.cuda.Event()
        self.end = cupy.cuda.Event()
        self._spin_kernel: Any | None = None
        #: Host time (ms) one ``action`` call took to queue, from the last window.
        self.host_ms_per_launch = 0.0
        #: Whether the last window's begin event had passed before its launches were queued.
        self.last_window_host_bound = False

    def spin_ms(self, launches: int) -> float:
        """How long the busy wait before a window of ``launches`` lasts: long enough for the
        host to queue them (as fast as it queued the last window's), within bounds."""
        wanted = SPIN_HOST_FACTOR * launches * self.host_ms_per_launch
        return min(MAX_SPIN_MS, max(SPIN_MS, wanted))

    def spin(self, milliseconds: float) -> None:
        """Queue the busy wait on the timer's stream (compiled on first use)."""
        if self._spin_kernel is None:
            self._spin_kernel = load_module(self.cupy, SPIN_SOURCE).function(SPIN_KERNEL)
        nanoseconds = int(milliseconds * 1e6)
        args = (np.uint64(nanoseconds), np.int64(SPIN_CYCLES_PER_NS * nanoseconds))
        with self.stream:
            self._spin_kernel((1,), (1,), args)

    def window_ms(self, action: Action, launches: int = 1) -> float:
        """Device time (ms) between one event pair around ``launches`` calls of ``action``,
        all queued behind a spin before the begin event opens the window."""
        self.spin(self.spin_ms(launches))
        self.begin.record(self.stream)
        started = time.perf_counter()
        for _ in range(launches):
            action()
        queued_ms = (time.perf_counter() - started) * 1e3
        # Asked before the end event: had the device already passed the begin event?
        self.last_window_host_bound = bool(self.begin.done)
        self.end.record(self.stream)
        self.host_ms_per_launch = queued_ms / max(1, launches)
        self.end.synchronize()
        return float(self.cupy.cuda.get_elapsed_time(self.begin, self.end))

    def launches_for(
        self,
        action: Action,
        min_launches: int = MIN_LAUNCHES,
        min_window_ms: float = MIN_WINDOW_MS,
    ) -> int:
        """Launches per window: ``min_launches``, or more where that is under
        ``min_window_ms`` (from one probe window of ``min_launches``, which also warms)."""
        min_launches = max(1, min_launches)
        probe = self.window_ms(action, min_launches) / min_launches
        return launches_needed(probe, min_launches, min_window_ms)

    def measure(
        self,
        action: Action,
        repeats: int,
        warmup: int = 1,
        min_launches: int = MIN_LAUNCHES,
        min_window_ms: float = MIN_WINDOW_MS,
    ) -> Timing:
        """``repeats`` timed windows (after ``warmup`` untimed ones) of N launches each."""
        launches = self.launches_for(action, min_launches, min_window_ms)
        for _ in range(warmup):
            self.window_ms(action, launches)
        per_launch: list[float] = []
        host_bound = 0
        for _ in range(repeats):
            per_launch.append(self.window_ms(action, launches) / launches)
            host_bound += self.last_window_host_bound
        return Timing(launches, tuple(per_launch), host_bound)

    def warm_up(self, action: Action, target_ms: float = WARMUP_MS) -> float:
        """Run ``action`` back to back until ``target_ms`` of device time has passed (the
        clocks ramp up under load); returns the device time spent."""
        spent, launches = 0.0, 1
        while spent < target_ms:
            took = self.window_ms(action, launches)
            spent += took
            if took <= 0:  # a clock that does not move: don't loop for ever
                break
            launches = min(MAX_LAUNCHES, launches * 2)
        return spent


def launches_needed(per_launch_ms: float, min_launches: int, min_window_ms: float) -> int:
    """The launches one window needs: at least ``min_launches``, and enough to last
    ``min_window_ms`` at ``per_launch_ms`` each (capped at `MAX_LAUNCHES`)."""
    if per_launch_ms <= 0:
        return min_launches
    wanted = math.ceil(min_window_ms / per_launch_ms)
    return int(min(MAX_LAUNCHES, max(min_launches, wanted)))


def elapsed_from(cupy: Any, base: Any, events: Sequence[Sequence[Any]]) -> npt.NDArray[np.float64]:
    """Milliseconds from ``base`` to each event of a table of recorded events (rows ×
    columns), read after the last one completed."""
    elapsed = cupy.cuda.get_elapsed_time
    return np.array([[float(elapsed(base, e)) for e in row] for row in events], dtype=np.float64)
