"""Test-wide setup: Qt offscreen before any QApplication exists, and no leaked threads."""

from __future__ import annotations

import gc
import os
import threading
import time

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# CI runs the property tests deterministically (the same examples every run), so a landing
# never depends on luck; at a desk they explore new examples each run.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every test module is imported: move what exists now (Qt's, pyqtgraph's, numpy's
    and hypothesis' module objects) out of the cyclic collector's reach, so that its
    collections during the tests stop rescanning them (tests/gui/test_main_window.py and
    test_window_layout.py: about 6.2 s -> 5.8 s)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_leaked_threads():
    """Fail a test that leaves a Python thread running (napari's rule)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2.0
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert not leaked, f"test left threads running: {[t.name for t in leaked]}"
