"""The one CUDA-event timer (gpu/timing.py) on the fake CuPy: N back-to-back launches
between one event pair, queued behind a spin kernel before the begin event; N chosen for
>= 20 launches and >= 2 ms (at most MAX_LAUNCHES); the host-bound check; the warm-up; and
every experiment timing through it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpu import timing
from gpu.experiments import run_to_end
from gpu.params import MIB, PipelineParams
from gpu.timing import EventTimer, launches_needed


def windows(device_ops: list[tuple[str, object]], begin: object, end: object) -> list[list[str]]:
    """The device operations between each record of ``begin`` and the next of ``end``."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for operation, _stream in device_ops:
        if operation == f"event record {id(begin)}":
            current = []
        elif operation == f"event record {id(end)}":
            assert current is not None, "end recorded before begin"
            found.append(current)
            current = None
        elif current is not None:
            current.append(operation)
    return found


class Kernel:
    """A launch that logs itself on the timer's stream (the fake logs real kernels so too)."""

    def __init__(self, cupy, timer: EventTimer) -> None:
        self.cupy, self.timer, self.count = cupy, timer, 0

    def __call__(self) -> None:
        from gpu_fakes import _log

        self.count += 1
        _log("kernel probe", self.timer.stream)


def test_measure_issues_n_launches_between_one_event_pair(fake_cupy) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    kernel = Kernel(cupy, timer)
    result = timer.measure(kernel, repeats=3, warmup=1, min_launches=20, min_window_ms=0.0)
    assert result.launches == 20 and len(result.per_launch_ms) == 3
    found = windows(cupy.device_ops, timer.begin, timer.end)
    # The probe, one warm-up and three timed windows: each exactly N launches, nothing else.
    assert [len(w) for w in found] == [20] * 5
    assert all(set(w) == {"kernel probe"} for w in found)
    assert kernel.count == 100
    # Everything went on the timer's own (non-blocking) stream.
    assert {id(s) for _, s in cupy.device_ops} == {id(timer.stream)}


def test_the_window_is_divided_by_the_launches(fake_cupy, monkeypatch) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    monkeypatch.setattr(timer, "window_ms", lambda action, launches=1: 0.5 * launches + 0.2)
    result = timer.measure(lambda: None, repeats=2, warmup=0, min_launches=20, min_window_ms=0)
    # 20 launches of 0.5 ms plus 0.2 ms of fixed cost per window: 0.51 ms per launch.
    assert result.per_launch_ms == pytest.approx((0.51, 0.51))
    assert result.median_ms == pytest.approx(0.51)


@pytest.mark.parametrize(
    ("per_launch", "expected"),
    [(0.13, 20), (0.05, 40), (0.005, 400), (0.0, 20), (0.001, 512), (1e-9, 512)],
)
def test_launches_reach_20_and_2_ms(per_launch: float, expected: int) -> None:
    """At most 512: a stream holds about 1,000 pending launches before the host blocks."""
    assert timing.MAX_LAUNCHES == 512
    assert launches_needed(per_launch, 20, 2.0) == expected


def test_a_spin_precedes_the_begin_event_and_the_launches_sit_inside(fake_cupy) -> None:
    """Every window: the spin kernel, then begin, then exactly the N launches, then end, all
    on the timer's stream; so the host queues the N while the device spins."""
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    kernel = Kernel(cupy, timer)
    timer.measure(kernel, repeats=2, warmup=1, min_launches=20, min_window_ms=0.0)
    operations = [operation for operation, _ in cupy.device_ops]
    begin, end = f"event record {id(timer.begin)}", f"event record {id(timer.end)}"
    window = ["kernel pipelab_spin", begin, *["kernel probe"] * 20, end]
    assert operations == window * 4  # the probe, one warm-up, two timed windows
    assert {id(s) for _, s in cupy.device_ops} == {id(timer.stream)}
    # Compiled once for the timer, however many windows; 1 ms while the host is fast.
    assert len([code for code, _ in cupy.compiled if "pipelab_spin" in code]) == 1
    assert cupy.spins and all(ms >= timing.SPIN_MS for ms in cupy.spins)


def test_the_spin_grows_with_the_hosts_queueing_time(fake_cupy) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    assert timer.spin_ms(512) == timing.SPIN_MS  # nothing measured yet
    timer.host_ms_per_launch = 0.02  # 20 µs of Python per launch
    assert timer.spin_ms(20) == pytest.approx(timing.SPIN_MS)  # 0.4 ms of queueing: 1 ms
    assert timer.spin_ms(100) == pytest.approx(3.0)  # 1.5 × 100 × 20 µs
    assert timer.spin_ms(512) == pytest.approx(15.36)
    timer.host_ms_per_launch = 0.05
    assert timer.spin_ms(512) == timing.MAX_SPIN_MS  # 38 ms wanted: capped
    timer.host_ms_per_launch = 0.02
    timer.window_ms(lambda: None, 100)
    assert cupy.spins[-1] == pytest.approx(3.0)
    # The window just run measured the host again (a no-op: almost nothing).
    assert timer.host_ms_per_launch < 0.02


def test_a_window_the_device_reached_before_the_host_is_counted(fake_cupy) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    covered = timer.measure(lambda: None, repeats=3, warmup=0, min_window_ms=0.0)
    assert covered.host_bound_windows == 0 and not timer.last_window_host_bound
    cupy.events_read_done(True)  # the begin event had passed when the host finished queueing
    late = timer.measure(lambda: None, repeats=3, warmup=0, min_window_ms=0.0)
    assert late.host_bound_windows == 3 and timer.last_window_host_bound
    assert late.figures()["host_bound_windows"] == 3


def test_short_kernels_get_more_launches_per_window(fake_cupy, monkeypatch) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    seen: list[int] = []

    def window(action, launches=1):
        seen.append(launches)
        return 0.01 * launches  # a 10 µs kernel

    monkeypatch.setattr(timer, "window_ms", window)
    result = timer.measure(lambda: None, repeats=2, warmup=1)
    assert result.launches == 200  # 2 ms / 10 µs
    assert seen == [20, 200, 200, 200]


def test_warm_up_runs_until_the_target_device_time(fake_cupy, monkeypatch) -> None:
    cupy = fake_cupy()
    timer = EventTimer(cupy)
    seen: list[int] = []

    def window(action, launches=1):
        seen.append(launches)
        return 3.0 * launches

    monkeypatch.setattr(timer, "window_ms", window)
    spent = timer.warm_up(lambda: None, target_ms=100.0)
    # 3 + 6 + 12 + 24 + 48 = 93 ms is short of 100: one more window, of 32 launches.
    assert seen == [1, 2, 4, 8, 16, 32] and spent == 3.0 * 63


def test_every_experiment_times_through_the_one_timer(fake_cupy, monkeypatch) -> None:
    """No other code reads event pairs: every get_elapsed_time call comes from gpu.timing."""
    from gpu.streams import copy_bandwidth, run_cupy_pipeline
    from gpu.tile_result import TileParams
    from gpu.tiles import run_tiles

    cupy = fake_cupy()
    callers: list[str] = []
    real = cupy.cuda.get_elapsed_time

    def tracked(a, b):
        import inspect

        callers.append(inspect.stack()[1].frame.f_globals["__name__"])
        return real(a, b)

    cupy.cuda.get_elapsed_time = tracked
    copy_bandwidth(MIB, repeats=1)
    run_to_end(run_cupy_pipeline(PipelineParams(size_bytes=MIB, chunks=4, repeats=1)))
    params = TileParams(
        size_bytes=MIB, intensities=(0, 2), repeats=1, warmup=0, min_launches=2, min_window_ms=0
    )
    run_to_end(run_tiles(params))
    assert callers and set(callers) == {"gpu.timing"}


def test_no_module_but_timing_reads_event_pairs() -> None:
    """A second timer would show up as another get_elapsed_time in gpu/."""
    from pathlib import Path

    users = sorted(
        path.name
        for path in Path(timing.__file__).parent.glob("*.py")
        if re.search(r"get_elapsed_time", path.read_text(encoding="utf-8"))
    )
    assert users == ["timing.py"]


def test_timing_figures() -> None:
    result = timing.Timing(40, (0.2, 0.1, 0.3))
    assert (result.min_ms, result.median_ms, result.max_ms) == (0.1, 0.2, 0.3)
    assert result.figures()["launches_per_window"] == 40
    assert np.isclose(result.figures()["median_ms"], 0.2)


def test_the_copies_warm_up_before_the_device_to_device_copy(fake_cupy, monkeypatch) -> None:
    """copy_bandwidth's D2D follows ~1 s of PCIe-only work: it gets the timer's warm-up,
    with the D2D copy itself, after the PCIe copies and before its own timed windows."""
    from gpu.streams import copy_bandwidth

    cupy = fake_cupy()
    calls: list[tuple[int, float]] = []
    real = EventTimer.warm_up

    def recording(self, action, target_ms=timing.WARMUP_MS):
        calls.append((len(cupy.device_ops), target_ms))
        return real(self, action, 1.0)  # 1 ms of fake device time is enough here

    monkeypatch.setattr(EventTimer, "warm_up", recording)
    figures = copy_bandwidth(MIB, repeats=1)
    assert figures["d2d_gbps"] > 0
    assert len(calls) == 1 and calls[0][1] == timing.WARMUP_MS
    at = calls[0][0]
    operations = [operation for operation, _ in cupy.device_ops]
    pcie = [
        i
        for i, op in enumerate(operations)
        if op.startswith("copy host") or op.startswith("copy device to host")
    ]
    d2d = [i for i, op in enumerate(operations) if op == "copy device to device"]
    assert pcie and max(pcie) < at  # every PCIe copy before the warm-up
    assert d2d and min(d2d) >= at  # every D2D copy from the warm-up on
