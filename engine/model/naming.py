"""What a scenario is called once it is no longer the preset or file it came from: a few
words ("20 ops, 2 slots"), a sentence, and ONE naming for the command line's overrides and
the app's edits alike ("The book example with 2 slots")."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.base.text import count_words, format_time
from engine.model.scenario import Scenario, all_alike, repeated_to
from engine.model.schedule import STAGES, UNITS, Schedule
from engine.model.shape import ALONE


def slots_words(buffers: int) -> str:
    """ "unlimited slots", "1 slot", "3 slots"."""
    if buffers == 0:
        return "unlimited slots"
    return f"{buffers} slot" + ("" if buffers == 1 else "s")


def pool_words(schedule: Schedule) -> str:
    """A shape's run's pools, for its heading: "smem stages: 4 slots, consumer warpgroups:
    2 slots"; "one op at a time" (a sequential run's); "" for a run with none."""
    return ", ".join(
        pool.name if pool.name == ALONE else f"{pool.name}: {slots_words(pool.size)}"
        for pool in schedule.pools
    )


def summary(scenario: Scenario, ops: bool = True) -> str:
    """A few words that tell runs apart: "20 ops, 2 slots" (workers when not one each)."""
    words = [count_words(scenario.n_ops, "op")] if ops else []
    words.append(slots_words(scenario.buffers))
    for unit, k in zip(UNITS, scenario.workers, strict=True):
        if k != 1:
            words.append(f"{k} {unit} workers")
    return ", ".join(words)


def stage_words(scenario: Scenario, stage: str) -> str:
    """One stage's durations: "1 s" when every op has the same, else "0.5–2 s"."""
    values = getattr(scenario, stage)
    low, high = float(values.min()), float(values.max())
    if low == high:
        return format_time(low)
    return f"{format_time(low).removesuffix(' s')}–{format_time(high)}"


def sentence(scenario: Scenario) -> str:
    """A generated description: what each op takes, the slots and the workers."""
    n = scenario.n_ops
    ops = count_words(n, "op")
    stages = ", ".join(f"{s} {stage_words(scenario, s)}" for s in STAGES)
    alike = "each" if all_alike(scenario) else "with their own durations:"
    if n == 1:
        alike = "taking"
    k = scenario.workers
    workers = "one worker per unit"
    if k != (1, 1, 1):
        workers = ", ".join(
            f"{w} {u} worker" + ("" if w == 1 else "s") for u, w in zip(UNITS, k, strict=True)
        )
    memory = (
        "unlimited shared-memory slots"
        if scenario.buffers == 0
        else f"{slots_words(scenario.buffers)} of shared memory"
    )
    return f"{ops}, {alike} {stages}; {memory}; {workers}."


def renamed_if_changed(original: Scenario, changed: Scenario) -> Scenario:
    """``changed`` named for how it differs from ``original`` ("The book example with 2
    slots, 2 load workers") with a sentence; ``original``'s name and description when
    nothing the model sees differs (an edit undone by hand)."""
    words = []
    if changed.n_ops != original.n_ops:
        words.append(count_words(changed.n_ops, "op"))
    for stage in STAGES:  # (more ops repeat the ops' durations: not a change of them)
        mine, theirs = getattr(changed, stage), getattr(original, stage)
        if not np.array_equal(mine, repeated_to(theirs, len(mine))):
            words.append(f"{stage} {stage_words(changed, stage)}")
    if changed.buffers != original.buffers:
        words.append(slots_words(changed.buffers))
    for unit, k, before in zip(UNITS, changed.workers, original.workers, strict=True):
        if k != before:
            words.append(f"{k} {unit} worker" + ("" if k == 1 else "s"))
    if not words:
        return replace(changed, name=original.name, description=original.description)
    name = f"{original.name} with {', '.join(words)}"
    return replace(changed, name=name, description=sentence(changed))
