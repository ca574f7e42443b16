"""The one CUDA-event timer of gpu/: N back-to-back launches between one event pair.

Timing one launch per event pair puts the host's argument packing and ``cuLaunchKernel``
inside the timed window, a bias of several per cent for a kernel of ~100 µs. Here the
events bracket ``launches`` calls queued back to back on one stream, and the window is
divided by ``launches``: at least `MIN_LAUNCHES` of them, and enough for the window to last
`MIN_WINDOW_MS`, so the host launches the next call while the device still runs the last.
What remains per launch (the device's own launch cost) is measured separately, with an
empty kernel timed the same way.

Every experiment times with `EventTimer`; experiment 1's per-stage events (which become a
Schedule, not a duration) are read with `elapsed_from`, also here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

#: Launches per event pair: at least this many ...
MIN_LAUNCHES = 20
#: ... and enough for the window between the events to last this long.
MIN_WINDOW_MS = 2.0
#: An upper bound on launches per window (a kernel of a few µs needs ~1,000).
MAX_LAUNCHES = 20_000
#: Device time of back-to-back work before a sweep, so clocks have ramped up.
WARMUP_MS = 100.0

Action = Callable[[], object]


@dataclass(frozen=True)
class Timing:
    """Per-launch times (ms) of the timed windows; each window held ``launches`` launches."""

    launches: int
    per_launch_ms: tuple[float, ...]

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
        }


class EventTimer:
    """Two CUDA events around work queued on one stream.

    ``action`` callables must queue their work on `stream` (every device operation of an
    experiment goes there: a non-blocking stream is not ordered with the legacy default one).
    """

    def __init__(self, cupy: Any, stream: Any | None = None) -> None:
        self.cupy = cupy
        self.stream = stream if stream is not None else cupy.cuda.Stream(non_blocking=True)
        self.begin = cupy.cuda.Event()
        self.end = cupy.cuda.Event()

    def window_ms(self, action: Action, launches: int = 1) -> float:
        """Device time (ms) between one event pair around ``launches`` calls of ``action``."""
        self.begin.record(self.stream)
        for _ in range(launches):
            action()
        self.end.record(self.stream)
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
        per_launch = tuple(self.window_ms(action, launches) / launches for _ in range(repeats))
        return Timing(launches, per_launch)

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
