"""`Derived`: everything PipeLab derives from one Schedule and keeps, in one typed object.

Each index and summary the views, stats and exports read is built on first use, one way
(never by what happens to be built already), and lives as long as its `Derived`, which
whoever owns the Schedule's lifetime makes: the app's `gui.runs.Run`, the command line and
the exports. docs/derived.md lists each, the question it answers, who asks and its cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from engine.analysis.assembly_model import AssemblyIndex, build_index
from engine.analysis.metrics import OpWork, measure_busy, op_work
from engine.indexes.event_union import EventUnion, schedule_events
from engine.indexes.span_index import SpanIndex
from engine.model.schedule import OpOrder, Schedule, sort_op_column
from engine.reasons.critical_path import critical_path
from engine.reasons.wait_index import WaitIndex
from engine.reasons.waits import (
    IdleSpans,
    IdleSummary,
    OpWaits,
    OwnReasons,
    build_idle_spans,
    build_idle_summary,
    build_op_waits,
    find_op_wait_reasons,
)

FloatArray = npt.NDArray[np.float64]
T = TypeVar("T")


class OpColumns:
    """Each stage's starts and ends sorted (`engine.model.schedule.sort_op_column`), once per
    stage and kind, shared by the indexes that search them (waits, events, assembly)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self._sorted: dict[tuple[str, int], tuple[FloatArray, OpOrder | None]] = {}

    def sorted(self, kind: str, stage: int) -> tuple[FloatArray, OpOrder | None]:
        """Stage ``stage``'s ``kind`` ("start" or "end") column sorted, and the ops in that
        order (None where the column is in op order already: then it is the column)."""
        key = (kind, stage % len(self.schedule.stage_names))
        found = self._sorted.get(key)
        if found is None:
            found = self._sorted[key] = sort_op_column(self.schedule, kind, key[1])
        return found


class Derived:
    """What is derived from one Schedule, each member built on first use and then kept
    (docs/derived.md lists them). ``own_reasons`` builds the wait reasons of rows that
    wait for reasons the pipeline's rules don't give (an imported profile's lanes: the
    layer that reads the file knows them); None for simulated and measured runs."""

    def __init__(
        self, schedule: Schedule, own_reasons: Callable[[Schedule], OwnReasons] | None = None
    ) -> None:
        self.schedule = schedule
        self.columns = OpColumns(schedule)
        self._own_reasons = own_reasons
        self._kept: dict[str, Any] = {}

    def built(self) -> frozenset[str]:
        """The members built so far (for tests and benchmarks)."""
        return frozenset(self._kept)

    def _member(self, name: str, build: Callable[[], T]) -> T:
        # (No lock: two threads that build one member at once both get a correct value,
        # and the app's steps build each member on one thread; see gui.run_steps.)
        if name not in self._kept:
            self._kept[name] = build()
        value: T = self._kept[name]
        return value

    # -- indexes ----------------------------------------------------------------------

    @property
    def waits(self) -> WaitIndex:
        """The wait reasons' index: each unit's tasks, ready times, slot holds."""
        return self._member("waits", lambda: WaitIndex(self.schedule, self.columns))

    @property
    def events(self) -> EventUnion:
        """The event times (0, every start and end: `schedule_events`)."""
        return self._member("events", lambda: schedule_events(self.schedule, self.columns))

    @property
    def assembly(self) -> AssemblyIndex:
        """The assembly line's index (op transitions sorted, slot plan)."""
        return self._member("assembly", lambda: build_index(self.schedule, self.columns))

    @property
    def task_spans(self) -> SpanIndex:
        """The worker rows' tasks indexed for views (the Gantt, the exports)."""
        return self._member("task_spans", lambda: SpanIndex.of_schedule(self.schedule))

    # -- the wait reasons ---------------------------------------------------------------

    @property
    def idle_spans(self) -> IdleSpans:
        """Every worker's idle time with its reason (`engine.reasons.waits`)."""
        return self._member("idle_spans", lambda: build_idle_spans(self.waits))

    @property
    def idle_summary(self) -> IdleSummary:
        """`idle_spans` added up (stats, legends), without keeping them where it can be."""
        return self._member("idle_summary", lambda: build_idle_summary(self))

    @property
    def own_reasons(self) -> OwnReasons | None:
        """The rows' own wait reasons (an imported profile's), else None."""
        build = self._own_reasons
        if build is None:
            return None
        return self._member("own_reasons", lambda: build(self.schedule))

    @property
    def op_waits(self) -> OpWaits:
        """Every op's waiting time with its reason."""
        return self._member("op_waits", lambda: build_op_waits(self.waits))

    @property
    def op_wait_reasons(self) -> tuple[str, ...]:
        """The reasons some op waits for (a legend's), found without `op_waits` where it can be."""
        return self._member("op_wait_reasons", lambda: find_op_wait_reasons(self))

    # -- summaries ----------------------------------------------------------------------

    @property
    def busy_by_worker(self) -> FloatArray:
        """Busy time of every worker, overlaps counted once (read-only)."""
        return self._member("busy_by_worker", lambda: measure_busy(self.schedule))

    @property
    def op_work(self) -> OpWork | None:
        """A three-stage pipeline's per-op work figures (None for other Schedules)."""
        return self._member("op_work", lambda: op_work(self.schedule))

    @property
    def critical_charges(self) -> dict[str, float]:
        """The time the critical path charges to each resource."""
        return self._member("critical_charges", lambda: critical_path(self.schedule).charged)

    @property
    def narrations(self) -> dict[float, str]:
        """The narration's lines said so far, by time (`engine.analysis.timeline.narrate`)."""
        return self._member("narrations", dict)
