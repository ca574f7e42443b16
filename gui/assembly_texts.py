"""What a lane of the assembly line says, in words, longest variant first (the layout picks
the longest that fits): its status, the shared-memory heading and usage, and `lane_spec`,
everything the lane's layout depends on."""

from __future__ import annotations

from engine.analysis.derived import Derived
from engine.base.text import elided, format_time
from engine.base.tolerance import time_tolerance
from engine.model.schedule import Pool, Schedule
from gui.assembly_parts import LaneSpec, PoolSpec

#: The most characters of a stage's name a slot's caption gives ("waits epilog…").
CAPTION_CHARS = 14


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


def pool_heading(pool: Pool) -> tuple[str, ...]:
    """A shape's pool shelf heading's variants, longest first ("smem stages · 4 slots")."""
    size = f"{pool.size} slot{'s' if pool.size != 1 else ''}" if pool.size > 0 else "unlimited"
    name = elided(pool.name, 40)
    return (f"{name} · {size}", name, elided(name, 12), elided(name, 6))


def pool_usage(in_use: int, peak: int) -> tuple[str, ...]:
    """How many of a pool's slots are in use, in words, longest first."""
    return (f"{in_use} in use · peak {peak}", f"{in_use} in use", f"{in_use}")


def slot_words(word: str) -> str:
    """A slot's state in a shape's words, its stage's name cut to `CAPTION_CHARS`."""
    waits = word.startswith("waits ")
    name = elided(word[6:] if waits else word, CAPTION_CHARS)
    return f"waits {name}" if waits else name


def pool_specs(derived: Derived) -> tuple[PoolSpec, ...]:
    """A shape's run: what each pool's shelf layout needs (its slots: its size, or as
    many as were held at once when unlimited; the words its slots can say: an op holding
    it runs or waits for one of the stages from its first to its last)."""
    schedule, index = derived.schedule, derived.assembly
    specs = []
    for pool, slots in zip(schedule.pools, index.pools, strict=True):
        count = max(pool.size, slots.plan.count)
        stages = schedule.stage_names[pool.first : pool.last + 1]
        words = ("free", *(slot_words(f"{w}{name}") for name in stages for w in ("", "waits ")))
        specs.append(
            PoolSpec(
                slots=count,
                heading=pool_heading(pool),
                usage_widest=tuple(_widest_digits(t) for t in pool_usage(count, slots.peak)),
                captions=(words, words),
            )
        )
    return tuple(specs)


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
    pools: tuple[PoolSpec, ...] = ()
    if pipeline and derived.assembly.shape:  # a shape's run: a shelf per pool, if any
        pools = pool_specs(derived)
    elif pipeline:
        index = derived.assembly.slots
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
        pools=pools,
    )


def static_signature(derived: Derived) -> tuple[object, ...]:
    """Everything the static layer of a lane shows about ``derived``'s Schedule."""
    return (lane_spec(derived),)
