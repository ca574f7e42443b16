"""Which `engine.derived.Derived` the views read for a Schedule they show.

A `gui.runs.Run` owns its Schedules' `Derived` (its derivation steps build them on the
worker thread) and registers them here; the views, which are handed Schedules, find the
run's by the Schedule (`derived_of`). The table holds no Derived alive: an entry goes
when its Run lets its Derived go (a Derived holds its Schedule, so the id cannot be
reused meanwhile). A Schedule shown without a Run (a test's, a measured one the GPU
panel keeps, see `keep`) gets one of its own, made on the spot and kept only by whoever
`keep`s it.

(A step on the way to passing each view its Derived with its Schedule: see
docs/derived.md.)
"""

from __future__ import annotations

import threading
import weakref

from engine.derived import Derived
from engine.schedule import Schedule

_SHOWN: weakref.WeakValueDictionary[int, Derived] = weakref.WeakValueDictionary()
_LOCK = threading.Lock()


def derived_for(schedule: Schedule) -> Derived:
    """A new `Derived` of ``schedule`` as the app reads it: an imported profile's lanes
    wait for the reasons its trace shows (`gpu.profile.idle`), not the pipeline's."""
    if schedule.task_name is not None:  # (gpu.profile is imported once a profile is open)
        from gpu.profile.idle import lane_idle
        from gpu.profile.lanes import is_profile_schedule

        if is_profile_schedule(schedule):
            return Derived(schedule, lane_idle)
    return Derived(schedule)


def keep(derived: Derived) -> Derived:
    """Register ``derived`` as the one the views read for its Schedule (held by the
    caller: the entry lasts as long as the caller keeps it)."""
    with _LOCK:
        known = _SHOWN.get(id(derived.schedule))
        if known is not None and known.schedule is derived.schedule:
            return known
        _SHOWN[id(derived.schedule)] = derived
    return derived


def derived_of(schedule: Schedule) -> Derived:
    """The registered `Derived` of ``schedule``, else a new one (registered while it
    lives: a caller that keeps it keeps what it builds)."""
    with _LOCK:
        known = _SHOWN.get(id(schedule))
    if known is not None and known.schedule is schedule:
        return known
    return keep(derived_for(schedule))
