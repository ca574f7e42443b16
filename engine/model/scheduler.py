"""The scheduler: turns a Scenario into a simulated Schedule.

Semantics (docs/model.md, binding): op i's stages run read → compute → write on the load,
compute and store units. A stage is ready when the op's previous stage ends (read: when the
op is granted a buffer slot; slots go out in op order and are held until the write ends).
A unit gives a free worker to the stage that became ready earliest, ties to the lower op.
Sequential is the case of one buffer slot.

The book is a pipeline shape (`engine.model.shape.book_shape`) and runs through the shapes'
one reference loop (`simulate_reference`: `engine.model.shape.shape_tasks`, the definition
in code) and one compiled loop (`simulate`, which runs the reference where the compiled
loop was not built); they agree bit for bit (every start, end, worker and grant time).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.shape import Shape, book_shape, shape_tasks, simulated_tasks

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def simulate(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Schedule ``scenario`` under ``policy`` ("sequential" or "pipelined"; default: the
    scenario's own)."""
    return _simulate(scenario, policy, simulated_tasks, hand_over=True)


def simulate_reference(scenario: Scenario, policy: str | None = None) -> Schedule:
    """`simulate` by the reference loop, for any number of workers per unit."""
    return _simulate(scenario, policy, shape_tasks, hand_over=False)


def _simulate(
    scenario: Scenario,
    policy: str | None,
    loop: Callable[[Shape, FloatArray], tuple[FloatArray, IntArray, FloatArray]],
    hand_over: bool,
) -> Schedule:
    """The Schedule of ``loop``'s run of the book's shape (sequential: one slot).
    ``hand_over`` (`simulate`'s): the matrices are handed over (frozen in place, not
    copied) and marked ``starts_at_ends`` (see `Schedule`): the event loop only stands at 0
    and at task ends, and the ends add each duration to its start as the loop did, so every
    start is 0 or one of the ends, bit for bit. The reference keeps `Schedule`'s defaults."""
    policy = policy or scenario.policy
    buffers = 1 if policy == "sequential" else scenario.buffers
    durations = scenario.durations
    starts, workers, grants = loop(book_shape(scenario.workers, buffers), durations)
    ends = starts + durations
    del durations
    return Schedule.from_stage_matrices(
        starts,
        ends,
        workers,
        owned=hand_over,
        workers=scenario.workers,
        policy=policy,
        source="simulated",
        buffers=buffers,
        label=policy,
        grant=grants.reshape(-1),  # (one pool: its column, not a copy)
        starts_at_ends=hand_over,
    )
