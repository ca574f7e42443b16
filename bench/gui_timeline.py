"""What a Gantt frame costs, against a bare pyqtgraph BarGraphItem drawing the same
rectangles in a plot of the same size, measured in the same run.

A frame here is a repaint after the view changed (a zoom step): the Gantt plans bars and
density for the new view and draws what the pixels need; the BarGraphItem draws every
rectangle. At 10^4, 10^5 and 10^6 tasks, zoomed out (everything) and zoomed in (a few
hundred tasks); then 10^6 tasks with waits to hatch: random durations, two workers a
unit, a few ops 100–1,000× slower (long idle spans, and extra workers idle all run: gaps
cut into a piece per start), sequential. Then one animation tick (cursor + assembly line,
which never repaints the bars) and re-simulate + redraw at 1,000 ops, each as a ratio to
the BarGraphItem frame.

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

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from gui.clock import Clock
from gui.colours import OP_COLOURS
from gui.figure.bars import BAR_HEIGHT
from gui.main_window import MainWindow
from gui.timeline import TimelineView
from gui.timeline_items import BarsItem

SIZE = (1200, 500)


#: Paints of a Gantt's bars since `count_bar_paints` (the item keeps no count).
BAR_PAINTS = [0]


def count_bar_paints() -> None:
    """Count every paint of a Gantt's bars from now on in `BAR_PAINTS`, by wrapping
    `BarsItem.paint` (the bench checks that frames paint the bars and ticks do not)."""
    paint = BarsItem.paint

    def counting(self: BarsItem, *args: object) -> None:
        BAR_PAINTS[0] += 1
        paint(self, *args)  # type: ignore[arg-type]

    BarsItem.paint = counting  # type: ignore[method-assign]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def frames(widget: pg.PlotWidget, ranges: list[tuple[float, float]], repeats: int) -> float:
    """Median ms of a zoom step: set the x range (alternating ``ranges``) and repaint."""
    app = QApplication.instance()
    view = widget.getPlotItem().getViewBox()
    samples = []
    for i in range(repeats):
        app.processEvents()  # nothing pending when the clock starts
        start = time.perf_counter()
        view.setXRange(*ranges[i % len(ranges)], padding=0)
        widget.viewport().repaint()
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


def bar_graph(schedule) -> pg.PlotWidget:
    """The reference: the same rectangles in one BarGraphItem (one brush: its fast path)."""
    widget = pg.PlotWidget(background="w")
    widget.resize(*SIZE)
    item = pg.BarGraphItem(
        x0=schedule.start,
        y0=schedule.row - BAR_HEIGHT / 2,
        width=schedule.duration,
        height=BAR_HEIGHT,
        brush=OP_COLOURS[0],
        pen=None,
    )
    widget.addItem(item)
    widget.getPlotItem().getViewBox().invertY(True)
    widget.show()
    return widget


def gantt(schedule) -> TimelineView:
    view = TimelineView(Clock())
    view.resize(*SIZE)
    view.set_schedules([schedule])
    view.show()
    return view


def compare(ops: int) -> float:
    return compare_on(simulate(Scenario.uniform_ops(ops, 1.0, 1.2, 0.8, buffers=3), "pipelined"))


def with_waits(ops: int) -> float:
    rng = np.random.default_rng(0)
    read, compute, write = (rng.uniform(0.5, 1.5, ops) for _ in range(3))
    compute[[ops // 7, ops // 3, ops // 2]] = [100.0, 400.0, 1_000.0]
    scenario = Scenario(read, compute, write, workers=(2, 2, 2), buffers=3)
    return compare_on(simulate(scenario, "sequential"), "with waits")


def compare_on(schedule: Schedule, what: str = "") -> float:
    app = QApplication.instance()
    span = schedule.makespan
    out = [(0.0, span), (-0.01 * span, 1.01 * span)]
    middle = span / 2
    zoom = [(middle, middle + 60.0), (middle + 1.0, middle + 61.0)]
    repeats = 9 if len(schedule) < 900_000 else 5
    results = {}
    for name, make in (("BarGraphItem", bar_graph), ("Gantt", gantt)):
        widget = make(schedule)
        for _ in range(3):
            app.processEvents()
        widget.viewport().repaint()  # first paint: build caches and pictures
        painted = BAR_PAINTS[0]
        results[name] = (frames(widget, out, repeats), frames(widget, zoom, repeats))
        if isinstance(widget, TimelineView):  # every frame really painted the bars
            assert BAR_PAINTS[0] - painted >= 2 * repeats
        widget.close()
        widget.deleteLater()
        app.processEvents()
    ref_out, ref_in = results["BarGraphItem"]
    ours_out, ours_in = results["Gantt"]
    print(
        f"{len(schedule):>9,} tasks{' ' + what if what else ''}  zoomed out: Gantt "
        f"{ours_out:6.1f} ms, BarGraphItem "
        f"{ref_out:6.1f} ms, ratio {ours_out / ref_out:4.2f}   zoomed in: Gantt "
        f"{ours_in:6.1f} ms, BarGraphItem {ref_in:6.1f} ms, ratio {ours_in / ref_in:4.2f}"
    )
    return ref_out


def window_figures(reference_ms: float) -> None:
    """The animation tick and an edit in the app, against the BarGraphItem frame at 10^4
    tasks."""
    app = QApplication.instance()
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    for _ in range(5):
        app.processEvents()
    window.set_view_mode("pipelined")
    window.apply_scenario(Scenario.uniform_ops(3_334, 1.0, 1.2, 0.8, buffers=3))
    for _ in range(5):
        app.processEvents()
    painted = BAR_PAINTS[0]
    ticks = []
    for i in range(60):
        start = time.perf_counter()
        window.clock.seek(window.clock.end * i / 60)
        app.processEvents()  # paints what the tick dirtied: cursor strip + assembly line
        ticks.append(time.perf_counter() - start)
    tick = median_ms(ticks)
    print(
        f"tick at 10,002 tasks (cursor + assembly line): {tick:5.2f} ms median "
        f"({tick / reference_ms:.2f}× a BarGraphItem frame of 10^4 tasks); bar repaints "
        f"during 60 ticks: {BAR_PAINTS[0] - painted}"
    )
    window.set_view_mode("both")
    base = Scenario.uniform_ops(1000, 1.0, 1.2, 0.8, buffers=3)
    window.apply_scenario(base)
    app.processEvents()
    edits = []
    for i in range(20):
        start = time.perf_counter()
        window.edit("compute", 1.0 + 0.05 * (i % 2))
        app.processEvents()  # one pass paints everything the edit dirtied, once
        edits.append(time.perf_counter() - start)
    edit = median_ms(edits)
    print(
        f"re-simulate + redraw at 1,000 ops (both policies, 6,000 tasks): {edit:.1f} ms "
        f"median ({edit / reference_ms:.2f}× a BarGraphItem frame of 10^4 tasks)"
    )
    window.close()


def main() -> None:
    QApplication.instance() or QApplication([])
    count_bar_paints()
    print(
        f"Gantt frame after a zoom step, {SIZE[0]}×{SIZE[1]} px, medians; ratio = Gantt ÷ "
        "BarGraphItem of the same rectangles, same run (below 1: the Gantt is cheaper)"
    )
    reference = compare(3_334)
    for ops in (33_334, 333_334):
        compare(ops)
    with_waits(333_334)
    window_figures(reference)


if __name__ == "__main__":
    main()
