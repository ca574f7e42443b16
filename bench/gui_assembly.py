"""One animation tick of the assembly line at 10^3 and 10^6 ops: its cost must not grow
with the number of ops (issue 12: ≤ 8 ms, the same at 10^6 as at 10^3).

Each figure is printed as absolute ms and as a ratio against a reference measured in the
same run: repainting an empty widget of the same size (a fill, what any frame costs).

    uv run python bench/gui_assembly.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

from engine.analysis.assembly_model import assembly_frame
from engine.analysis.view_model import typical_duration
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from engine.model.shape_file import ShapedScenario, load_any_preset
from gui.assembly import GLIDE_SHARE, AssemblyLineView
from gui.clock import Clock

SIZE = (1574, 501)  # the assembly line's share of a 1920×1080 window
TICKS = 120


class EmptyWidget(QWidget):
    """The reference: a widget of the same size whose paint fills it."""

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().window())
        painter.end()


def median_ms(run: Callable[[], None], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def runs(ops: int) -> dict[str, list[Schedule]]:
    uniform = Scenario.uniform_ops(ops, 1.0, 1.2, 0.8, buffers=3)
    compute_bound = Scenario.uniform_ops(ops, 1.0, 2.0, 1.0, buffers=0)
    rng = np.random.default_rng(1)
    d = rng.uniform(0.5, 1.5, size=(3, ops))
    random_two = Scenario(d[0], d[1], d[2], workers=(2, 2, 2), buffers=3)
    return {
        "uniform, 3 slots, both policies": [
            simulate(uniform, "sequential"),
            simulate(uniform, "pipelined"),
        ],
        "compute-bound, unlimited slots": [simulate(compute_bound, "pipelined")],
        "random, 2 workers per unit, 3 slots": [simulate(random_two, "pipelined")],
        **shape_runs(ops),
    }


def shape_runs(ops: int) -> dict[str, list[Schedule]]:
    """The Hopper ping-pong shape (two pools) at ``ops`` ops, both policies."""
    shaped = load_any_preset("hopper-ping-pong")
    assert isinstance(shaped, ShapedScenario)
    shaped = shaped.with_ops(ops)
    return {"shape: hopper ping-pong, both policies": [shaped.simulate(p) for p in POLICIES]}


POLICIES = ("sequential", "pipelined")


def tick_ms(
    view: AssemblyLineView, clock: Clock, empty: QWidget, end: float, playing: bool
) -> tuple[float, float]:
    """Median cost of seeking to a new time and repainting (what a tick does), and of the
    reference, sampled alternately so that a busy machine slows both alike."""
    glide = GLIDE_SHARE * min(typical_duration(d) for d in view.derived)
    view.travel = (lambda s: glide) if playing else (lambda s: 0.0)  # type: ignore[method-assign]
    instants = np.linspace(0.05, 0.95, TICKS) * end
    times = iter(np.concatenate([instants, instants]))

    def one() -> None:
        clock.seek(float(next(times)))
        view.repaint()

    for _ in range(TICKS):
        one()  # a first pass warms the caches (chip pixmaps, figure images, fonts)
    ticks, references = [], []
    for _ in range(TICKS):
        ticks.append(median_ms(one, 1))
        references.append(median_ms(empty.repaint, 1))
    return statistics.median(ticks), statistics.median(references)


def main() -> None:
    app = QApplication.instance() or QApplication([])
    empty = EmptyWidget()
    empty.resize(*SIZE)
    empty.show()
    app.processEvents()
    print(f"reference: repainting an empty {SIZE[0]}×{SIZE[1]} widget, sampled between ticks\n")
    ticks: dict[str, dict[int, float]] = {}
    for ops in (1_000, 1_000_000):
        for name, schedules in runs(ops).items():
            clock = Clock()
            end = max(s.makespan for s in schedules)
            clock.set_timeline([0.0], end)  # (the view loads its own)
            view = AssemblyLineView(clock)
            start = time.perf_counter()
            view.set_schedules(schedules)  # builds each Schedule's index (once per run)
            indexed = (time.perf_counter() - start) * 1000
            view.resize(*SIZE)
            view.show()
            app.processEvents()
            start = time.perf_counter()
            view.repaint()
            first = (time.perf_counter() - start) * 1000
            still, reference = tick_ms(view, clock, empty, end, playing=False)
            playing, reference_playing = tick_ms(view, clock, empty, end, playing=True)
            last = view.derived[-1]
            frame = median_ms(lambda d=last, e=end: assembly_frame(d, e * 0.5, 0.0, 8, 16), 200)
            ticks.setdefault(name, {})[ops] = playing / reference_playing
            print(
                f"{ops:>9,} ops, {name}: index {indexed:6.1f} ms, first frame {first:5.1f} ms; "
                f"tick paused "
                f"{still:5.2f} ms = {still / reference:4.1f}× reference ({reference:.3f} ms), "
                f"playing {playing:5.2f} ms = {playing / reference_playing:4.1f}×; "
                f"engine frame alone {frame:5.3f} ms"
            )
            view.close()
            view.deleteLater()
            app.processEvents()
    print()
    for name, by_ops in ticks.items():
        ratio = by_ops[1_000_000] / by_ops[1_000]
        print(f"tick at 10^6 ÷ tick at 10^3, each in references ({name}): {ratio:.2f}")
    empty.close()


if __name__ == "__main__":
    main()
