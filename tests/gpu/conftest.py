"""Fixtures for gpu/ tests: a fake CuPy in sys.modules, and a real device or a skip."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
from gpu_fakes import make_fake_cupy


@pytest.fixture
def fake_cupy(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """Install a fake CuPy (keyword options as `make_fake_cupy`) and return it."""

    def install(**options: Any) -> Any:
        cupy, cupyx = make_fake_cupy(**options)
        monkeypatch.setitem(sys.modules, "cupy", cupy)
        monkeypatch.setitem(sys.modules, "cupyx", cupyx)
        return cupy

    return install


@pytest.fixture
def no_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `import cupy` fail as it does where CuPy is not installed."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setitem(sys.modules, "cupyx", None)


@pytest.fixture(scope="session")
def cuda_device() -> Any:
    """The real device's Detection, or skip (with the reason) where no device works."""
    from gpu.detect import detect

    found = detect()
    if found.backend != "cupy":
        pytest.skip(f"no working CUDA device: {found.reason}")
    return found
