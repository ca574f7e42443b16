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

import numpy as np
import numpy.typing as npt

from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.shape import book_shape, shape_tasks, simulated_tasks

FloatArray = npt.NDArray[np.float64]


def effective_buffers(scenario: Scenario, policy: str | None = None) -> int:
    """Slots the run gets: 1 for sequential, else the scenario's own (0 = unlimited)."""
    return 1 if (policy or scenario.policy) == "sequential" else scenario.buffers


def simulate(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Schedule ``scenario`` under ``policy`` ("sequential" or "pipelined"; default: the
    scenario's own)."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    durations = scenario.durations
    starts, workers, grant = schedule_tasks(durations, scenario.workers, buffers)
    ends = starts + durations
    del durations
    # The event loop only stands at 0 and at task ends, and `ends` adds each duration to
    # its start as the loop did: every start is 0 or one of the ends, bit for bit.
    return _to_schedule(
        scenario, policy, buffers, starts, ends, workers, grant, owned=True, starts_at_ends=True
    )


def _to_schedule(
    scenario: Scenario,
    policy: str,
    buffers: int,
    starts: FloatArray,
    ends: FloatArray,
    workers: npt.NDArray[np.int64],
    grant: FloatArray,
    owned: bool = False,
    starts_at_ends: bool = False,
) -> Schedule:
    """The Schedule of these (n_ops, 3) matrices; ``owned``: they are fresh and handed
    over (frozen in place, not copied); ``starts_at_ends``: see `Schedule`."""
    return Schedule.from_stage_matrices(
        starts,
        ends,
        workers,
        owned=owned,
        workers=scenario.workers,
        policy=policy,
        source="simulated",
        buffers=buffers,
        label=policy,
        grant=grant,
        starts_at_ends=starts_at_ends,
    )


# -- the reference: a discrete-event simulation --------------------------------------------


def simulate_reference(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Event-by-event simulation of the semantics, for any number of workers per unit
    (`reference_tasks`)."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    starts, workers, grant = reference_tasks(scenario.durations, scenario.workers, buffers)
    return _to_schedule(
        scenario, policy, buffers, starts, starts + scenario.durations, workers, grant
    )


def schedule_tasks(
    durations: FloatArray, workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """Stage starts (n, 3), the worker of each stage (n, 3) and each op's slot grant time
    (n,): the compiled loop where it was built, else the reference's."""
    starts, on, grants = simulated_tasks(book_shape(tuple(workers), buffers), durations)
    return starts, on, grants.reshape(-1)  # (one pool: its column, not a copy)


def reference_tasks(
    durations: FloatArray, workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """`schedule_tasks` from the reference loop (`engine.model.shape.shape_tasks` of the book's
    shape)."""
    starts, on, grants = shape_tasks(book_shape(tuple(workers), buffers), durations)
    return starts, on, grants.reshape(-1)
