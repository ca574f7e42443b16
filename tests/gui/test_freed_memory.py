"""Memory a run frees stays with the app while edits follow one another, and goes back
to the system when the app hands it back (`gui.memory`): measured in a fresh
process's resident pages (glibc's state is its own there), on glibc; elsewhere the app
leaves the allocator as it is. An export hands back what it freed at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import os, sys, threading
import numpy as np
from gui.memory import hold_freed_memory, release_freed_memory

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

if sys.argv[1] == "hold" and not hold_freed_memory():
    print("not glibc")
    sys.exit(0)
before = resident_mb()
block = np.ones(24 * 2**20 // 8)  # a 10^6-op column with two workers per unit
grown = resident_mb() - before
del block
kept = resident_mb() - before
again = np.ones(24 * 2**20 // 8)  # the next run's column
regrown = resident_mb() - before - kept
del again
release_freed_memory()
released = resident_mb() - before
# A run's derive threads allocate and free too: handed back as well.
worker = threading.Thread(target=lambda: np.ones(24 * 2**20 // 8).sum())
worker.start()
worker.join()
release_freed_memory()
print(f"{grown:.1f} {kept:.1f} {regrown:.1f} {released:.1f} {resident_mb() - before:.1f}")
"""


def _probe(mode: str) -> list[float] | None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True, text=True, check=True
    )
    words = done.stdout.split()
    return None if words == ["not", "glibc"] else [float(w) for w in words]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator only")
def test_freed_memory_is_kept_until_handed_back() -> None:
    held = _probe("hold")
    if held is None:
        pytest.skip("not glibc: the allocator is left as it is")
    grown, kept, regrown, released, threads = held
    assert grown > 20, held
    assert kept > 20, held  # freed, and still the app's: the next run takes these pages
    assert regrown < 4, held  # ... without faulting new ones in
    assert released < 8, held  # handed back once the app is at rest
    assert threads < 8, held  # what another thread freed too (one arena: trimmed)
    # glibc's defaults hand such a block back at once: the next run faults it in again.
    grown, kept, regrown, _, _ = _probe("defaults")  # type: ignore[misc]
    assert grown > 20 and kept < 8 and regrown > 20


def test_an_export_hands_its_memory_back_at_once(
    qapp: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export's frames and buffers (1.2 GB for a GIF of 10^6 ops) are not kept for
    the next run: written or failed, the export hands freed memory back."""
    import gui.export
    from engine.model.scenario import load_preset
    from engine.model.scheduler import simulate

    released: list[int] = []
    monkeypatch.setattr(gui.export, "release_freed_memory", lambda: released.append(1))
    schedules = [simulate(load_preset("book"), "pipelined")]
    gui.export.export(schedules, tmp_path / "book.png", width=400)
    assert (tmp_path / "book.png").stat().st_size > 0 and released == [1]

    def failing(*args: object, **kwargs: object) -> bytes:
        raise MemoryError

    monkeypatch.setattr(gui.export, "render", failing)
    with pytest.raises(MemoryError):
        gui.export.export(schedules, tmp_path / "again.png", width=400)
    assert released == [1, 1] and not (tmp_path / "again.png").exists()
