"""How many CPU cores a CPU-threads run of experiment 1 can use, and the sentence that says,
before the run, when this machine cannot show the overlap.

The CPU pipeline is three threads (reader, computer, writer). With the CPU defaults
(`gpu.cpu_backend`: compute about 1.5 × the two copies together) two cores suffice for a
visible win: one computes while the other copies in and out. Measured on a 2-core VM
(bench/cpu_overlap.py, 256 MiB in 16 chunks, 5 repeats): on 1 core pipelining lost
(0.86–1.02×); on 2 quiet cores it won 1.19–1.47× against the model's 1.45–1.61×; on 2
cores with another process busy, 0.92–0.97×. Other busy processes take cores away: the
load average says how many.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: Cores the CPU defaults need for the pipelined run to win: one computing, one copying.
NEEDED = 2
#: Why a GPU differs, in the words every warning ends with.
GPU_DIFFERS = (
    "on a GPU the copies run on copy engines, hardware separate from the cores that "
    "compute, so the stages really overlap"
)


@dataclass(frozen=True)
class Cores:
    """Cores this process may run on, and how many of them other work keeps busy (the
    1-minute load average, rounded; 0 where the system does not say)."""

    usable: int
    busy: int

    @property
    def free(self) -> int:
        return max(0, self.usable - self.busy)


def this_machine() -> Cores:
    """The cores of this process (its affinity where the system has one) and the load."""
    if hasattr(os, "sched_getaffinity"):
        usable = len(os.sched_getaffinity(0))
    else:
        usable = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no load average
        load = 0.0
    return Cores(max(1, usable), min(usable, round(load)))


def cpu_warning(cores: Cores) -> str:
    """One plain sentence, before a CPU-threads run, when this machine cannot show the
    pipeline winning ("" when it can)."""
    if cores.usable < NEEDED:
        return (
            f"This machine gives the run 1 core, so the pipeline's threads must take turns "
            f"on it and pipelining cannot win here; {GPU_DIFFERS}."
        )
    if cores.free < NEEDED:
        free = f"Only {cores.free}" if cores.free else "None"
        return (
            f"{free} of this machine's {cores.usable} cores {'is' if cores.free < 2 else 'are'} "
            f"free (other programs keep {cores.busy} busy), so the pipeline's threads must "
            f"take turns and pipelining may not win here; {GPU_DIFFERS}."
        )
    return ""
