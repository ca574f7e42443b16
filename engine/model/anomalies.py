"""List-scheduling anomalies (Graham's): when fewer resources would finish sooner.

With several workers per unit, or buffers and uneven ops, the greedy earliest-ready rule can
make *more* workers or slots slower: a second load unit lets a short op overtake, grab the
compute unit first and push a long write to the end. With one worker per unit it cannot
(every unit serves ops in op order; every time is a monotone max-plus function).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.base.text import time_text
from engine.base.tolerance import time_tolerance
from engine.model.scenario import Scenario
from engine.model.schedule import UNITS
from engine.model.scheduler import simulate

#: Checking runs up to four extra simulations on every edit: skipped past this many ops.
MAX_CHECKED_OPS = 500


@dataclass(frozen=True)
class Anomaly:
    """With ``resource`` reduced to ``fewer`` the pipelined run would take ``makespan``
    instead of the scenario's ``actual``."""

    resource: str
    current: int
    fewer: int
    makespan: float
    actual: float

    def sentence(self) -> str:
        return (
            f"anomaly: with {self.fewer} {self.resource} instead of {self.current} this run "
            f"would finish sooner ({time_text(self.makespan)}, not {time_text(self.actual)})"
        )


def resource_anomalies(scenario: Scenario) -> list[Anomaly]:
    """Each single step down in workers (per unit) or buffer slots that would make the
    pipelined makespan strictly shorter. Empty when none does or the scenario is large."""
    if scenario.n_ops > MAX_CHECKED_OPS or (
        scenario.workers == (1, 1, 1) and scenario.buffers != 1
    ):
        # One worker per unit: monotone, no anomaly possible (see the module docstring).
        return []
    actual = simulate(scenario, "pipelined").makespan
    tolerance = time_tolerance(actual)
    found: list[Anomaly] = []
    for index, unit in enumerate(UNITS):
        k = scenario.workers[index]
        if k < 2:
            continue
        workers = list(scenario.workers)
        workers[index] = k - 1
        makespan = simulate(scenario.with_changes(workers=tuple(workers)), "pipelined").makespan
        if makespan < actual - tolerance:
            found.append(Anomaly(f"{unit} workers", k, k - 1, makespan, actual))
    if scenario.buffers >= 2:
        fewer = scenario.with_changes(buffers=scenario.buffers - 1)
        makespan = simulate(fewer, "pipelined").makespan
        if makespan < actual - tolerance:
            found.append(
                Anomaly("buffer slots", scenario.buffers, scenario.buffers - 1, makespan, actual)
            )
    return found
