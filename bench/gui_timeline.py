"""Timeline repaint with 10k and 100k tasks; one animation tick (cursor + assembly line),
showing that it never repaints the bars; re-simulate + redraw at 1,000 ops.

    uv run python bench/gui_timeline.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from engine.scenario import Scenario
from engine.scheduler import simulate
from gui.main_window import MainWindow


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    for _ in range(5):
        app.processEvents()
    timeline = window.view.timeline
    window.set_view_mode("pipelined")
    for ops in (3_334, 33_334):
        scenario = Scenario.uniform_ops(ops, 1.0, 1.2, 0.8, buffers=3)
        window.apply_scenario(scenario)
        for _ in range(5):
            app.processEvents()
        tasks = timeline.bar_count
        repaint = []
        for _ in range(15):
            timeline.bars.update()  # invalidate the bars' cache: a real full repaint
            start = time.perf_counter()
            timeline.viewport().repaint()
            repaint.append(time.perf_counter() - start)
        painted = timeline.bars.paint_count
        ticks = []
        for i in range(60):
            start = time.perf_counter()
            window.clock.seek(window.clock.end * i / 60)
            app.processEvents()  # paints what the tick dirtied: cursor strip + assembly line
            ticks.append(time.perf_counter() - start)
        print(
            f"{tasks:>7,} tasks: timeline repaint {median_ms(repaint):6.1f} ms (median of 15); "
            f"tick (cursor + assembly line) {median_ms(ticks):5.2f} ms median, "
            f"{max(ticks) * 1000:5.2f} ms max; bar repaints during 60 ticks: "
            f"{timeline.bars.paint_count - painted}"
        )
    window.set_view_mode("both")
    base = Scenario.uniform_ops(1000, 1.0, 1.2, 0.8, buffers=3)
    window.apply_scenario(base)
    app.processEvents()
    resim = []
    painted = window.view.timeline.bars.paint_count
    for i in range(20):
        start = time.perf_counter()
        window.edit("compute", 1.0 + 0.05 * (i % 2))
        # One pass of the event loop paints everything the edit dirtied, once, as a real
        # frame does (repainting widgets one by one would paint some of them twice).
        app.processEvents()
        resim.append(time.perf_counter() - start)
    only_sim = []
    for _ in range(20):
        start = time.perf_counter()
        simulate(base, "sequential")
        simulate(base, "pipelined")
        only_sim.append(time.perf_counter() - start)
    print(
        f"re-simulate + redraw at 1,000 ops (both policies, 6,000 tasks): "
        f"{median_ms(resim):.1f} ms median (of which simulate {median_ms(only_sim):.1f} ms); "
        f"bar repaints: {window.view.timeline.bars.paint_count - painted} in 20 edits"
    )
    window.close()


if __name__ == "__main__":
    main()
