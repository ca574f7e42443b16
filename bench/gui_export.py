"""Exports against references measured in the same run.

- PNG of 10k tasks at 1,600 px: PipeLab's export vs matplotlib's broken_barh + savefig of
  the same tasks (target: at least 3× faster).
- SVG of 10k tasks: time and size (targets: ≤ 1 s, ≤ 5 MB), beside matplotlib's SVG.
- `export --ops 1000000 --out big.png` as a user runs it (target: ≤ 5 s), beside
  `simulate` of the same run (the share of the time that is simulation, not drawing).

    uv run python bench/gui_export.py
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from gui.colours import OP_COLOURS
from gui.export import export
from gui.figure.layout import FigureOptions, build_figure
from gui.figure.model import Rects
from gui.figure.svg import figure_svg

ROOT = Path(__file__).resolve().parent.parent


def ours(schedules, path: Path, **options) -> float:
    start = time.perf_counter()
    export(schedules, path, **options)
    return time.perf_counter() - start


def matplotlib_figure(schedule, path: Path) -> float:
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


def command(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``main.py args`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    QApplication.instance() or QApplication([])
    schedule = simulate(Scenario.uniform_ops(3_334, 1.0, 1.2, 0.8, buffers=3), "pipelined")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        ours([schedule], out / "warm.png", width=1600)
        png = statistics.median(ours([schedule], out / "a.png", width=1600) for _ in range(5))
        ref = statistics.median(matplotlib_figure(schedule, out / "b.png") for _ in range(3))
        print(f"{len(schedule):,} tasks, 1600 px PNG")
        print(f"  PipeLab export:          {png * 1000:7.0f} ms")
        print(f"  matplotlib broken_barh:  {ref * 1000:7.0f} ms")
        print(f"  PipeLab is {ref / png:.1f}× faster (target ≥ 3×)")

        svg = statistics.median(ours([schedule], out / "a.svg") for _ in range(5))
        ref_svg = statistics.median(matplotlib_figure(schedule, out / "b.svg") for _ in range(3))
        size = (out / "a.svg").stat().st_size
        ref_size = (out / "b.svg").stat().st_size
        print(f"{len(schedule):,} tasks, SVG (page size: density, as the pixels need)")
        print(f"  PipeLab export:          {svg * 1000:7.0f} ms, {size / 1e6:6.2f} MB")
        print(f"  matplotlib broken_barh:  {ref_svg * 1000:7.0f} ms, {ref_size / 1e6:6.2f} MB")
        # The worst case: a resolution so fine that every task is a <rect> of its own.
        start = time.perf_counter()
        options = FigureOptions(resolution=10_000.0)
        every = figure_svg(build_figure([schedule], options))
        worst = time.perf_counter() - start
        rects = sum(
            len(i) for i in build_figure([schedule], options).walk() if isinstance(i, Rects)
        )
        print(
            f"  every task a <rect> ({rects:,} rectangles): {worst * 1000:5.0f} ms, "
            f"{len(every) / 1e6:5.2f} MB (targets ≤ 1 s, ≤ 5 MB); "
            f"{ref_svg / worst:.1f}× faster than matplotlib"
        )

        big = out / "big.png"
        wall, cpu = command("export", "--ops", "1000000", "--out", str(big))
        sim_wall, sim_cpu = command(
            "simulate", "--ops", "1000000", "--policy", "both", "--format", "table"
        )
        print("export --ops 1000000 --out big.png (2 runs × 3,000,000 tasks), fresh process")
        print(f"  export:    {wall:5.2f} s wall, {cpu:5.2f} s CPU (target ≤ 5 s)")
        print(f"  simulate:  {sim_wall:5.2f} s wall, {sim_cpu:5.2f} s CPU (same run, no drawing)")
        print(f"  drawing and writing the figure: {max(0.0, wall - sim_wall):5.2f} s wall")


if __name__ == "__main__":
    main()
