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

from engine.base.errors import PipeLabError
from engine.base.text import duration_words
from engine.model.shape_file import AnyScenario, ShapedScenario

#: Refuse runs estimated above these: "several GB", "a few minutes", "several GB written".
MEMORY_LIMIT = 4 * 2**30
TIME_LIMIT = 180.0
OUTPUT_LIMIT = 4 * 2**30
#: The interpreter, numpy and PipeLab before any work.
BASE_BYTES = 60 * 2**20
#: How fast output leaves, sustained: 5.6 GB of trace took 4 min on the 2-core machine's
#: disk, about 3 of them writing (a pipe's reader may be slower still).
WRITE_BYTES_PER_S = 30e6

#: Bytes and seconds per op for one policy's Schedule, simulated (one worker per unit: the
#: vectorized path; several: the event-by-event reference).
_SCHEDULE = {"one worker": (300, 1.2e-6), "several workers": (550, 5.0e-6)}
#: Each further policy's Schedule costs less than the first (shared inputs).
_FURTHER = {"one worker": (200, 1.2e-6), "several workers": (160, 5.0e-6)}
#: What each output adds per op and policy: memory (bytes), time to produce it (seconds,
#: before writing) and bytes written. The written bytes are the largest measured, with
#: 17-digit times ("read = 0.123456789"): JSON 510, a trace 570 per op and policy.
OUTPUTS = {
    "table": (0, 0.6e-6, 0),
    "json": (30, 5.0e-6, 520),
    "trace": (30, 6.0e-6, 600),  # streamed, as JSON is
    "trace-export": (30, 6.0e-6, 600),  # export to .json: the same trace, no --format
    "image": (600, 3.0e-6, 0),  # export: PNG, SVG, PDF, GIF (the app's renderer)
}


@dataclass(frozen=True)
class Estimate:
    """Expected peak memory (bytes), run time (seconds) and output written (bytes)."""

    bytes: float
    seconds: float
    output_bytes: float = 0.0

    def text(self) -> str:
        memory = f"{duration_words(self.seconds)} and {_gigabytes(self.bytes)} of memory"
        if self.output_bytes < 2**20:
            return memory
        return f"{memory}, writing {_gigabytes(self.output_bytes)}"


def estimate_simulation(scenario: AnyScenario, policies: int, output: str) -> Estimate:
    """What simulating ``scenario`` under ``policies`` policies and writing ``output`` (a
    key of `OUTPUTS`) will take; the time includes writing the output at
    `WRITE_BYTES_PER_S`. The figures are per op of three stages: a pipeline shape's ops
    cost in proportion to their stages, at the event-by-event loop's rate."""
    stages = 3
    if isinstance(scenario, ShapedScenario):
        kind, stages = "several workers", len(scenario.shape.stages)
    else:
        kind = "one worker" if scenario.workers == (1, 1, 1) else "several workers"
    first_bytes, first_seconds = _SCHEDULE[kind]
    more_bytes, more_seconds = _FURTHER[kind]
    out_memory, out_seconds, out_written = OUTPUTS[output]
    per_op_bytes = first_bytes + (policies - 1) * more_bytes + policies * out_memory
    per_op_seconds = first_seconds + (policies - 1) * more_seconds + policies * out_seconds
    n = scenario.n_ops * stages / 3
    written = n * policies * out_written
    return Estimate(
        BASE_BYTES + n * per_op_bytes, n * per_op_seconds + written / WRITE_BYTES_PER_S, written
    )


def check_simulation(scenario: AnyScenario, policies: int, output: str) -> Estimate:
    """`estimate_simulation`, or a one-line PipeLabError when the run is too big (memory,
    time or output); the message gives the estimate and the most ops that fit."""
    estimate = estimate_simulation(scenario, policies, output)
    if (
        estimate.bytes <= MEMORY_LIMIT
        and estimate.seconds <= TIME_LIMIT
        and estimate.output_bytes <= OUTPUT_LIMIT
    ):
        return estimate
    per_op = estimate_simulation(_one_op(scenario), policies, output)
    fits = min(
        (MEMORY_LIMIT - BASE_BYTES) / max(per_op.bytes - BASE_BYTES, 1.0),
        TIME_LIMIT / max(per_op.seconds, 1e-12),
        OUTPUT_LIMIT / max(per_op.output_bytes, 1e-12),
    )
    others = [
        "one policy" if policies > 1 else "",
        "one worker per unit"
        if not isinstance(scenario, ShapedScenario) and scenario.workers != (1, 1, 1)
        else "",
        "--format table" if output in ("json", "trace") else "",
    ]
    alternative = " or ".join(o for o in others if o)
    limits = f"{duration_words(TIME_LIMIT, about=False)}, {_gigabytes(MEMORY_LIMIT)} of memory"
    if OUTPUTS[output][2]:
        limits += f", {_gigabytes(OUTPUT_LIMIT)} written"
    raise PipeLabError(
        f"{scenario.n_ops:,} ops would take {estimate.text()}, more than the limits "
        f"({limits}): use at most about {_round_down(fits):,} ops"
        + (f" (or {alternative})" if alternative else "")
    )


def _gigabytes(size: float) -> str:
    return f"{size / 2**30:.1f} GB".replace(".0 GB", " GB")


def _one_op(scenario: AnyScenario) -> AnyScenario:
    if isinstance(scenario, ShapedScenario):
        return scenario.with_ops(1)
    return scenario.with_changes(ops=1)


def _round_down(value: float) -> int:
    """Two significant digits, rounded down: 7,812,345 -> 7,800,000."""
    if value < 10:
        return max(1, int(value))
    scale = 10 ** (int(math.log10(value)) - 1)
    return int(value // scale * scale)
