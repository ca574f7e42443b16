"""PNG export of a 10k-task timeline at 1600 px: PipeLab's exporter vs matplotlib's
broken_barh + savefig of the same tasks (matplotlib is a dev dependency, bench only).

    uv run python bench/gui_export.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from engine.scenario import Scenario
from engine.scheduler import simulate
from gui.colours import OP_COLOURS
from gui.export import export


def ours(schedule, path: Path) -> float:
    start = time.perf_counter()
    export([schedule], path, width=1600)
    return time.perf_counter() - start


def matplotlib_png(schedule, path: Path) -> float:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.perf_counter()
    fig, ax = plt.subplots(figsize=(16, 4), dpi=100)  # 1600 px wide
    for row in range(schedule.n_workers):
        mask = schedule.row == row
        spans = list(zip(schedule.start[mask], schedule.duration[mask], strict=True))
        colours = [OP_COLOURS[op % len(OP_COLOURS)] for op in schedule.op[mask]]
        ax.broken_barh(spans, (row - 0.36, 0.72), facecolors=colours)
    ax.set_yticks(range(schedule.n_workers), [schedule.row_label(r) for r in range(3)])
    ax.invert_yaxis()
    fig.savefig(path)
    plt.close(fig)
    return time.perf_counter() - start


def main() -> None:
    QApplication.instance() or QApplication([])
    schedule = simulate(Scenario.uniform_ops(3_334, 1.0, 1.2, 0.8, buffers=3), "pipelined")
    with tempfile.TemporaryDirectory() as folder:
        ours(schedule, Path(folder) / "warm.png")
        a = statistics.median(ours(schedule, Path(folder) / "a.png") for _ in range(5))
        b = statistics.median(matplotlib_png(schedule, Path(folder) / "b.png") for _ in range(3))
    print(f"{len(schedule):,} tasks, 1600 px PNG")
    print(f"PipeLab export:            {a * 1000:6.0f} ms (target ≤ 300 ms)")
    print(f"matplotlib broken_barh:    {b * 1000:6.0f} ms")
    print(f"PipeLab is {b / a:.1f}× faster (target ≥ 3×)")


if __name__ == "__main__":
    main()
