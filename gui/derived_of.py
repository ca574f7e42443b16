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
    return keep(Derived(schedule))
