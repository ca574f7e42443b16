"""Which backend can run, and if CuPy can't, why — without importing CuPy at import time.

CuPy is imported on first use only (`import_cupy`, pyqtgraph's ``getCupy()`` pattern): the
engine, the CLI and the app start without it, and a machine without it says why.
"""

from __future__ import annotations

import ctypes
import importlib
import logging
from dataclasses import dataclass
from typing import Any

from gpu.errors import GpuError

_log = logging.getLogger(__name__)

BACKENDS = ("auto", "cupy", "cpu")
#: cp.async (experiment 2's pipelined kernels) needs compute capability 8.0 (Ampere).
ASYNC_COPY_CC = (8, 0)
#: The project's extra for each CUDA major version (pyproject.toml), and its CuPy wheel.
EXTRAS = {12: ("gpu", "cupy-cuda12x"), 13: ("gpu-cuda13", "cupy-cuda13x")}


def install_commands(extra: str) -> str:
    """How to add ``extra`` however the app was installed: with pip, as a uv tool, or in
    a checkout run with uv (one short line: the GPU tab's status line shows it)."""
    return (
        f"pip install 'pipelab[{extra}]', uv tool install '.[{extra}]' "
        f"or, in a checkout, uv sync --extra {extra}"
    )


#: No driver found: the CUDA 12 extra's commands, and the name of CUDA 13's.
INSTALL_HINT = f"add the gpu extra, or gpu-cuda13 for CUDA 13: {install_commands('gpu')}"


def driver_cuda_version() -> tuple[int, int] | None:
    """The CUDA version the NVIDIA driver supports (``cuDriverGetVersion`` from libcuda),
    or None where no driver loads. Needs no CuPy."""
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            library = ctypes.CDLL(name)
        except OSError:
            continue
        version = ctypes.c_int(0)
        try:
            if library.cuDriverGetVersion(ctypes.byref(version)) != 0 or version.value <= 0:
                return None
        except AttributeError:
            return None
        return version.value // 1000, version.value % 1000 // 10
    return None


def install_hint(driver: tuple[int, int] | None) -> str:
    """Which extra to install: the one for the driver's CUDA line where a driver is found
    (CUDA 13 drivers also run CUDA 12 wheels, but not the other way round)."""
    if driver is None:
        return INSTALL_HINT
    major = driver[0]
    if major >= 13:
        extra, wheel = EXTRAS[13]
    elif major == 12:
        extra, wheel = EXTRAS[12]
    else:
        return f"the NVIDIA driver supports CUDA {driver[0]}.{driver[1]}: CuPy needs 12 or newer"
    return f"the driver supports CUDA {major}.{driver[1]}: add {wheel}: {install_commands(extra)}"


def import_cupy() -> Any:
    """CuPy, or GpuError saying why not (never an ImportError traceback)."""
    try:
        return importlib.import_module("cupy")
    except ImportError:
        raise GpuError(f"CuPy is not installed ({install_hint(driver_cuda_version())})") from None
    except Exception as error:  # a broken install: CUDA libraries that don't load, …
        _log.warning("CuPy is installed but fails to load", exc_info=True)
        raise GpuError(f"CuPy is installed but fails to load: {_first_line(error)}") from None


@dataclass(frozen=True)
class DeviceInfo:
    """The CUDA device experiments run on."""

    index: int
    name: str
    compute_capability: tuple[int, int]
    memory_bytes: int
    multiprocessors: int

    @property
    def capability_text(self) -> str:
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"

    @property
    def supports_async_copy(self) -> bool:
        return self.compute_capability >= ASYNC_COPY_CC

    def describe(self) -> str:
        return (
            f"{self.name} (sm_{self.compute_capability[0]}{self.compute_capability[1]}, "
            f"{self.memory_bytes / 2**30:.0f} GiB, {self.multiprocessors} SMs)"
        )


@dataclass(frozen=True)
class Detection:
    """What can run here.

    ``backend`` is "cupy" when CuPy has a working device, else "cpu"; ``reason`` says why
    CuPy can't run ("" when it can); ``async_copy_reason`` says why experiment 2's cp.async
    variants can't run ("" when they can).
    """

    backend: str
    device: DeviceInfo | None
    reason: str = ""
    async_copy_reason: str = ""

    def describe(self) -> str:
        if self.device is not None:
            return f"CuPy on {self.device.describe()}"
        return f"CPU threads ({self.reason})"


def detect() -> Detection:
    """Probe CuPy and the first CUDA device; never raises."""
    try:
        cupy = import_cupy()
    except GpuError as error:
        return _cpu(str(error))
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:
        return _cpu(cuda_failure_reason(error))
    if count < 1:
        return _cpu("no CUDA device found")
    try:
        device = device_info(cupy, 0)
    except Exception as error:
        return _cpu(cuda_failure_reason(error))
    async_reason = ""
    if not device.supports_async_copy:
        async_reason = (
            f"{device.name} is sm_{device.compute_capability[0]}{device.compute_capability[1]}; "
            "cp.async (experiment 2's pipelined kernels) needs sm_80 or newer"
        )
    return Detection("cupy", device, "", async_reason)


def device_info(cupy: Any, index: int = 0) -> DeviceInfo:
    props = cupy.cuda.runtime.getDeviceProperties(index)
    name = props["name"]
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    return DeviceInfo(
        index=index,
        name=str(name).strip("\x00 ") or f"CUDA device {index}",
        compute_capability=(int(props["major"]), int(props["minor"])),
        memory_bytes=int(props["totalGlobalMem"]),
        multiprocessors=int(props["multiProcessorCount"]),
    )


def cuda_failure_reason(error: BaseException) -> str:
    """One line for why CUDA calls fail: no driver, no device, or the error itself."""
    text = _first_line(error)
    lowered = text.lower()
    if "insufficientdriver" in lowered or "driver" in lowered or "libcuda" in lowered:
        driver = driver_cuda_version()
        if driver is not None and "insufficient" in lowered:
            return f"no usable NVIDIA driver ({text}); {install_hint(driver)}"
        return f"no usable NVIDIA driver ({text})"
    if "nodevice" in lowered or "no cuda-capable device" in lowered:
        return f"no CUDA device found ({text})"
    return f"CUDA is not usable: {text}"


def resolve_backend(requested: str, detection: Detection | None = None) -> tuple[str, Detection]:
    """The backend to run for ``requested`` ("auto", "cupy" or "cpu").

    "cupy" where CuPy can't run raises GpuError with the reason; "auto" falls back to CPU.
    """
    if requested not in BACKENDS:
        raise GpuError(f"backend must be one of {', '.join(BACKENDS)}, not {requested!r}")
    if requested == "cpu":
        return "cpu", detection or Detection("cpu", None)
    found = detection or detect()
    if found.backend == "cupy":
        return "cupy", found
    if requested == "cupy":
        raise GpuError(f"the cupy backend cannot run: {found.reason}")
    return "cpu", found


def _cpu(reason: str) -> Detection:
    return Detection("cpu", None, reason, reason)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
