"""The pipeline as a straightforward SimPy model: the independent yardstick the benchmarks
time against and a test checks our scheduler with."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.model.scenario import Scenario
from engine.model.shape import Shape, book_shape


def simpy_makespan(scenario: Scenario) -> float:
    """The book's pipeline (`simpy_shape_makespan` of the book's shape)."""
    shape = book_shape(scenario.workers, scenario.buffers)
    return simpy_shape_makespan(shape, scenario.durations)


def simpy_shape_makespan(shape: Shape, durations: npt.NDArray[np.float64]) -> float:
    """A pipeline shape as SimPy processes, one per op: before each stage, the pools taken
    there (FIFO Resources, in their listed order), then the stage's unit (a FIFO Resource:
    earliest-ready first); after it, the unit and the pools it frees go back."""
    import simpy

    env = simpy.Environment()
    units = [simpy.Resource(env, capacity=k) for k in shape.workers]
    pools = [simpy.Resource(env, capacity=p.size or len(durations)) for p in shape.pools]
    taken = [[p for p, pool in enumerate(shape.pools) if pool.first == s] for s in
             range(len(shape.stages))]  # fmt: skip
    freed = [[p for p, pool in enumerate(shape.pools) if pool.last == s] for s in
             range(len(shape.stages))]  # fmt: skip
    rows = durations.tolist()

    def op(i: int):  # type: ignore[no-untyped-def]
        held = {}
        for stage, unit in enumerate(shape.stage_units):
            for p in taken[stage]:
                held[p] = pools[p].request()
                yield held[p]
            with units[unit].request() as worker:
                yield worker
                yield env.timeout(rows[i][stage])
            for p in freed[stage]:
                pools[p].release(held.pop(p))

    for i in range(len(rows)):
        env.process(op(i))
    env.run()
    return float(env.now)
