"""Importing gpu/ never imports CuPy (or Qt); CuPy loads on first use only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_every_gpu_module_leaves_cupy_unloaded() -> None:
    code = (
        "import sys\n"
        "import gpu, gpu.detect, gpu.cpu_backend, gpu.streams, gpu.tiles, gpu.experiments\n"
        "import gpu.cuda_source, gpu.measured, gpu.arith, gpu.params, gpu.gpu_memory\n"
        "bad = [m for m in ('cupy', 'cupyx', 'PySide6', 'pyqtgraph') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
