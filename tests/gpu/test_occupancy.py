"""The occupancy sweep: launch shapes, the host logic on a stand-in CuPy, the kernel's
compilation with nvcc, and (marked gpu) a real sweep."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gpu import occupancy
from gpu.cuda_source import KERNEL_DIR, LoadedModule
from gpu.detect import Detection, DeviceInfo, detect
from gpu.errors import Cancelled, GpuError
from gpu.occupancy import (
    BYTES_PER_LOAD,
    launch_shape,
    observed_warps_per_sm,
    occupancy_check,
    run_occupancy_sweep,
    sweep_occupancy,
)

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


class _Clock:
    now_ms = 0.0


class _Event:
    def __init__(self, clock: _Clock) -> None:
        self.clock, self.at = clock, 0.0

    def record(self, stream: Any = None) -> None:
        self.at = self.clock.now_ms

    def synchronize(self) -> None:
        pass


def _fake_cupy(uneven: bool = False) -> tuple[Any, list[tuple[Any, ...]], list[str]]:
    """A CuPy with just what the sweep calls. Kernel time follows a latency-bound model:
    W warps per SM with one load in flight each, capped at the peak bandwidth."""
    clock = _Clock()
    launches: list[tuple[Any, ...]] = []
    freed: list[str] = []

    def kernel(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None:
        data, mask, steps, zero, sink, block_sm = args
        assert int(mask) + 1 == len(data) // 4 and (int(mask) & (int(mask) + 1)) == 0
        assert int(zero) == 0 and len(sink) >= grid[0] * block[0]
        launches.append((grid[0], block[0], int(steps)))
        sms = np.arange(grid[0]) % SMS
        if uneven:
            sms[sms == 1] = 0
        block_sm[: grid[0]] = sms
        warps_per_sm = grid[0] * block[0] / 32 / SMS
        bytes_per_ns = SMS * warps_per_sm * 32 * BYTES_PER_LOAD / LATENCY_NS
        rate = min(bytes_per_ns, PEAK_GBPS)  # GB/s == bytes/ns
        total = grid[0] * block[0] * int(steps) * BYTES_PER_LOAD
        clock.now_ms += total / rate / 1e6

    cupy = types.SimpleNamespace(
        uint32=np.uint32,
        zeros=lambda n, dtype: np.zeros(n, dtype=dtype),
        asnumpy=np.asarray,
        get_default_memory_pool=lambda: types.SimpleNamespace(
            free_all_blocks=lambda: freed.append("freed")
        ),
        cuda=types.SimpleNamespace(
            Event=lambda: _Event(clock),
            get_elapsed_time=lambda a, b: b.at - a.at,
        ),
    )
    cupy.kernel = kernel
    return cupy, launches, freed


@pytest.fixture
def stand_in(monkeypatch):
    def install(uneven: bool = False) -> tuple[list[tuple[Any, ...]], list[str]]:
        cupy, launches, freed = _fake_cupy(uneven)
        device = DeviceInfo(0, "Stand-in GPU", (9, 0), 1 << 34, SMS)
        monkeypatch.setattr(occupancy, "detect", lambda: Detection("cupy", device))
        monkeypatch.setattr(occupancy, "import_cupy", lambda: cupy)
        module = types.SimpleNamespace(get_function=lambda name: cupy.kernel)
        monkeypatch.setattr(
            occupancy, "load_module", lambda c, source: LoadedModule(module, f"{source}: stand-in")
        )
        return launches, freed

    return install


def test_sweep_measures_bandwidth_per_step_and_fits_the_knee(stand_in):
    launches, freed = stand_in()
    sweep = sweep_occupancy(
        warps=(1, 2, 4, 8, 16, 32, 64), steps=64, repeats=2, array_bytes=1 << 20
    )
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
    # PEAK / (bandwidth of one warp per SM).
    one_warp = SMS * 32 * BYTES_PER_LOAD / LATENCY_NS
    assert result.gbps_per_warp == pytest.approx(one_warp)
    assert result.peak_gbps == pytest.approx(PEAK_GBPS)
    assert result.knee == pytest.approx(PEAK_GBPS / one_warp)
    assert result.utilization == pytest.approx(result.model_utilization(result.warps))
    # A warm-up and two timed launches per step, each with its own shape.
    assert len(launches) == 3 * 7
    assert launches[0] == (SMS, 32, 64) and launches[-1] == (2 * SMS, 1024, 64)
    assert freed == ["freed"]
    figures = result.figures()
    assert figures["bytes_counted"].startswith("bytes read")
    assert figures["points"][0]["sm_warps_min"] == 1
    assert "model knee W =" in result.table()


def test_uneven_block_placement_is_reported(stand_in):
    stand_in(uneven=True)
    result = run_occupancy_sweep(warps=(4,), steps=8, repeats=1, array_bytes=1 << 16)
    point = result.points[0]
    assert (point.sm_warps_min, point.sm_warps_max) == (0, 8)
    assert not point.as_asked
    assert any("did not give every SM" in note for note in result.notes)


def test_cancel_stops_between_steps_and_frees_memory(stand_in):
    launches, freed = stand_in()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_occupancy_sweep(warps=(1, 2), steps=8, cancel=cancel, array_bytes=1 << 16)
    assert launches == [] and freed == ["freed"]


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
    result = run_occupancy_sweep(warps=(1, 4, 16, 32, 64), steps=256, repeats=2)
    gbps = result.gbps
    assert (gbps > 0).all()
    # More resident warps keep more loads in flight: bandwidth grows from 1 to 16 warps.
    assert gbps[2] > 4 * gbps[0]
    assert all(p.sm_warps_max >= p.warps_per_sm for p in result.points)
    assert 1.0 <= result.knee <= 4 * 64
