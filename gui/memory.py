"""The app's memory between runs, tuned once for the process at start-up (`gui.app.make_app`).

A 10^6-op edit makes hundreds of MB of new arrays. glibc hands freed blocks back to the
system on its own (every block above its adaptive mapping threshold, the top of a heap
beyond a few MB), so each run would fault its pages in afresh: 85–130 MB an edit at 10^6 ops
with two workers per unit, about 1.4 ms a MB on a virtual machine that hands freed pages
to its host (bench/gui_edit.py measures this machine's cost). `hold_freed_memory` tells
glibc to keep what is freed, so each run reuses the pages the one before freed (0–11 MB
faulted an edit); the app model hands them back itself once at rest
(`release_freed_memory`, after `gui.app_model.RELEASE_AFTER_MS`), so the resident size at
rest stays that of the runs shown (0.91× the columns with one arena; 1.25× with the
derive threads' own arenas, whose tops malloc_trim does not shrink). Elsewhere than glibc
both do nothing.
"""

from __future__ import annotations

import ctypes
import functools
import sys


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
        # The process's own symbols, its C library's among them: no search for the
        # library's file (ctypes.util.find_library runs ldconfig, a process of its own).
        libc = ctypes.CDLL(None)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc
