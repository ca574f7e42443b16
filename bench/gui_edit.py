"""The app at scale: edit → redrawn at 10^3 … 10^6 ops with 1 and 2 workers per unit, the
animation tick at 10^3 and 10^6 ops, and the memory of a 10^6-op run. Every time is printed
beside a reference measured in the same run, as a ratio and in ms:

* edit → redrawn: a bare pyqtgraph `BarGraphItem` given the same rectangles (every task of
  every Schedule shown) and repainted once;
* tick: a bare pyqtgraph plot of those rectangles whose `InfiniteLine` cursor moves once.

An edit changes the buffers (3 ↔ 4) of a scenario with random durations (uniform 0.5–1.5,
seed 0) through the app model, as the form does: off the GUI thread above 2,000 ops; a
second row changes every op's compute time instead (1.0 ↔ 1.05 s). An edit of the buffers
keeps the sequential run (it has one slot whatever the scenario says); an edit of a
duration simulates both. The edit's time is split into the worker's steps (simulate,
stats, cache warm-up, composing) and the GUI thread's (landing: setting the views;
painting).

Page faults: a 10^6-op edit makes hundreds of MB of new arrays, and each page of them is
faulted in on first use. What that costs depends on the machine far more than anything
the app does: about 0.2 ms a MB where freed memory stays in the machine (a desktop), but
some virtual machines hand the guest's freed pages back to their host within seconds
(free page reporting), and then every page costs a fault on the host too (1.1–2.3 ms a MB
on the machines this project is built on). So every edit row also prints the MB its edit
faulted in, and the run starts by measuring this machine's fault cost for fresh memory
(after a pause, as an edit finds it) and for memory just freed (reused at once). Edits run
one after the other (the app keeps what a run frees for the next:
`gui.memory.hold_freed_memory`) unless ``--pause`` S leaves the app at rest for S
seconds before each (it hands freed memory back after 1.5 s, so each edit then faults its
arrays in afresh: the worst case here). ``--keep-freed-memory`` runs the edits with
glibc told to keep freed memory from the start (no trim; arrays up to 32 MiB, glibc's
most, not mapped apart: ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``) and the
app's own trim at rest switched off: the app's cost without the host's share, even after
a pause, measured, not estimated (its RSS at rest is then no figure for the app's
memory).

    uv run python bench/gui_edit.py                   # everything (10^6 with 2 workers: minutes)
    uv run python bench/gui_edit.py --sizes 1000,100000 --workers 1 --no-tick
    uv run python bench/gui_edit.py --sizes 1000000 --no-tick --no-rss --pause 5
    uv run python bench/gui_edit.py --sizes 1000000 --no-tick --no-rss --keep-freed-memory
    uv run python bench/gui_edit.py --rss-only
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEventLoop, QSettings
from PySide6.QtWidgets import QApplication

from engine.analysis.derived import Derived
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule

ROOT = Path(__file__).resolve().parent.parent
#: The worker's steps per Schedule, as gui.runs.Run.timings names them.
WORKER_STEPS = ("simulate", "stats", "narration", "gantt", "assembly")


def scenario_of(n: int, k: int) -> Scenario:
    rng = np.random.default_rng(0)
    r, c, w = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    return Scenario(r, c, w, workers=(k, k, k), buffers=3, name=f"{n} random ops")


def rectangles(schedules: list[Schedule]) -> tuple[np.ndarray, ...]:
    """x, y, width of every task of every Schedule, rows stacked as the app stacks them."""
    xs, ys, ws = [], [], []
    offset = 1.0
    for s in schedules:
        xs.append(s.start)
        ys.append(offset + s.row - 0.36)
        ws.append(s.end - s.start)
        offset += s.n_workers + 1.2
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)


class BarePlot:
    """The reference: one PlotWidget, one BarGraphItem, one InfiniteLine."""

    def __init__(self) -> None:
        self.widget = pg.PlotWidget()
        self.widget.resize(1200, 500)
        self.widget.show()
        self.bars = pg.BarGraphItem(x0=[0], y0=[0], width=[1], height=0.72, brush="#4E79A7")
        self.widget.addItem(self.bars)
        self.line = pg.InfiniteLine(0.0, movable=True)
        self.widget.addItem(self.line)

    def redraw(self, schedules: list[Schedule]) -> float:
        x, y, w = rectangles(schedules)
        if not self.widget.isVisible():
            self.widget.show()
            for _ in range(3):
                QApplication.processEvents()  # exposed: the repaint below paints
        start = time.perf_counter()
        self.bars.setOpts(x0=x, y0=y, width=w, height=0.72)
        self.widget.getPlotItem().getViewBox().autoRange(padding=0.0)
        self.widget.viewport().repaint()
        return time.perf_counter() - start

    def clear(self) -> None:
        """Drop the rectangles and hide: the app's own runs must not pay for repainting
        millions of reference bars on the GUI thread (nor share the GIL with it)."""
        self.bars.setOpts(x0=[0], y0=[0], width=[1], height=0.72)
        self.widget.hide()
        QApplication.processEvents()

    def tick(self, value: float) -> float:
        start = time.perf_counter()
        self.line.setValue(value)
        QApplication.processEvents()
        return time.perf_counter() - start


def wait_for(signal: object, trigger: object) -> None:
    """Call ``trigger`` and return once ``signal`` was emitted (at once, for inline runs)."""
    loop = QEventLoop()
    seen: list[object] = []

    def done(*args: object) -> None:
        seen.append(args)
        loop.quit()

    signal.connect(done)  # type: ignore[attr-defined]
    trigger()  # type: ignore[operator]
    if not seen:
        loop.exec()
    signal.disconnect(done)  # type: ignore[attr-defined]


def timed_steps(record: list[tuple[str, float]]):  # type: ignore[no-untyped-def]
    """A stand-in for gui.runs.compute_run that times each of its steps (on the worker)."""
    import gui.runs

    original = gui.runs.compute_run

    def compute_run(*args, **kwargs):  # type: ignore[no-untyped-def]
        steps = original(*args, **kwargs)
        last = time.perf_counter()
        record.append(("@start", last))
        try:
            while True:
                word = next(steps)
                now = time.perf_counter()
                record.append((str(word), now - last))
                last = now
                yield word
        except StopIteration as stop:
            record.append(("@end", time.perf_counter()))
            return stop.value

    return compute_run


def faulted_mb() -> float:
    """MB of pages this process has faulted in so far (all its threads)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt * resource.getpagesize() / 2**20


def fault_cost(mb: int = 256, pause: float = 5.0) -> tuple[float, float]:
    """ms per MB to fault in fresh memory (after ``pause`` s: what the machine does with
    freed pages meanwhile, an edit finds), and memory freed just before (reused at once)."""

    def touch() -> float:
        start = time.perf_counter()
        block = np.ones(mb * 2**17)  # (large: its own mapping, unmapped when freed)
        seconds = time.perf_counter() - start
        del block
        return 1000 * seconds / mb

    time.sleep(pause)
    fresh = touch()
    touch()
    return fresh, statistics.median(touch() for _ in range(3))


#: The edits timed: form field → the two values it alternates between.
EDITS = {"buffers": (4, 3), "compute": (1.05, 1.0)}


def edit_once(window: object, field: str, value: float, app: QApplication) -> dict[str, float]:
    import gui.app_model

    steps: list[tuple[str, float]] = []
    gui.app_model.compute_run = timed_steps(steps)  # type: ignore[attr-defined]
    model = window.model  # type: ignore[attr-defined]
    marks: dict[str, float] = {}

    def mark(_: object) -> None:
        marks.setdefault("landing", time.perf_counter())

    model.run_changed.connect(mark)
    faulted = faulted_mb()
    start = time.perf_counter()
    wait_for(model.shown_changed, lambda: model.edit(field, value))
    landed = time.perf_counter()
    app.processEvents()  # paints what the landing dirtied, once
    painted = time.perf_counter()
    model.run_changed.disconnect(mark)
    out = {
        "faulted": (faulted_mb() - faulted) / 1000,  # (in s: the table prints 1000×)
        "total": painted - start,
        "landing": landed - marks["landing"],
        "paint": painted - landed,
    }
    marks_at = dict((word, at) for word, at in steps if word.startswith("@"))
    for times in model.run.timings:  # per Schedule (they may run side by side)
        for key, seconds in times.items():
            out[key] = out.get(key, 0.0) + seconds
    out["worker"] = marks_at["@end"] - marks_at["@start"]
    out["worker+queue"] = marks["landing"] - start
    out["to worker"] = marks_at["@start"] - start  # the thread hop (and a busy repaint)
    out["to GUI"] = marks["landing"] - marks_at["@end"]  # composing + the queued signal
    return out


def idle(app: QApplication, seconds: float) -> None:
    """The app at rest for ``seconds`` (its timers run: it hands freed memory back)."""
    from PySide6.QtCore import QTimer

    if seconds > 0:
        loop = QEventLoop()
        QTimer.singleShot(int(1000 * seconds), loop.quit)
        loop.exec()


def bench_edits(
    sizes: list[int], workers: list[int], fields: list[str], pause: float = 0.0
) -> None:
    from gui.app import make_app  # as the app starts: freed memory held (gui.memory)
    from gui.main_window import MainWindow

    app = make_app()
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    bare = BarePlot()
    bare.clear()
    for _ in range(5):
        app.processEvents()
    fresh, reused = fault_cost()
    kept = os.environ.get("MALLOC_TRIM_THRESHOLD_") is not None
    print(
        f"this machine faults in fresh memory at {fresh:.2f} ms/MB, memory freed just "
        f"before at {reused:.2f} ms/MB"
        + (" (freed memory kept: --keep-freed-memory)" if kept else "")
    )
    print(
        "edit → redrawn (view: both policies), median of the samples"
        + (f", each after {pause:g} s at rest" if pause else ", one after the other")
    )
    print(
        f"{'ops':>9} {'k':>2} {'edit':>8} {'tasks':>10} | {'edit→drawn':>10} {'bare bars':>10}"
        f" {'ratio':>6} {'faulted':>8} |"
        " worker: wall [simulate / stats / narration / gantt / assembly, summed over the"
        " Schedules] | GUI: landing / paint (ms)"
    )
    for k in workers:
        for n, field in ((n, field) for n in sizes for field in fields):
            window.apply_scenario(scenario_of(n, k))  # the starting point, not timed
            app.processEvents()
            samples = (
                5
                if n <= 10_000
                else 3
                if n <= 100_000
                else int(os.environ.get("BENCH_BIG_SAMPLES", "1"))
            )
            values = EDITS[field]
            runs = []
            for i in range(samples):
                idle(app, pause)
                runs.append(edit_once(window, field, values[i % 2], app))
            refs = [bare.redraw(window.schedules) for _ in range(max(1, samples))]
            bare.clear()
            ms = {key: 1000 * statistics.median(r.get(key, 0.0) for r in runs) for key in runs[0]}
            ref = 1000 * statistics.median(refs)
            tasks = sum(len(s) for s in window.schedules)
            print(
                f"{n:>9,} {k:>2} {field:>8} {tasks:>10,} | {ms['total']:>8.1f}ms {ref:>8.1f}ms "
                f"{ms['total'] / ref:>5.2f}× {ms['faulted']:>5.0f} MB | {ms['worker']:.1f} ["
                + " / ".join(f"{ms.get(step, 0):.1f}" for step in WORKER_STEPS)
                + f"] (hop {ms['to worker']:.1f}, compose+back {ms['to GUI']:.1f}) | "
                f"{ms['landing']:.1f} / {ms['paint']:.1f}",
                flush=True,
            )
    window.close()
    bare.widget.close()


def bench_ticks(sizes: list[int]) -> None:
    from gui.app import make_app  # as the app starts: freed memory held (gui.memory)
    from gui.main_window import MainWindow

    app = make_app()
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    bare = BarePlot()
    print("tick (seek + the frame it dirties), median of 40, view: both policies, 1 worker")
    for n in sizes:
        window.apply_scenario(scenario_of(n, 1))
        for _ in range(3):
            app.processEvents()
        bare.redraw(window.schedules)
        end = window.clock.end

        def ours(i: int, end: float = end) -> float:
            start = time.perf_counter()
            window.clock.seek(end * (i + 0.5) / 40)
            app.processEvents()
            return time.perf_counter() - start

        for i in range(5):
            ours(i)
            bare.tick(end * (i + 0.5) / 40)
        mine = 1000 * statistics.median(ours(i) for i in range(40))
        ref = 1000 * statistics.median(bare.tick(end * (i + 0.5) / 40) for i in range(40))
        narrate = narration_ms(list(window.model.shown.derived), end)
        makespan = makespan_ms(window.schedules)
        with engine_parts_stubbed():
            gui_side = 1000 * statistics.median(ours(i) for i in range(40))
        print(
            f"{n:>9,} ops: tick {mine:6.2f} ms, bare cursor over BarGraphItem {ref:8.2f} ms "
            f"({mine / ref:.3f}×)\n"
            f"{'':>14}engine parts: narrate {narrate:.2f} ms per Schedule per event (a new "
            f"event; each is kept), Schedule.makespan {makespan:.4f} ms a call; the tick "
            f"with narration stubbed: {gui_side:.2f} ms ({gui_side / ref:.3f}×)",
            flush=True,
        )
    window.close()
    bare.widget.close()


@contextlib.contextmanager
def engine_parts_stubbed() -> Iterator[None]:
    """Schedule.makespan cached (same value) and the narration text stubbed: what a tick
    costs once the engine's O(n) parts are gone, i.e. the GUI side alone."""
    import engine.model.schedule
    import gui.schedule_view

    def cached(self: Schedule) -> float:
        value = self.__dict__.get("_bench_makespan")
        if value is None:
            value = self.__dict__["_bench_makespan"] = float(self.end.max()) if len(self) else 0.0
        return value

    original_makespan = engine.model.schedule.Schedule.makespan
    original_narrate = gui.schedule_view.narrate
    engine.model.schedule.Schedule.makespan = property(cached)  # type: ignore[assignment]
    gui.schedule_view.narrate = lambda schedule, time: f"t = {time}"
    try:
        yield
    finally:
        engine.model.schedule.Schedule.makespan = original_makespan  # type: ignore[method-assign]
        gui.schedule_view.narrate = original_narrate


def narration_ms(shown: list[Derived], end: float) -> float:
    from engine.analysis.timeline import narrate

    derived = shown[-1]  # (the run's, as the view reads it)
    events = derived.events
    times = [events[k] for k in range(0, len(events), max(1, len(events) // 20))]
    start = time.perf_counter()
    for t in times:
        narrate(derived, float(t))
    return 1000 * (time.perf_counter() - start) / len(times)


def makespan_ms(schedules: list[Schedule]) -> float:
    start = time.perf_counter()
    for _ in range(20):
        schedules[-1].makespan  # noqa: B018
    return 1000 * (time.perf_counter() - start) / 20


# -- memory, in a fresh process -------------------------------------------------------------

RSS_PROBE = """
import gc, json, os, sys, tracemalloc
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, sys.argv[2])
from PySide6.QtCore import QSettings
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
import numpy as np
from PySide6.QtWidgets import QApplication
from engine.model.scenario import Scenario
from gui.main_window import MainWindow

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

n, kind, k = int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
from gui.app import make_app
app = make_app()  # as the app starts: freed memory held (gui.memory)
window = MainWindow()  # the book example
window.resize(1600, 1000)
window.show()
for _ in range(5):
    app.processEvents()
gc.collect()
book = rss()
if kind == "random":
    rng = np.random.default_rng(0)
    r, c, w = (rng.uniform(0.5, 1.5, n) for _ in range(3))
    scenario = Scenario(r, c, w, workers=(k, k, k), buffers=3)
else:
    scenario = Scenario.uniform_ops(n, 1.0, 1.2, 0.8, buffers=3, workers=(k, k, k))
window.apply_scenario(scenario)
del scenario  # (the app holds what it needs: the probe's own arrays are no part of it)
if kind == "random":
    del r, c, w
for buffers in (4, 3):  # two edits: what the old runs leave behind counts too
    window.model.edit("buffers", buffers, wait=True)
    window.clock.seek(window.clock.end * 0.37)  # a frame of every view, narration included
    for _ in range(5):
        app.processEvents()
tracemalloc.start(1)
window.model.edit("buffers", 4, wait=True)
window.clock.seek(window.clock.end * 0.37)
for _ in range(5):
    app.processEvents()
landed = rss()
from PySide6.QtCore import QEventLoop, QTimer
from gui.app_model import RELEASE_AFTER_MS
loop = QEventLoop()
QTimer.singleShot(RELEASE_AFTER_MS + 500, loop.quit)  # the app at rest: freed memory back
loop.exec()
gc.collect()
after = rss()
logical, seen, physical = 0, set(), 0
for s in window.schedules:
    for name in ("op", "stage", "unit", "worker", "start", "end", "grant"):
        array = getattr(s, name)
        logical += array.nbytes
        owner = array if array.base is None else array.base
        if id(owner) not in seen:
            seen.add(id(owner))
            physical += owner.nbytes
top = [(str(stat.traceback[0]).replace(sys.argv[2] + "/", ""), stat.size)
       for stat in tracemalloc.take_snapshot().statistics("lineno")[:8]]
print(json.dumps({"book": book, "after": after, "landed": landed, "logical": logical,
                  "physical": physical, "top": top}))
window.close()
"""


def rss_probe(n: int, kind: str, k: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-c", RSS_PROBE, folder, str(ROOT), str(n), kind, str(k)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    probe: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return probe


def bench_rss(n: int) -> None:
    """RSS with an ``n``-op run loaded (both policies) after three edits, in a fresh
    process, against the Schedules' columns. The fixed overhead two ways: the book
    example's RSS (the app at start-up: conservative, since a big run also starts what a
    3-op run never needs, the worker thread, the density images…), and the same probe
    with ``n`` / 10 ops: the growth from there to ``n`` ops is what each op costs, with
    every fixed cost taken out."""
    mb = 2**20
    for kind, k in (("uniform", 1), ("random", 1), ("random", 2)):
        m = rss_probe(n, kind, k)
        small = rss_probe(n // 10, kind, k)
        grew = m["after"] - m["book"]  # type: ignore[operator]
        per_op = (m["after"] - small["after"]) / (m["logical"] - small["logical"])  # type: ignore[operator]
        print(
            f"RSS with {n:,} {kind} ops, {k} worker(s) per unit, both policies, 3 edits: "
            f"{m['after'] / mb:.0f} MB = book example {m['book'] / mb:.0f} MB (fixed overhead) "
            f"+ {grew / mb:.0f} MB at rest ({m['landed'] / mb:.0f} MB right after the run "
            "landed, before the app hands freed memory back)\n"
            f"  Schedule columns {m['logical'] / mb:.0f} MB ({m['physical'] / mb:.0f} MB held: "
            f"shared layouts) → the run costs {grew / m['logical']:.2f}× its columns above "
            f"the book example; from {n // 10:,} ops ({small['after'] / mb:.0f} MB) to "
            f"{n:,}: {per_op:.2f}× the columns added (target ≤ 1.5× + fixed)\n"
            "  largest allocations (tracemalloc): "
            + "; ".join(f"{where} {size / mb:.0f} MB" for where, size in m["top"]),  # type: ignore[attr-defined]
            flush=True,
        )


def keep_freed_memory() -> None:
    """Run on in a process whose glibc keeps what is freed (set before it starts), with
    the app's own trim switched off."""
    if os.environ.get("MALLOC_TRIM_THRESHOLD_") is None:
        env = dict(
            os.environ, MALLOC_MMAP_THRESHOLD_=str(32 * 2**20), MALLOC_TRIM_THRESHOLD_=str(2**62)
        )
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    import gui.app_model

    gui.app_model.release_freed_memory = lambda: None  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--edits", default="buffers,compute", help="of: " + ", ".join(EDITS))
    parser.add_argument("--no-tick", action="store_true")
    parser.add_argument("--no-rss", action="store_true")
    parser.add_argument("--rss-only", action="store_true")
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="seconds at rest before each edit (the app hands freed memory back after "
        "1.5 s: the next edit faults its pages in afresh)",
    )
    parser.add_argument(
        "--keep-freed-memory",
        action="store_true",
        help="glibc keeps freed memory, the app does not trim: edits without the host's "
        "share of page faults (see the docstring)",
    )
    args = parser.parse_args()
    if args.keep_freed_memory:
        keep_freed_memory()
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp(prefix="pipelab")
    )
    if not args.rss_only:
        sizes = [int(s) for s in args.sizes.split(",")]
        fields = [f for f in args.edits.split(",") if f]
        unknown = [f for f in fields if f not in EDITS]
        if unknown:
            parser.error(f"unknown edit {unknown[0]!r} (expected {', '.join(EDITS)})")
        bench_edits(sizes, [int(k) for k in args.workers.split(",")], fields, args.pause)
        if not args.no_tick:
            bench_ticks([1_000, 1_000_000])
    if not args.no_rss:
        bench_rss(1_000_000)


if __name__ == "__main__":
    main()
