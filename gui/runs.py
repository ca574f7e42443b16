"""What the app shows, as plain values (no Qt): a `Run` (one scenario's Schedules and all
that is derived from them), pins, and `Shown` (pinned runs + the current one, composed for
the views: Schedules, stats, comparison lines, their event times together as an `EventUnion`).

`compute_run` is a generator (superqt's GeneratorWorker shape): it yields between steps so
that a worker can drop a stale job there, and returns the Run. Everything derived per
Schedule is listed in `DERIVATIONS`: one more entry (wait reasons, say) is one more call,
made on the worker thread with the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from engine.analysis.derived import Derived
from engine.analysis.stats import ScheduleStats, StatLine, comparison, schedule_stats
from engine.analysis.view_model import typical_duration
from engine.base.text import format_time
from engine.base.tolerance import time_tolerance
from engine.indexes.event_union import EventUnion, events_of
from engine.model.naming import slots_words, stage_words, summary
from engine.model.scenario import Scenario
from engine.model.schedule import STAGES, UNITS, Schedule, op_column
from engine.model.scheduler import simulate
from gui import run_steps
from gui.figure import rows as figure_rows
from gui.figure.heading import run_title
from gui.run_steps import Plan

FloatArray = npt.NDArray[np.float64]
VIEW_MODES = ("both", "sequential", "pipelined")
#: The most runs kept pinned at once (the oldest goes first).
MAX_PINS = 3
#: The assembly line animates every Schedule shown up to this many lanes; beyond, only
#: the current run's (pinned runs stay in the timeline, the narration and the stats).
MAX_LANES = 2

Derivation = Callable[[Derived, "Scenario | None"], object]


def policies_of(mode: str) -> tuple[str, ...]:
    return ("sequential", "pipelined") if mode == "both" else (mode,)


def _stats(derived: Derived, scenario: Scenario | None) -> ScheduleStats:
    schedule = derived.schedule
    if schedule.source == "measured" and schedule.task_name is not None:
        from gpu.profile.lanes import is_profile_schedule  # (only once a profile is open)

        if is_profile_schedule(schedule):
            from gpu.profile.stats import profile_stats

            return profile_stats(schedule)  # the trace's figures, from unions
    return schedule_stats(derived, scenario if schedule.source == "simulated" else None)


def warm_narration(derived: Derived, scenario: Scenario | None = None) -> None:
    """The clock's and the narration's indexes: event times, rows in time order, the
    wait index (each unit's tasks, ready times, slot holds)."""
    derived.events  # noqa: B018 (members are built on first read)
    derived.schedule.by_row  # noqa: B018 (a cached property: reading it builds it)
    derived.waits.prepare_narration()


def warm_gantt(derived: Derived, scenario: Scenario | None = None) -> None:
    """The Gantt's indexes: its tasks' `SpanIndex`, and which wait reasons its legend lists
    (the idle spans themselves are found for the part in view as it is drawn)."""
    derived.task_spans.prepare()
    # Worker rows' wait reasons (the default rows); one row per op builds its op waits
    # when first shown.
    figure_rows.reasons_present(derived, "workers")


def warm_assembly(derived: Derived, scenario: Scenario | None = None) -> None:
    """The assembly line's index (op transitions sorted, slot plan) and glide length."""
    schedule = derived.schedule
    if schedule.is_pipeline and schedule.n_ops:
        typical_duration(derived)
        derived.assembly  # noqa: B018 (members are built on first read)


def warm_caches(derived: Derived, scenario: Scenario | None = None) -> None:
    """Build, here, every per-Schedule index the views read on their first frame (the
    clock's events, the narration's and the Gantt's indexes, the assembly line's): so the
    GUI thread never builds one."""
    warm_narration(derived, scenario)
    warm_gantt(derived, scenario)
    warm_assembly(derived, scenario)


def share_before_assembly(derived: Derived, scenario: Scenario | None = None) -> None:
    """What the assembly step reads that the other steps build too (the first read's
    starts and the last write's ends per op, the per-op matrices, the pipeline's stage
    statistics), built first: then the assembly step may run beside the others."""
    schedule = derived.schedule
    if schedule.is_pipeline and schedule.n_ops:
        op_column(schedule, "start", 0)
        op_column(schedule, "end", -1)
        schedule.op_starts  # noqa: B018 (cached properties: reading them builds them)
        schedule.op_ends  # noqa: B018
        typical_duration(derived)


#: name → function of (Schedule, its Scenario or None), run for every Schedule of a run
#: (each step is a point where a stale job is dropped).
DERIVATIONS: tuple[tuple[str, Derivation], ...] = (
    ("stats", _stats),
    ("narration", warm_narration),
    ("gantt", warm_gantt),
    ("assembly", warm_assembly),
)

#: The steps that may run on a thread of their own beside the others (a big Schedule
#: derived alone: an edit that keeps the other run, or one policy shown).
APART = run_steps.Apart(frozenset({"assembly"}), share_before_assembly)


@dataclass(frozen=True, eq=False)
class Run:
    """One run the app shows: a scenario's Schedules (or measured ones, ``scenario`` None),
    its title, each Schedule's `Derived` (``derived``: the indexes and summaries the
    views read, built by `DERIVATIONS`), and what each step returned (``results``)."""

    scenario: Scenario | None
    preset: str
    title: str
    schedules: tuple[Schedule, ...]
    results: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    derived: tuple[Derived, ...] = ()
    #: Per Schedule: seconds each step took ("simulate", then each of `DERIVATIONS`), for
    #: benchmarks (steps of different Schedules may have run side by side).
    timings: tuple[Mapping[str, float], ...] = ()
    #: What the run is, in a sentence (an external run's; a scenario's run says its
    #: scenario's description).
    description: str = ""

    @property
    def stats(self) -> tuple[ScheduleStats, ...]:
        return self.results["stats"]  # type: ignore[return-value]

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(s.policy for s in self.schedules)


def compute_run(
    scenario: Scenario | None,
    policies: tuple[str, ...],
    preset: str = "",
    title: str = "",
    given: tuple[Schedule, ...] = (),
    reuse: Run | None = None,
) -> Generator[str, None, Run]:
    """Simulate ``scenario`` under ``policies`` (or take the ``given`` Schedules), then
    derive everything per Schedule. Yields a word after each step (an abort point).

    ``reuse``: a Run whose Schedules for these policies are taken as they are when they
    are this scenario's (switching the view from both to pipelined simulates nothing;
    nor does the sequential run of an edit of the slots).

    Big runs (`gui.run_steps.PARALLEL_TASKS`) work on their Schedules side by side, one
    thread each (the compiled scheduler and numpy release the GIL), and yield every few ms
    while they wait; a big Schedule with work to do alone runs its `APART` steps beside
    the others; a dropped job stops them after the step in progress."""
    plans: list[Plan] = []
    if scenario is not None and not given:
        for policy in policies:
            known = _reusable(reuse, scenario, policy)
            if known is not None and reuse is not None:
                plans.append(
                    Plan(
                        policy,
                        reuse.schedules[known],
                        _results_of(reuse, known),
                        reuse.derived[known] if reuse.derived else None,
                    )
                )
            else:
                plans.append(Plan(policy, None, {}))
    else:
        plans = [Plan(s.policy, s, {}) for s in given]
    expected = 3 * scenario.n_ops if scenario is not None else 0  # tasks of a run to simulate
    tasks = sum(len(plan.schedule) if plan.schedule is not None else expected for plan in plans)
    steps = (simulate, DERIVATIONS, APART)
    if run_steps.working_plans(plans, steps) > 1 and tasks >= run_steps.PARALLEL_TASKS:
        results = yield from run_steps.side_by_side(plans, scenario, steps)
    else:
        results = yield from run_steps.in_turn(plans, scenario, steps)
    derived = tuple(d for d, _, _ in results)
    schedules = tuple(d.schedule for d in derived)
    values = {name: tuple(found[name] for _, found, _ in results) for name, _ in DERIVATIONS}
    title = title or (scenario.name if scenario is not None else "")
    timings = tuple(MappingProxyType(times) for _, _, times in results)
    return Run(
        scenario, preset, title, schedules, MappingProxyType(values), derived, timings=timings
    )


def _results_of(run: Run, index: int) -> dict[str, object]:
    return {name: values[index] for name, values in run.results.items()}


def _reusable(run: Run | None, scenario: Scenario, policy: str) -> int | None:
    """Which of ``run``'s Schedules is ``scenario``'s under ``policy`` already: that of
    the same scenario (another view of it), or of a scenario that differs in nothing
    that matters to ``policy`` (a sequential run, when only the slots changed: it has one
    slot whatever the scenario says, and its stats read no scenario)."""
    if run is None or run.scenario is None or policy not in run.policies:
        return None
    if run.scenario is not scenario and (
        policy != "sequential" or difference_names(run.scenario, scenario, policy) is not None
    ):
        return None
    return run.policies.index(policy)


# -- pins ----------------------------------------------------------------------------------


def pinned(run: Run) -> Run:
    """``run`` as a pin: its Schedules and stats relabelled "pinned …" so that every view
    and export tells them from the current run."""
    tag = f" · {summary(run.scenario, ops=False)}" if run.scenario is not None else ""
    schedules = tuple(
        s.with_meta(label=f"pinned {s.label or s.policy}{tag}") for s in run.schedules
    )
    results = dict(run.results)
    if "stats" in results:
        results["stats"] = tuple(
            replace(stats, title=s.label) for stats, s in zip(run.stats, schedules, strict=True)
        )
    # (New Schedules, so a new Derived each: built again as the views ask.)
    derived = tuple(figure_rows.derived_for(s) for s in schedules)
    return Run(run.scenario, run.preset, f"pinned: {run.title}", schedules, results, derived)


def difference_names(
    a: Scenario | None, b: Scenario | None, policy: str = "pipelined"
) -> tuple[str, str] | None:
    """Short names for two runs of ``policy`` by what differs between their scenarios:
    ("2 slots", "3 slots"), ("1 load worker", "2 load workers"), ("read 1 s", "read 2 s")…
    None when nothing that matters to ``policy`` differs (sequential runs have one slot
    whatever the scenario says)."""
    if a is None or b is None:
        return ("pinned", "now")
    names = differences(a, b, policy)
    if not names:
        return None
    return (", ".join(n for n, _ in names[:2]), ", ".join(n for _, n in names[:2]))


def differences(a: Scenario, b: Scenario, policy: str = "pipelined") -> list[tuple[str, str]]:
    """Each thing that differs between two runs of ``policy``, named for each run, in the
    order `difference_names` says them."""
    names: list[tuple[str, str]] = []
    if a.n_ops != b.n_ops:
        names.append((f"{a.n_ops:,} ops", f"{b.n_ops:,} ops"))
    if a.buffers != b.buffers and policy != "sequential":
        names.append((slots_words(a.buffers), slots_words(b.buffers)))
    for unit, ka, kb in zip(UNITS, a.workers, b.workers, strict=True):
        if ka != kb:
            names.append((_workers(ka, unit), _workers(kb, unit)))
    for stage in STAGES:
        wa, wb = stage_words(a, stage), stage_words(b, stage)
        if wa != wb:
            names.append((f"{stage} {wa}", f"{stage} {wb}"))
        elif a.n_ops == b.n_ops and not _same(a, b, stage):
            names.append((f"{stage} as pinned", f"{stage} edited"))
    return names


def _workers(k: int, unit: str) -> str:
    return f"{k} {unit} worker" + ("" if k == 1 else "s")


def _same(a: Scenario, b: Scenario, stage: str) -> bool:
    return bool(np.array_equal(getattr(a, stage), getattr(b, stage)))


def compare_line(pin: Run, current: Run, policy: str) -> str | None:
    """ "2 slots: 6 s · 3 slots: 5 s (1 s faster)" for one policy of both runs; None when
    the two runs of that policy have the same settings (and so the same result)."""
    a = pin.schedules[pin.policies.index(policy)]
    b = current.schedules[current.policies.index(policy)]
    names = difference_names(pin.scenario, current.scenario, policy)
    if names is None:
        return None
    name_a, name_b = names
    unit = b.time_unit
    span_a, span_b = a.makespan, b.makespan
    delta = span_b - span_a
    tolerance = time_tolerance(max(span_a, span_b))
    if abs(delta) <= tolerance:
        change = "the same"
    else:
        change = f"{format_time(abs(delta), unit)} {'faster' if delta < 0 else 'slower'}"
    return (
        f"{name_a}: {format_time(span_a, unit)} · {name_b}: {format_time(span_b, unit)} ({change})"
    )


# -- what the views show -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Shown:
    """Pinned runs and the current run, composed for the views."""

    current: Run
    pins: tuple[Run, ...]
    schedules: tuple[Schedule, ...]
    stats: tuple[ScheduleStats, ...]
    headlines: tuple[StatLine, ...]
    comparisons: tuple[str, ...]
    events: EventUnion
    end: float
    #: Each Schedule's heading in a figure (`compose` names the compared runs).
    titles: tuple[str, ...] = ()
    #: Each Schedule's `Derived` (its run's).
    derived: tuple[Derived, ...] = ()

    @property
    def title(self) -> str:
        return self.current.title

    @property
    def animated(self) -> tuple[Schedule, ...]:
        """The Schedules the assembly line animates (see `MAX_LANES`)."""
        if len(self.schedules) <= MAX_LANES:
            return self.schedules
        return self.current.schedules

    @property
    def time_unit(self) -> str:
        return self.schedules[0].time_unit if self.schedules else "s"


def compose(current: Run, pins: tuple[Run, ...]) -> Shown:
    """Pinned runs (those on the current run's time unit) and the current run, one clock:
    each pinned Schedule right above the current Schedule of its policy (the two compared
    side by side; pins of a policy not shown now come first), each headed by what it is
    and how the two differ ("pinned pipelined · 3 ops · 2 slots" above "pipelined · 3 ops
    · 3 slots").

    A pinned Schedule whose settings equal the current one's for its policy (a sequential
    run, when only the slots changed) is left out: it would show the same bars twice."""
    unit = current.schedules[0].time_unit if current.schedules else "s"
    above: dict[str, list[_Placed]] = {policy: [] for policy in current.policies}
    first: list[_Placed] = []  # pins of policies the current run does not show
    headlines: list[StatLine] = []
    comparisons: list[str] = []
    same = False  # a pin of a shown policy was left out for equalling the current run
    for pin in pins:
        if not pin.schedules or pin.schedules[0].time_unit != unit:
            continue
        for derived, schedule_stats_ in zip(pin.derived, pin.stats, strict=True):
            schedule = derived.schedule
            policy = schedule.policy
            if policy not in current.policies:
                first.append(_Placed(derived, schedule_stats_, pinned_title(schedule)))
                continue
            line = compare_line(pin, current, policy)
            if line is None:
                same = True
                continue  # the same as the current run's
            names = _title_differences(pin.scenario, current.scenario, policy)
            title = pinned_title(schedule, [a for a, _ in names])
            above[policy].append(_Placed(derived, schedule_stats_, title, names))
            comparisons.append(f"{policy}: {line}" if len(current.policies) > 1 else line)
            headlines.append(
                StatLine(
                    f"{policy} vs pinned",
                    line,
                    "The pinned run's makespan beside the current run's, each named by what "
                    "differs between their scenarios, and how much sooner or later the "
                    "current run ends.",
                )
            )
    if same and not comparisons:
        # (only about a pin that could be drawn here: one on another time unit, or of a
        # policy not shown, is compared with nothing)
        comparisons.append("the pinned run has the same settings as this one")
    placed = list(first)
    for derived, schedule_stats_ in zip(current.derived, current.stats, strict=True):
        schedule = derived.schedule
        compared = above.get(schedule.policy, [])
        names = compared[-1].names if compared else []  # (the nearest pin's differences)
        title = _with_words(run_title(schedule), [b for _, b in names])
        placed += [*compared, _Placed(derived, schedule_stats_, title)]
    speedup = comparison(list(current.schedules))
    if speedup is not None:
        headlines.append(speedup)
    derived_all = tuple(p.derived for p in placed)
    schedules = tuple(d.schedule for d in derived_all)
    return Shown(
        current,
        pins,
        schedules,
        tuple(p.stats for p in placed),
        tuple(headlines),
        tuple(comparisons),
        events_of(derived_all),
        max((s.makespan for s in schedules), default=0.0),
        tuple(p.title for p in placed),
        derived_all,
    )


@dataclass(frozen=True)
class _Placed:
    """A Schedule (with its `Derived`) in the order `compose` shows it, its stats, its
    figure heading, and (a pinned one) what differs from the current run, named for each."""

    derived: Derived
    stats: ScheduleStats
    title: str
    names: list[tuple[str, str]] = field(default_factory=list)


def pinned_title(schedule: Schedule, words: list[str] | None = None) -> str:
    """A pinned Schedule's figure heading: "pinned pipelined · 3 ops · 2 slots", and
    ``words`` it does not say yet (a simulated pin is named by its policy: its label
    repeats its slots)."""
    name = f"pinned {schedule.policy}" if schedule.source == "simulated" else ""
    return _with_words(run_title(schedule, name), words or [])


def _title_differences(
    a: Scenario | None, b: Scenario | None, policy: str
) -> list[tuple[str, str]]:
    return differences(a, b, policy) if a is not None and b is not None else []


def _with_words(title: str, words: list[str]) -> str:
    """``title`` and the ``words`` that it does not already say, joined by " · "."""
    said = title.split(" · ")
    return " · ".join([*said, *(w for w in words if w not in said)])
