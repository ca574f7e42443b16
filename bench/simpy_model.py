"""The pipeline as a straightforward SimPy model: the independent yardstick the benchmark
times against and a test checks our scheduler with."""

from __future__ import annotations

from engine.scenario import Scenario


def simpy_makespan(scenario: Scenario) -> float:
    """The same pipeline as SimPy processes: a slot (FIFO, requested in op order), then each
    stage on its unit's Resource (FIFO queues = earliest-ready first)."""
    import simpy

    env = simpy.Environment()
    units = [simpy.Resource(env, capacity=k) for k in scenario.workers]
    buffers = scenario.buffers or scenario.n_ops
    slots = simpy.Resource(env, capacity=buffers)
    durations = scenario.durations.tolist()

    def op(i: int):  # type: ignore[no-untyped-def]
        with slots.request() as slot:
            yield slot
            for stage in range(3):
                with units[stage].request() as worker:
                    yield worker
                    yield env.timeout(durations[i][stage])

    for i in range(scenario.n_ops):
        env.process(op(i))
    env.run()
    return float(env.now)
