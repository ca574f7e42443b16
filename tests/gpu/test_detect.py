"""Detection: which backend runs, and why CuPy can't (not installed, no driver, no device,
too old for cp.async). CuPy is replaced by None or a fake; no device is needed."""

from __future__ import annotations

import pytest

from engine.base.errors import PipeLabError
from gpu.detect import Detection, cuda_failure_reason, detect, import_cupy, resolve_backend
from gpu.errors import GpuError


@pytest.mark.usefixtures("no_cupy")
def test_missing_cupy_points_at_the_gpu_extra() -> None:
    found = detect()
    assert found.backend == "cpu"
    assert found.device is None
    assert "not installed" in found.reason
    assert "uv sync --extra gpu" in found.reason
    with pytest.raises(GpuError, match="not installed"):
        import_cupy()


@pytest.mark.usefixtures("no_cupy")
def test_backend_cupy_without_cupy_is_one_clear_error_and_auto_falls_back() -> None:
    with pytest.raises(PipeLabError, match="cupy backend cannot run: CuPy is not installed"):
        resolve_backend("cupy")
    backend, found = resolve_backend("auto")
    assert backend == "cpu" and "not installed" in found.reason
    assert resolve_backend("cpu")[0] == "cpu"
    with pytest.raises(GpuError, match="backend must be one of"):
        resolve_backend("tpu")


def test_no_driver_is_reported(fake_cupy) -> None:
    fake_cupy(
        device_count=RuntimeError(
            "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA "
            "runtime version"
        )
    )
    found = detect()
    assert found.backend == "cpu"
    assert found.reason.startswith("no usable NVIDIA driver")
    assert "cudaErrorInsufficientDriver" in found.reason


def test_no_device_is_reported(fake_cupy) -> None:
    fake_cupy(device_count=0)
    assert detect().reason == "no CUDA device found"
    fake_cupy(device_count=RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected"))
    assert detect().reason.startswith("no CUDA device found")


def test_old_device_runs_streams_but_not_cp_async(fake_cupy) -> None:
    fake_cupy(major=7, minor=5)
    found = detect()
    assert found.backend == "cupy"
    assert found.device is not None and found.device.capability_text == "7.5"
    assert "sm_75" in found.async_copy_reason and "sm_80" in found.async_copy_reason


def test_a_working_device_is_described(fake_cupy) -> None:
    fake_cupy()
    found = detect()
    assert found == Detection("cupy", found.device, "", "")
    assert found.device is not None
    assert found.device.name == "Fake GPU"
    assert found.device.compute_capability == (9, 0)
    assert "Fake GPU (sm_90, 8 GiB, 4 SMs)" in found.describe()
    assert resolve_backend("auto", found)[0] == "cupy"


def test_unknown_cuda_failures_keep_their_first_line() -> None:
    reason = cuda_failure_reason(RuntimeError("cudaErrorUnknown: boom\nsecond line"))
    assert reason == "CUDA is not usable: RuntimeError: cudaErrorUnknown: boom"


@pytest.mark.parametrize(
    ("driver", "hint"),
    [
        ((13, 0), "add cupy-cuda13x: pip install 'pipelab[gpu-cuda13]', uv tool install"),
        ((13, 0), "uv sync --extra gpu-cuda13"),
        ((12, 8), "add cupy-cuda12x: pip install 'pipelab[gpu]', uv tool install '.[gpu]'"),
        ((12, 8), "uv sync --extra gpu"),
        ((11, 8), "CuPy needs 12 or newer"),
        (None, "add the gpu extra, or gpu-cuda13 for CUDA 13: pip install 'pipelab[gpu]'"),
        (None, "uv tool install '.[gpu]' or, in a checkout, uv sync --extra gpu"),
    ],
)
def test_the_install_hint_names_the_extra_for_the_driver(no_cupy, monkeypatch, driver, hint):
    """Without CuPy the driver's CUDA line (cuDriverGetVersion, no CuPy needed) picks the
    extra: pyproject's `gpu` (cupy-cuda12x) or `gpu-cuda13` (cupy-cuda13x)."""
    import gpu.detect

    monkeypatch.setattr(gpu.detect, "driver_cuda_version", lambda: driver)
    found = detect()
    assert found.backend == "cpu" and found.reason.startswith("CuPy is not installed (")
    assert hint in found.reason


@pytest.mark.parametrize("driver", [None, (12, 8), (13, 0)])
def test_the_install_hint_serves_every_kind_of_install_in_one_short_line(driver) -> None:
    """An installed app's user has no checkout to `uv sync` in: pip and uv tool come
    first. One line, short enough for the GPU tab's status line (it wraps, once)."""
    from gpu.detect import install_hint

    hint = install_hint(driver)
    assert "\n" not in hint and len(hint) <= 170
    assert hint.index("pip install") < hint.index("uv tool install") < hint.index("uv sync")


def test_the_extras_exist_in_pyproject() -> None:
    import tomllib
    from pathlib import Path

    from gpu.detect import EXTRAS

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    for extra, wheel in EXTRAS.values():
        assert any(spec.startswith(wheel) for spec in extras[extra]), (extra, wheel)
    assert [{"extra": "gpu"}, {"extra": "gpu-cuda13"}] in project["tool"]["uv"]["conflicts"]


def test_the_driver_version_is_read_without_cupy() -> None:
    from gpu.detect import driver_cuda_version

    version = driver_cuda_version()  # None here (no driver); (major, minor) on a GPU box
    assert version is None or (version[0] >= 10 and 0 <= version[1] < 100)
