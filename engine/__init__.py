"""PipeLab's engine: scenarios, the scheduler, the immutable Schedule and what derives from it.

Pure Python + numpy. No Qt, no CuPy (an import-linter contract enforces this).
"""

from __future__ import annotations

from engine.base.errors import PipeLabError
from engine.model.scenario import MAX_OPS, Scenario
from engine.model.schedule import STAGES, UNITS, Schedule
from engine.model.scheduler import simulate, simulate_reference

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
