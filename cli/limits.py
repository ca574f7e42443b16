"""Up-front limits for heavy commands: estimate the time and memory a run will take from
its size, and refuse one that would take more than a few minutes or several GB with a
line that gives the estimate (rather than swap, an out-of-memory kill, or an hour of
silence).

The figures per op were measured on a 2-core machine (``bench/`` and `--ops 1000000`
runs under ``/usr/bin/time``) and rounded up; they are estimates, meant to catch runs
that are ten times too big, not to be exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import PipeLabError
from engine.scenario import Scenario
from engine.text import time_text

#: Refuse runs estimated above these: "several GB", "a few minutes".
MEMORY_LIMIT = 4 * 2**30
TIME_LIMIT = 180.0
#: The interpreter, numpy and PipeLab before any work.
BASE_BYTES = 60 * 2**20

#: Bytes and seconds per op for one policy's Schedule, simulated (one worker per unit: the
#: vectorized path; several: the event-by-event reference).
_SCHEDULE = {"one worker": (300, 1.2e-6), "several workers": (550, 5.0e-6)}
#: Each further policy's Schedule costs less than the first (shared inputs).
_FURTHER = {"one worker": (200, 1.2e-6), "several workers": (160, 5.0e-6)}
#: What each output adds per op and policy: bytes and seconds.
OUTPUTS = {
    "table": (0, 0.6e-6),
    "json": (30, 5.0e-6),
    "trace": (30, 6.0e-6),
    "image": (600, 3.0e-6),  # export: PNG, SVG, PDF, GIF (the app's renderer)
    "trace-export": (1600, 9.0e-6),  # export: trace JSON built in memory
}


@dataclass(frozen=True)
class Estimate:
    """Expected peak memory (bytes) and run time (seconds)."""

    bytes: float
    seconds: float

    def text(self) -> str:
        return f"about {_duration(self.seconds)} and {self.bytes / 2**30:.1f} GB"


def estimate_simulation(scenario: Scenario, policies: int, output: str) -> Estimate:
    """What simulating ``scenario`` under ``policies`` policies and writing ``output`` (a
    key of `OUTPUTS`) will take."""
    kind = "one worker" if scenario.workers == (1, 1, 1) else "several workers"
    first_bytes, first_seconds = _SCHEDULE[kind]
    more_bytes, more_seconds = _FURTHER[kind]
    out_bytes, out_seconds = OUTPUTS[output]
    per_op_bytes = first_bytes + (policies - 1) * more_bytes + policies * out_bytes
    per_op_seconds = first_seconds + (policies - 1) * more_seconds + policies * out_seconds
    n = scenario.n_ops
    return Estimate(BASE_BYTES + n * per_op_bytes, n * per_op_seconds)


def check_simulation(scenario: Scenario, policies: int, output: str) -> Estimate:
    """`estimate_simulation`, or a one-line PipeLabError when the run is too big; the
    message gives the estimate and the most ops that fit."""
    estimate = estimate_simulation(scenario, policies, output)
    if estimate.bytes <= MEMORY_LIMIT and estimate.seconds <= TIME_LIMIT:
        return estimate
    per_op = estimate_simulation(_one_op(scenario), policies, output)
    fits = min(
        (MEMORY_LIMIT - BASE_BYTES) / max(per_op.bytes - BASE_BYTES, 1.0),
        TIME_LIMIT / max(per_op.seconds, 1e-12),
    )
    others = [
        "one policy" if policies > 1 else "",
        "one worker per unit" if scenario.workers != (1, 1, 1) else "",
    ]
    alternative = " or ".join(o for o in others if o)
    raise PipeLabError(
        f"{scenario.n_ops:,} ops would take {estimate.text()}, more than the limits "
        f"({TIME_LIMIT / 60:.0f} min, {MEMORY_LIMIT / 2**30:.0f} GB): use at most about "
        f"{_round_down(fits):,} ops" + (f" (or {alternative})" if alternative else "")
    )


def _one_op(scenario: Scenario) -> Scenario:
    return scenario.with_changes(ops=1)


def _round_down(value: float) -> int:
    """Two significant digits, rounded down: 7,812,345 -> 7,800,000."""
    if value < 10:
        return max(1, int(value))
    scale = 10 ** (int(math.log10(value)) - 1)
    return int(value // scale * scale)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return time_text(seconds)
    if seconds < 600:
        return f"{seconds / 60:.1f} min"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
