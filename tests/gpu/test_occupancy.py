"""The occupancy sweep: launch shapes, the host logic on a stand-in CuPy, the kernel's
compilation with nvcc, and (marked gpu) a real sweep."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gpu import occupancy, timing
from gpu.cuda_source import KERNEL_DIR, LoadedModule
from gpu.detect import Detection, DeviceInfo, detect
from gpu.errors import Cancelled, GpuError
from gpu.occupancy import (
    BYTES_PER_LOAD,
    array_elements,
    footprint_steps,
    launch_shape,
    observed_warps_per_sm,
    occupancy_check,
    run_occupancy_sweep,
    sweep_occupancy,
)
from gpu.saturation import fit_saturation, saturation_verdict

ROOT = Path(__file__).resolve().parents[2]
NVCC = shutil.which("nvcc") or (
    "/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None
)


# -- launch shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("warps", "per_sm", "threads"),
    [(1, 1, 32), (7, 1, 224), (32, 1, 1024), (40, 2, 640), (64, 2, 1024)],
)
def test_launch_shape(warps, per_sm, threads):
    shape = launch_shape(warps, 132)
    assert (shape.blocks_per_sm, shape.threads_per_block, shape.blocks) == (
        per_sm,
        threads,
        per_sm * 132,
    )
    assert shape.blocks_per_sm * shape.warps_per_block == warps


@pytest.mark.parametrize(
    ("warps", "message"), [(0, "between 1 and 64"), (65, "between 1 and 64"), (33, "even number")]
)
def test_impossible_shapes_are_refused(warps, message):
    with pytest.raises(GpuError, match=message):
        launch_shape(warps, 132)


def test_observed_warps_per_sm_counts_blocks_by_sm():
    shape = launch_shape(8, 4)
    assert observed_warps_per_sm([0, 1, 2, 3], shape, 4) == (8, 8)
    assert observed_warps_per_sm([0, 0, 2, 3], shape, 4) == (0, 16)


def test_observed_warps_per_sm_with_sm_ids_that_skip_numbers():
    """%smid need not be contiguous: ids 0, 2, 5, 7 on a 4-SM device are 4 busy SMs."""
    shape = launch_shape(8, 4)
    assert observed_warps_per_sm([0, 2, 5, 7], shape, 4) == (8, 8)
    assert observed_warps_per_sm([0, 5, 5, 7], shape, 4) == (0, 16)


# -- the host logic on a stand-in CuPy --------------------------------------------------------

#: The stand-in device: a load takes LATENCY_NS; the memory system moves at most PEAK_GBPS.
LATENCY_NS = 800.0
PEAK_GBPS = 100.0
SMS = 8
#: A small L2, so the footprint rule shows at the sweep's sizes.
L2 = 1 << 20
SHARED_PER_SM = 228 * 1024
RESERVED = 1024


class _Clock:
    now_ms = 0.0


class _Event:
    done = False  # the stand-in device is still in the timer's spin when the host asks

    def __init__(self, clock: _Clock) -> None:
        self.clock, self.at = clock, 0.0

    def record(self, stream: Any = None) -> None:
        self.at = self.clock.now_ms

    def synchronize(self) -> None:
        pass


class _Stream:
    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class _Kernel:
    """occupancy_chase on the stand-in: time follows a latency-bound model, W warps per SM
    with one load in flight each, capped at the peak bandwidth; blocks land on SMs as the
    shared-memory cap allows (``uneven`` puts SM 1's blocks on SM 0)."""

    def __init__(self, clock: _Clock, uneven: bool) -> None:
        self.clock, self.uneven = clock, uneven
        self.launches: list[tuple[int, int, int, int, int]] = []
        self.kernel = types.SimpleNamespace(ptr=1)
        self.shared_size_bytes = 0
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, grid, block, args, shared_mem=0) -> None:
        data, mask, steps, zero, start, sink, block_sm = args
        assert int(mask) + 1 == len(data) // 4 and (int(mask) & (int(mask) + 1)) == 0
        assert int(zero) == 0 and len(sink) >= grid[0] * block[0]
        assert shared_mem <= self.max_dynamic_shared_size_bytes
        per_sm = resident(block[0], shared_mem)
        assert grid[0] <= per_sm * SMS, "more blocks than the SMs hold at once: a second wave"
        self.launches.append((grid[0], block[0], int(steps), int(start), shared_mem))
        sms = np.arange(grid[0]) % SMS
        if self.uneven:
            sms[sms == 1] = 0
        block_sm[: grid[0]] = sms
        warps_per_sm = grid[0] * block[0] / 32 / SMS
        bytes_per_ns = SMS * warps_per_sm * 32 * BYTES_PER_LOAD / LATENCY_NS
        rate = min(bytes_per_ns, PEAK_GBPS)  # GB/s == bytes/ns
        total = grid[0] * block[0] * int(steps) * BYTES_PER_LOAD
        self.clock.now_ms += total / rate / 1e6


def resident(threads: int, dynamic: int) -> int:
    return min(32, 2048 // threads, SHARED_PER_SM // (dynamic + RESERVED))


def _fake_cupy(uneven: bool = False) -> tuple[Any, _Kernel, list[str]]:
    """A CuPy with just what the sweep calls."""
    clock = _Clock()
    kernel = _Kernel(clock, uneven)
    freed: list[str] = []
    attributes = {38: L2, 81: SHARED_PER_SM, 97: SHARED_PER_SM - RESERVED, 111: RESERVED}
    cupy = types.SimpleNamespace(
        uint32=np.uint32,
        zeros=lambda n, dtype: np.zeros(n, dtype=dtype),
        asnumpy=np.asarray,
        get_default_memory_pool=lambda: types.SimpleNamespace(
            free_all_blocks=lambda: freed.append("freed")
        ),
        cuda=types.SimpleNamespace(
            Event=lambda: _Event(clock),
            Stream=lambda non_blocking=False: _Stream(),
            get_elapsed_time=lambda a, b: b.at - a.at,
            runtime=types.SimpleNamespace(deviceGetAttribute=lambda a, d: attributes[a]),
            driver=types.SimpleNamespace(
                occupancyMaxActiveBlocksPerMultiprocessor=lambda ptr, t, d: resident(t, d)
            ),
        ),
    )
    cupy.kernel = kernel
    return cupy, kernel, freed


@pytest.fixture
def stand_in(monkeypatch):
    def install(uneven: bool = False) -> tuple[_Kernel, list[str]]:
        cupy, kernel, freed = _fake_cupy(uneven)
        device = DeviceInfo(0, "Stand-in GPU", (9, 0), 1 << 34, SMS)
        monkeypatch.setattr(occupancy, "detect", lambda: Detection("cupy", device))
        monkeypatch.setattr(occupancy, "import_cupy", lambda: cupy)
        module = types.SimpleNamespace(get_function=lambda name: kernel)
        monkeypatch.setattr(
            occupancy, "load_module", lambda c, source: LoadedModule(module, f"{source}: stand-in")
        )
        spin = types.SimpleNamespace(get_function=lambda name: lambda grid, block, args: None)
        monkeypatch.setattr(
            timing, "load_module", lambda c, source: LoadedModule(spin, f"{source}: stand-in")
        )
        return kernel, freed

    return install


def test_sweep_measures_bandwidth_per_step_and_fits_the_knee(stand_in):
    _kernel, freed = stand_in()
    sweep = sweep_occupancy(warps=(1, 2, 4, 8, 16, 32, 64), repeats=2, array_bytes=1 << 20)
    progress = []
    while True:
        try:
            progress.append(next(sweep))
        except StopIteration as done:
            result = done.value
            break
    assert progress[0].fraction == 0 and progress[-1].fraction == 1.0
    assert [p.warps_per_sm for p in result.points] == [1, 2, 4, 8, 16, 32, 64]
    assert all(p.as_asked for p in result.points)
    # Latency-bound below the knee, flat above it: the stand-in's knee is
    # PEAK / (bandwidth of one warp per SM), and the least-squares fit finds it exactly.
    one_warp = SMS * 32 * BYTES_PER_LOAD / LATENCY_NS
    assert result.gbps_per_warp == pytest.approx(one_warp)
    assert result.peak_gbps == pytest.approx(PEAK_GBPS)
    assert result.knee == pytest.approx(PEAK_GBPS / one_warp)
    assert result.fit.rms_residual_gbps == pytest.approx(0.0, abs=1e-9)
    assert result.saturated and result.verdict.text.startswith("saturated: knee W = 19.5")
    assert result.utilization == pytest.approx(result.model_utilization(result.warps))
    assert freed == ["freed"]
    figures = result.figures()
    assert figures["bytes_counted"].startswith("bytes read")
    assert figures["points"][0]["sm_warps_min"] == 1
    assert figures["knee_warps_per_sm"] == pytest.approx(19.531, abs=1e-3)
    assert figures["fit"]["rms_residual_gbps"] == 0.0 and figures["l2_bytes"] == L2
    assert "RMS residual" in result.table() and "saturated: knee W" in result.table()


def test_every_launch_reads_4x_l2_from_where_the_last_one_stopped(stand_in):
    kernel, _ = stand_in()
    result = run_occupancy_sweep(warps=(1, 8, 64), repeats=2, array_bytes=1 << 16)
    elements = result.array_bytes // BYTES_PER_LOAD
    # The array is raised to 2 × 4 × L2 (a power of two), whatever was asked.
    assert result.array_bytes >= 8 * L2 and elements & (elements - 1) == 0
    assert len(kernel.launches) > 3 * 20  # N launches per window, every step
    for blocks, threads, steps, _start, _shared in kernel.launches:
        assert blocks * threads * steps * BYTES_PER_LOAD >= 4 * L2
    for before, after in itertools.pairwise(kernel.launches):
        blocks, threads, steps, start, _ = before
        assert after[3] == (start + blocks * threads * steps) % elements
    # Small grids get more steps; the biggest meets the rule with the floor of 64.
    assert [p.steps for p in result.points] == [
        footprint_steps(L2, SMS * 32),
        footprint_steps(L2, SMS * 256),
        64,
    ]
    assert result.points[0].steps == 4 * L2 // (SMS * 32 * BYTES_PER_LOAD)


def test_residency_is_capped_with_shared_memory(stand_in):
    kernel, _ = stand_in()
    result = run_occupancy_sweep(warps=(4, 48), repeats=1, array_bytes=1 << 16)
    by_warps = {p.warps_per_sm: p for p in result.points}
    one, two = by_warps[4], by_warps[48]
    # 128 threads alone would let 16 blocks share an SM: the cap leaves room for one.
    assert resident(128, 0) == 16 and resident(128, one.dynamic_shared_bytes) == 1
    assert resident(768, two.dynamic_shared_bytes) == 2
    assert {launch[4] for launch in kernel.launches if launch[1] == 128} == {
        one.dynamic_shared_bytes
    }
    assert kernel.max_dynamic_shared_size_bytes >= two.dynamic_shared_bytes


@pytest.mark.parametrize(
    ("l2", "threads", "floor", "steps"),
    [
        (50 << 20, 132 * 32, 64, 3104),  # H100/H200 L2, 1 warp per SM: 200 MiB a launch
        (50 << 20, 132 * 2048, 64, 64),  # 64 warps per SM: the floor already reads > 4 × L2
        (40 << 20, 108 * 32, 1, 3035),  # A100
        (1 << 20, 1, 1, 1 << 18),
    ],
)
def test_the_l2_rule_sizes_every_launch(l2, threads, floor, steps):
    assert footprint_steps(l2, threads, floor) == steps
    assert threads * steps * BYTES_PER_LOAD >= 4 * l2 or steps == floor


def test_the_array_holds_twice_the_footprint():
    assert array_elements(1 << 30, 50 << 20) * BYTES_PER_LOAD == 1 << 30
    assert array_elements(1 << 20, 50 << 20) * BYTES_PER_LOAD == 512 << 20  # 400 MiB, up
    assert array_elements(3 << 29, 10 << 20) * BYTES_PER_LOAD == 1 << 30  # down to 2^k


def test_an_sm_holding_other_warps_fails_the_sweep(stand_in):
    stand_in(uneven=True)
    with pytest.raises(GpuError, match=r"residency check failed at 4 warps per SM: .*0-8"):
        run_occupancy_sweep(warps=(4,), repeats=1, array_bytes=1 << 16)


def test_cancel_stops_between_steps_and_frees_memory(stand_in):
    kernel, freed = stand_in()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_occupancy_sweep(warps=(1, 2), cancel=cancel, array_bytes=1 << 16)
    assert kernel.launches == [] and freed == ["freed"]


# -- the fit and the verdict on synthetic curves ----------------------------------------------

WARPS = np.array([1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64], dtype=float)


def test_the_fit_recovers_a_hinge_exactly():
    gbps = 3000.0 * np.minimum(1.0, WARPS / 22.0)
    fit = fit_saturation(WARPS, gbps)
    assert fit.knee == pytest.approx(22.0) and fit.peak_gbps == pytest.approx(3000.0)
    assert fit.rms_residual_gbps == pytest.approx(0.0, abs=1e-9)
    verdict = saturation_verdict(WARPS, gbps, fit)
    assert verdict.saturated and "knee W = 22.0" in verdict.text


def test_the_fit_is_least_squares_not_peak_over_first_point():
    """Noise on the first point moved the old knee (peak ÷ first point) by the same factor;
    the fit weighs every point."""
    rng = np.random.default_rng(7)
    clean = 3000.0 * np.minimum(1.0, WARPS / 22.0)
    noisy = clean * (1 + rng.normal(0, 0.02, len(WARPS)))
    noisy[0] = clean[0] * 1.3  # a first point 30% high
    fit = fit_saturation(WARPS, noisy)
    assert fit.knee == pytest.approx(22.0, rel=0.06)
    assert noisy.max() / noisy[0] == pytest.approx(22.0 / 1.3, rel=0.05)  # the old rule
    # The residual is what it is: an RMS of the misfit, printed with the fit.
    residual = np.sqrt(np.mean((noisy - fit.model_gbps(WARPS)) ** 2))
    assert fit.rms_residual_gbps == pytest.approx(residual)
    assert 0 < fit.relative_residual < 0.1
    # No other knee fits better: the exact solution is a global minimum.
    for knee in np.linspace(2, 80, 400):
        f = np.minimum(1, WARPS / knee)
        peak = f @ noisy / (f @ f)
        assert np.sqrt(np.mean((noisy - peak * f) ** 2)) >= fit.rms_residual_gbps - 1e-9


def test_a_curve_still_rising_is_not_saturated():
    """Little's law on an H200: ~36 KiB in flight per SM needed, 32 KiB at 64 warps."""
    gbps = 4800.0 * np.minimum(1.0, WARPS / 72.0)
    verdict = saturation_verdict(WARPS, gbps)
    assert not verdict.saturated
    assert verdict.text.startswith("not saturated: bandwidth still rises at W = 64 (+14%")
    assert "none is drawn" in verdict.text


def test_a_knee_at_the_last_point_is_not_a_plateau():
    gbps = 4800.0 * np.minimum(1.0, WARPS / 60.0)
    gbps[-1] = gbps[-2] * 1.02  # flat over the last step, but only one point on it
    verdict = saturation_verdict(WARPS, gbps)
    assert not verdict.saturated and "fewer than two" in verdict.text


def test_a_smooth_saturating_curve_is_saturated():
    gbps = 3000.0 * (1 - np.exp(-WARPS / 12.0))
    fit = fit_saturation(WARPS, gbps)
    verdict = saturation_verdict(WARPS, gbps, fit)
    assert verdict.saturated and 15 < fit.knee < 40 and fit.relative_residual > 0.01


def test_too_few_points_say_so():
    assert not saturation_verdict([1, 2], [10.0, 20.0]).saturated
    with pytest.raises(ValueError):
        fit_saturation([], [])


def test_not_saturated_sweep_reports_no_knee(stand_in, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "PEAK_GBPS", 1e9)  # the stand-in never saturates
    stand_in()
    result = run_occupancy_sweep(warps=(1, 8, 32, 64), repeats=1, array_bytes=1 << 16)
    assert not result.saturated
    figures = result.figures()
    assert figures["knee_warps_per_sm"] is None and figures["saturated"] is False
    assert "not saturated" in result.table()


def test_without_a_device_the_check_says_why(monkeypatch):
    monkeypatch.setattr(occupancy, "detect", lambda: Detection("cpu", None, "no CUDA device found"))
    result = occupancy_check()
    assert result == {
        "ran": False,
        "reason": "the occupancy sweep needs a CUDA device: no CUDA device found",
    }


def test_bad_options_are_one_line_errors():
    with pytest.raises(GpuError, match="at least one warp count"):
        run_occupancy_sweep(warps=())
    with pytest.raises(GpuError, match="1 or more"):
        run_occupancy_sweep(steps=0)


def test_importing_the_sweep_does_not_import_cupy():
    code = "import sys, gpu.occupancy\nassert 'cupy' not in sys.modules\n"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


# -- the kernel compiles for Ampere and Hopper ------------------------------------------------


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernel_compiles_with_nvcc(tmp_path, arch):
    result = subprocess.run(
        [str(NVCC), "-cubin", f"-arch={arch}", "-o", str(tmp_path / "occupancy.cubin"),
         str(KERNEL_DIR / "occupancy.cu")],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "occupancy.cubin").stat().st_size > 0


# -- on a real device -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def device() -> Detection:
    found = detect()
    if found.backend != "cupy":
        pytest.skip(f"no working CUDA device: {found.reason}")
    return found


@pytest.mark.gpu
def test_sweep_on_the_device_hides_latency_with_more_warps(device):
    """Sizes follow the sweep's own L2 rule (no `steps` given): W = 1 is measured from DRAM."""
    result = run_occupancy_sweep(warps=(1, 4, 16, 32, 64), repeats=2)
    gbps = result.gbps
    assert (gbps > 0).all()
    assert all(p.bytes_read >= 4 * result.l2_bytes for p in result.points)
    # More resident warps keep more loads in flight: bandwidth grows from 1 to 16 warps.
    assert gbps[2] > 4 * gbps[0], result.table()
    assert all(p.as_asked for p in result.points)  # the sweep raises otherwise
    assert 1.0 <= result.knee <= 4 * 64
    assert result.verdict.text
