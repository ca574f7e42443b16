"""The scheduler: turns a Scenario into a simulated Schedule.

Semantics (docs/model.md, binding): op i's stages run read → compute → write on the load,
compute and store units. A stage is ready when the op's previous stage ends (read: when the
op is granted a buffer slot; slots go out in op order and are held until the write ends).
A unit gives a free worker to the stage that became ready earliest, ties to the lower op.
Sequential is the case of one buffer slot.

The book is a pipeline shape (`engine.model.shape.book_shape`) and runs through the shapes' one
reference loop and one compiled loop, which agree bit for bit (every start, end, worker and
grant time):

* `simulate_reference` — `engine.model.shape.shape_tasks`, the definition in code.
* `simulate` — the compiled event loop (`engine.model.shape.simulated_tasks`); where it was not
  built, `simulate` runs the reference.
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
#: A loop over the book's stage durations (n, 3), workers per unit and slots: each stage's
#: start (n, 3), each stage's worker (n, 3) and each op's slot grant time (n,).
BookLoop = Callable[[FloatArray, tuple[int, ...], int], tuple[FloatArray, IntArray, FloatArray]]


def effective_buffers(scenario: Scenario, policy: str | None = None) -> int:
    """Slots the run gets: 1 for sequential, else the scenario's own (0 = unlimited)."""
    return 1 if (policy or scenario.policy) == "sequential" else scenario.buffers


def simulate(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Schedule ``scenario`` under ``policy`` ("sequential" or "pipelined"; default: the
    scenario's own)."""
    return _simulate(scenario, policy, schedule_tasks, hand_over=True)


def simulate_reference(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Event-by-event simulation of the semantics, for any number of workers per unit
    (`reference_tasks`)."""
    return _simulate(scenario, policy, reference_tasks, hand_over=False)


def _simulate(scenario: Scenario, policy: str | None, loop: BookLoop, hand_over: bool) -> Schedule:
    """The Schedule of ``loop``'s run. ``hand_over`` (`simulate`'s): the matrices are handed
    over (frozen in place, not copied) and marked ``starts_at_ends`` (see `Schedule`): the
    event loop only stands at 0 and at task ends, and the ends add each duration to its
    start as the loop did, so every start is 0 or one of the ends, bit for bit. The
    reference keeps `Schedule`'s defaults."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    durations = scenario.durations
    starts, workers, grant = loop(durations, scenario.workers, buffers)
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
        grant=grant,
        starts_at_ends=hand_over,
    )


def schedule_tasks(
    durations: FloatArray, workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, IntArray, FloatArray]:
    """Stage starts (n, 3), the worker of each stage (n, 3) and each op's slot grant time
    (n,): the compiled loop where it was built, else the reference's."""
    return _book_tasks(simulated_tasks, durations, workers, buffers)


def reference_tasks(
    durations: FloatArray, workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, IntArray, FloatArray]:
    """`schedule_tasks` from the reference loop (`engine.model.shape.shape_tasks` of the
    book's shape)."""
    return _book_tasks(shape_tasks, durations, workers, buffers)


def _book_tasks(
    loop: Callable[[Shape, FloatArray], tuple[FloatArray, IntArray, FloatArray]],
    durations: FloatArray,
    workers: tuple[int, ...],
    buffers: int,
) -> tuple[FloatArray, IntArray, FloatArray]:
    starts, on, grants = loop(book_shape(tuple(workers), buffers), durations)
    return starts, on, grants.reshape(-1)  # (one pool: its column, not a copy)
