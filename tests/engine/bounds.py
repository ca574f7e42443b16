"""The tests' own oracles for a makespan: the bound no schedule can beat, and the textbook
closed form where it applies, both read off the Scenario alone (not off a Schedule, as
`engine.analysis.metrics` does)."""

from __future__ import annotations

import numpy as np

from engine.model.scenario import Scenario
from engine.model.schedule import STAGES


def lower_bound(scenario: Scenario) -> float:
    """No schedule can beat max(per-unit work / workers, the longest op)."""
    durations = scenario.durations
    per_unit = durations.sum(axis=0) / np.asarray(scenario.workers, dtype=float)
    return float(max(per_unit.max(), durations.sum(axis=1).max()))


def closed_form_makespan(scenario: Scenario, policy: str | None = None) -> float | None:
    """The textbook formula where it applies, else None.

    Identical ops, one worker per unit: pipelined with unlimited slots (or at least as many
    slots as ops, or as the 3 stages need) gives (r + c + w) + (N − 1)·max(r, c, w); with one
    slot (sequential) every op runs alone: N·(r + c + w).
    """
    policy = policy or scenario.policy
    if scenario.workers != (1, 1, 1) or not scenario.uniform:
        return None
    n = scenario.n_ops
    r, c, w = (float(getattr(scenario, s)[0]) for s in STAGES)
    if policy == "sequential" or scenario.buffers == 1:
        return n * (r + c + w)
    if scenario.buffers == 0 or scenario.buffers >= min(n, 3):
        return (r + c + w) + (n - 1) * max(r, c, w)
    return None
