"""engine.view_model's caches live on their Schedule: computed once, and freed with it (a
module-level cache keyed by Schedules kept up to 16 dead ones, and their arrays, alive)."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from engine import view_model
from engine.scenario import load_preset
from engine.scheduler import simulate

#: Every cached view function, called the way the app calls it.
CACHED = {
    "op_transitions": lambda s: view_model.op_transitions(s),
    "typical_duration": lambda s: view_model.typical_duration(s),
    "slot_assignment": lambda s: view_model.slot_assignment(s),
    "_op_index": lambda s: view_model._op_index(s),
}


def test_each_view_is_computed_once_per_schedule() -> None:
    schedule = simulate(load_preset("uneven-ops"))
    for name, call in CACHED.items():
        first = call(schedule)
        assert call(schedule) is first, name
    other = simulate(load_preset("uneven-ops"))
    assert view_model.op_transitions(other) is not view_model.op_transitions(schedule)
    assert np.array_equal(view_model.op_transitions(other), view_model.op_transitions(schedule))


def test_caches_are_freed_with_their_schedule() -> None:
    schedule = simulate(load_preset("book").with_changes(ops=1000))
    alive = weakref.ref(schedule)
    values = [weakref.ref(view_model.op_transitions(schedule))]
    values.append(weakref.ref(view_model.slot_assignment(schedule)))
    values.append(weakref.ref(view_model._op_index(schedule)))
    view_model.typical_duration(schedule)
    view_model.ops_now(schedule, 1.0, 0.1, 4)  # the assembly line's per-frame query
    view_model.slot_holders(schedule, 1.0, 3)
    del schedule
    gc.collect()
    assert alive() is None
    assert all(ref() is None for ref in values)


def test_no_module_level_cache_keeps_schedules() -> None:
    """Whatever the functions do inside, no lru_cache may sit on a Schedule argument."""
    for name in dir(view_model):
        function = getattr(view_model, name)
        assert not hasattr(function, "cache_info"), f"{name} has a module-level cache"


def test_with_meta_shares_the_columns() -> None:
    schedule = simulate(load_preset("book").with_changes(ops=1000))
    relabelled = schedule.with_meta(label="again", policy="pipelined")
    for column in ("op", "stage", "unit", "worker", "start", "end", "grant"):
        assert getattr(relabelled, column) is getattr(schedule, column), column
    assert relabelled.label == "again" and schedule.label != "again"
    assert not relabelled.start.flags.writeable
