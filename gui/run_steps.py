"""How `gui.runs.compute_run` works through a run's Schedules: each one simulated (unless
known) and then derived step by step (`gui.runs.DERIVATIONS`), timed, in turn or, for big
runs, side by side on one thread each (the compiled scheduler and numpy release the
GIL); a big Schedule derived alone runs the steps that share nothing with the others
(`Apart`) on a thread of their own beside them; and how the memory a dropped run freed
goes back to the system.

The thread pools (concurrent.futures) load with the first big run: the app starts on a
small one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass

from engine.analysis.derived import Derived
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from gui.figure.rows import derived_for

Derivation = Callable[[Derived, "Scenario | None"], object]
Derivations = tuple[tuple[str, Derivation], ...]
Simulate = Callable[[Scenario, str], Schedule]


@dataclass(frozen=True)
class Apart:
    """Derivation steps (``names``) that read no cached value the other steps build once
    ``prepare`` (schedule) has built those they share: for a big Schedule derived alone,
    they run on a thread of their own beside the others (each step's cost is mostly
    compiled or numpy work that releases the GIL, and page faults)."""

    names: frozenset[str]
    prepare: Callable[[Derived], None]


#: The steps: how to simulate, the derivations, and those that may run apart (or None).
Steps = tuple[Simulate, Derivations, "Apart | None"]


#: Runs with at least this many tasks (all Schedules together) derive their Schedules on
#: one thread each; below, threads cost more than they save.
PARALLEL_TASKS = 300_000
#: While Schedules are derived on other threads, `compute_run` yields this often (s).
POLL_SECONDS = 0.005


@dataclass
class Plan:
    """One Schedule of a run: its policy, the Schedule when it is known already (given,
    or reused with what was derived from it), and those derived values."""

    policy: str
    schedule: Schedule | None
    known: dict[str, object]
    #: What is derived from ``schedule`` already (a reused run's), or None: a new one.
    derived: Derived | None = None


class _Stopped(Exception):
    """The job was dropped: a Schedule's worker stops at its next step."""


Result = tuple[Derived, dict[str, object], dict[str, float]]


def _derive(
    plan: Plan,
    scenario: Scenario | None,
    steps: Steps,
    stop: Callable[[], bool],
    apart: bool = False,
) -> Generator[str, None, Result]:
    """One Schedule: simulate it (unless known), then each of `DERIVATIONS` (unless
    known), timing each step; yields the step's name after it. With ``apart``, a big
    Schedule's `Apart` steps run on a thread of their own meanwhile."""
    simulate, derivations, aside = steps
    times: dict[str, float] = {}
    schedule = plan.schedule
    if schedule is None:
        assert scenario is not None
        begin = time.perf_counter()
        schedule = simulate(scenario, plan.policy)
        times["simulate"] = time.perf_counter() - begin
        yield f"simulated {plan.policy}"
    derived = plan.derived if plan.derived is not None else derived_for(schedule)
    values: dict[str, object] = {
        name: plan.known[name] for name, _ in derivations if name in plan.known
    }
    todo = [(name, derive) for name, derive in derivations if name not in plan.known]
    elsewhere = []
    if apart and aside is not None and len(schedule) >= PARALLEL_TASKS:
        elsewhere = [(name, derive) for name, derive in todo if name in aside.names]
    stopped = threading.Event()

    def work() -> tuple[dict[str, object], dict[str, float]]:
        found: dict[str, object] = {}
        spent: dict[str, float] = {}
        for name, derive in elsewhere:
            if stopped.is_set():
                raise _Stopped
            found[name], spent[name] = _timed(derive, derived, scenario)
        return found, spent

    pool = helper = None
    if elsewhere:
        from concurrent.futures import ThreadPoolExecutor

        assert aside is not None
        aside.prepare(derived)
        pool = ThreadPoolExecutor(1, thread_name_prefix="pipelab-derive")
        helper = pool.submit(work)
    try:
        for name, derive in todo:
            if (name, derive) in elsewhere:
                continue
            if stop():
                raise _Stopped
            values[name], times[name] = _timed(derive, derived, scenario)
            yield name
        if helper is not None:
            from concurrent.futures import wait

            while not helper.done():
                wait([helper], timeout=POLL_SECONDS)
                yield "deriving"
            found, spent = helper.result()
            values.update(found)
            times.update(spent)
    finally:
        stopped.set()  # dropped (or failed): the helper stops after its step
        if pool is not None:
            pool.shutdown(wait=True)
    return derived, values, times


def _timed(derive: Derivation, derived: Derived, scenario: Scenario | None) -> tuple[object, float]:
    begin = time.perf_counter()
    value = derive(derived, scenario)
    return value, time.perf_counter() - begin


def in_turn(
    plans: list[Plan], scenario: Scenario | None, steps: Steps
) -> Generator[str, None, list[Result]]:
    """Each Schedule after the other, yielding after each step; a big Schedule with work
    to do, derived alone, runs its `Apart` steps beside the others."""
    results = []
    working = [plan for plan in plans if _has_work(plan, steps)]
    for plan in plans:
        alone = len(working) == 1 and plan is working[0]
        results.append((yield from _derive(plan, scenario, steps, lambda: False, alone)))
    return results


def _has_work(plan: Plan, steps: Steps) -> bool:
    return plan.schedule is None or any(name not in plan.known for name, _ in steps[1])


def side_by_side(
    plans: list[Plan], scenario: Scenario | None, steps: Steps
) -> Generator[str, None, list[Result]]:
    """One thread per Schedule; yields every `POLL_SECONDS` while they work (a dropped
    job stops them after the step in progress)."""
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

    stop = threading.Event()

    def work(plan: Plan) -> Result:
        work_steps = _derive(plan, scenario, steps, stop.is_set)
        try:
            while True:
                next(work_steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    with ThreadPoolExecutor(len(plans), thread_name_prefix="pipelab-derive") as pool:
        futures = [pool.submit(work, plan) for plan in plans]
        try:
            while not all(future.done() for future in futures):
                wait(futures, timeout=POLL_SECONDS, return_when=FIRST_EXCEPTION)
                yield "deriving"
            return [future.result() for future in futures]
        finally:
            stop.set()  # dropped (or failed): the other threads stop after their step


def working_plans(plans: list[Plan], steps: Steps) -> int:
    """How many of ``plans`` have anything left to simulate or derive."""
    return sum(_has_work(plan, steps) for plan in plans)
