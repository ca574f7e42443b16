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
        "import gpu.timing, gpu.residency, gpu.saturation, gpu.calibration, gpu.tile_result\n"
        "import gpu.occupancy, gpu.occupancy_result, gpu.report\n"
        "bad = [m for m in ('cupy', 'cupyx', 'PySide6', 'pyqtgraph') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_engine_and_gpu_need_only_numpy() -> None:
    """The GPU check runs on a machine with CuPy, numpy and pytest only: engine/ and gpu/
    (everything bench/gpu_check.py imports) must import with the project's other
    dependencies absent."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in BLOCKED:\n"
        "            raise ImportError(f'{name} is not on the device image')\n"
        "BLOCKED = {'tomli_w', 'PySide6', 'pyqtgraph', 'simpy', 'hypothesis', 'PIL', 'cupy'}\n"
        "sys.meta_path.insert(0, Block())\n"
        "import engine, engine.model.scenario, engine.model.scheduler, engine.latency.warps\n"
        "import engine.analysis.writers\n"
        "import gpu.detect, gpu.experiments, gpu.occupancy, gpu.report, gpu.streams\n"
        "import gpu.tiles, gpu.cpu_backend, gpu.timing, gpu.residency, gpu.saturation\n"
        "engine.model.scenario.load_preset('book')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
