"""How `gui.runs.compute_run` works through a run's Schedules: each one simulated (unless
known) and then derived step by step (`gui.runs.DERIVATIONS`), timed, in turn or, for big
runs, side by side on one thread each (the compiled scheduler and numpy release the
GIL); a big Schedule derived alone runs the steps that share nothing with the others
(`Apart`) on a thread of their own beside them; and how the memory a dropped run freed
goes back to the system."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass

from engine.derived import Derived
from engine.scenario import Scenario
from engine.schedule import Schedule

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
    derived = plan.derived if plan.derived is not None else Derived(schedule)
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


def release_freed_memory() -> None:
    """Hand the memory a dropped run freed back to the system. glibc keeps freed blocks
    (as `hold_freed_memory` tells it to, and in part by itself), so without this the
    app's resident size grows to the old and the new run together and stays there;
    ``malloc_trim`` returns them (a few ms). Elsewhere: nothing to do."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


#: glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
#: The largest block glibc keeps in its heaps rather than mapping apart (its own ceiling
#: for the threshold it adapts: 32 MiB on 64-bit): a 10^6-op run's columns (24 MB with
#: two workers per unit) and its temporaries.
_KEPT_BLOCK = 32 * 2**20


def hold_freed_memory() -> bool:
    """Tell glibc to keep what is freed instead of handing it back on its own; the app
    hands it back itself once at rest (`release_freed_memory`). While edits follow one
    another, each run then reuses the pages the one before freed, where glibc would
    have given them back at once (every block above its adaptive mapping threshold, the
    top of a heap beyond a few MB) and the next run faulted them in afresh: 85–130 MB an
    edit at 10^6 ops with two workers per unit (about 1.4 ms a MB on a virtual machine
    that hands freed pages to its host), 0–11 MB so.

    One arena for every thread: ``malloc_trim`` hands back the free pages inside every
    arena's heaps but shrinks the top of the main one only, so the tops of the derive
    threads' arenas, never trimmed now, would stay resident at rest (measured: 1.25×
    the columns at rest instead of 0.91× with one worker per unit). Must run before
    the worker threads start. True where it took effect (glibc)."""
    libc = _glibc()
    if libc is None:
        return False
    trim = libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    mapped = libc.mallopt(_M_MMAP_THRESHOLD, _KEPT_BLOCK)
    one = libc.mallopt(_M_ARENA_MAX, 1)
    return bool(trim and mapped and one)


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has malloc_trim and mallopt; musl has
    neither), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc
