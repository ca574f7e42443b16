"""The clock keeps a real time: a NaN from a caller never becomes "now"."""

from __future__ import annotations

from gui.clock import Clock


def test_seek_ignores_nan_and_clamps_infinities(qapp) -> None:
    clock = Clock()
    clock.set_timeline([1.0, 2.0], 5.0)
    seen: list[float] = []
    clock.time_changed.connect(seen.append)
    clock.seek(2.5)
    clock.seek(float("nan"))
    assert clock.time == 2.5 and seen == [2.5]
    clock.seek(float("inf"))
    assert clock.time == 5.0
    clock.seek(float("-inf"))
    assert clock.time == 0.0
