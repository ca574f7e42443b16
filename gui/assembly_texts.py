"""What a lane of the assembly line says, in words, longest variant first (the layout picks
the longest that fits): its status, the shared-memory heading and usage, and `lane_spec`,
everything the lane's layout depends on."""

from __future__ import annotations

from engine.derived import Derived
from engine.schedule import Schedule
from engine.text import format_time
from engine.tolerance import time_tolerance
from gui.assembly_parts import LaneSpec


def _widest_digits(text: str) -> str:
    return "".join("8" if c.isdigit() else c for c in text)


def _widest_time(schedule: Schedule) -> str:
    """The widest text `format_time` gives for a time in this run."""
    sample = format_time(schedule.makespan * 0.987654321 or 8.888, schedule.time_unit)
    return max(_widest_digits(sample), "8.88 ms", key=len)  # "1,000,002 s" or "8.88 ms"


def memory_heading(schedule: Schedule) -> tuple[str, ...]:
    """The shared-memory heading's variants, longest first."""
    b = schedule.buffers
    if b > 0:
        return (f"shared memory · {b} slot{'s' if b != 1 else ''}", "shared memory", "memory")
    return ("shared memory · unlimited", "shared memory", "memory")


def memory_usage(schedule: Schedule, in_use: int, peak: int) -> tuple[str, ...]:
    """How many slots are in use, in words, longest first."""
    b = schedule.buffers
    if b > 0:
        return (f"{in_use} of {b} in use", f"{in_use}/{b} in use", f"{in_use}/{b}")
    return (f"{in_use} in use · peak {peak}", f"{in_use} in use", f"{in_use}")


def status_texts(schedule: Schedule, time: float, makespan: float) -> tuple[tuple[str, ...], bool]:
    """The lane's status variants at ``time`` (longest first), and whether it is done."""
    unit = schedule.time_unit
    span = format_time(makespan, unit)
    if not len(schedule):
        return ("no tasks",), False
    if time >= makespan - time_tolerance(makespan):
        return (f"done in {span}", span), True
    now = format_time(time, unit)
    return (f"t = {now} of {span}", f"{now} / {span}", now), False


def lane_spec(derived: Derived) -> LaneSpec:
    """What the layout of a Schedule's lane depends on (its static signature), from its
    `Derived` (the run's)."""
    schedule = derived.schedule
    pipeline = schedule.is_pipeline and schedule.n_ops > 0
    slots = 0
    usage_widest: tuple[str, ...] = ("",)
    if pipeline:
        index = derived.assembly
        # A measured run may hold more slots than it was given: show them all.
        slots = max(schedule.buffers, index.plan.count)
        usage_widest = tuple(
            _widest_digits(t) for t in memory_usage(schedule, max(slots, index.peak), index.peak)
        )
    widest = _widest_time(schedule)
    title = f"{schedule.label or schedule.policy}" + (
        " (measured)" if schedule.source == "measured" else ""
    )
    if not pipeline and schedule.task_name is not None:
        # An imported trace's activities are not ops that travel the line: its stations
        # show which streams run; where it has chains, their pipeline is animated beside.
        title += " · its streams at work: a trace's activities are not ops that travel"
    units = []
    for unit in range(schedule.n_units):
        variants = [schedule.unit_title(unit), schedule.unit_names[unit]]
        units.append(tuple(dict.fromkeys(variants)))
    return LaneSpec(
        title=title,
        unit_titles=tuple(units),
        workers=tuple(schedule.workers),
        slots=slots,
        pipeline=pipeline,
        status_widest=(f"t = {widest} of {widest}", f"{widest} / {widest}", widest),
        memory_heading=memory_heading(schedule),
        usage_widest=usage_widest,
        digits=len(str(max(1, schedule.n_ops))),
    )


def static_signature(derived: Derived) -> tuple[object, ...]:
    """Everything the static layer of a lane shows about ``derived``'s Schedule."""
    return (lane_spec(derived),)
