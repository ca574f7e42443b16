"""engine.analysis.view_model keeps no Schedule alive (a module-level cache keyed by Schedules once
kept up to 16 dead ones, and their arrays, alive); `with_meta` shares the columns."""

from __future__ import annotations

from engine.analysis import view_model
from engine.model.scenario import load_preset
from engine.model.scheduler import simulate


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
