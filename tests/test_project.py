"""Project-wide checks that run inside `uv run pytest`: lint, format, layer contracts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed in the test environment (dev dependency group)")
    return found


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_lint() -> None:
    result = _run(_tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run(_tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contracts() -> None:
    """engine imports no Qt/CuPy; gpu imports no Qt; layers point down only."""
    result = _run(_tool("lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def test_engine_and_gpu_import_without_qt_or_cupy() -> None:
    code = (
        "import sys, engine, engine.scheduler, engine.timeline, engine.writers, gpu\n"
        "bad = [m for m in ('PySide6', 'pyqtgraph', 'cupy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr


def test_mypy_strict_on_engine_and_gpu() -> None:
    """engine/ and gpu/ type-check under mypy --strict (configured in pyproject)."""
    result = _run(_tool("mypy"))
    assert result.returncode == 0, result.stdout + result.stderr
