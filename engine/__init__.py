"""PipeLab's engine: scenarios, the scheduler, the immutable Schedule and what derives from it.

Pure Python + numpy. No Qt, no CuPy (an import-linter contract enforces this).
"""

from __future__ import annotations

from engine.errors import PipeLabError
from engine.scenario import MAX_OPS, Scenario
from engine.schedule import STAGES, UNITS, Schedule
from engine.scheduler import simulate, simulate_reference

__all__ = [
    "MAX_OPS",
    "STAGES",
    "UNITS",
    "PipeLabError",
    "Scenario",
    "Schedule",
    "simulate",
    "simulate_reference",
]
