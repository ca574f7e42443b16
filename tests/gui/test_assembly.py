"""The assembly line: what a clock tick costs (it redraws neither the Gantt's bars nor the
static layer), what it shows (idle time within the lane's own run, numbered slots in their
states, chips that sit still while their op waits), that it fits from a laptop to 4K
(minimum sizes, no text over another), sharp figures at 200%, and vector exports as shapes.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF

from engine.analysis.derived import Derived
from engine.model.scenario import Scenario, load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from gui.assembly import AssemblyLineView
from gui.assembly_lane import LanePainter
from gui.assembly_layout import lane_minimum, layout_lane
from gui.assembly_parts import CHIP_MIN, FIGURE_MIN, SLOT_MIN
from gui.assembly_texts import lane_spec
from gui.clock import Clock
from gui.export import export
from gui.icons import icon, tinted
from gui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


class Painted:
    """Every text (with the rectangle its glyphs take, in widget pixels) and chip one
    repaint of an assembly line draws."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, QRectF]] = []
        self.chips: list[tuple[int, float, float]] = []  # op, centre x, centre y

    def strings(self) -> list[str]:
        return [text for text, _ in self.texts]


@pytest.fixture
def painted(monkeypatch: pytest.MonkeyPatch) -> Painted:
    record = Painted()
    draw, chip = LanePainter.draw, LanePainter._chip

    def recording_draw(self, rect, text, font, colour, align):  # type: ignore[no-untyped-def]
        if text:
            flags = int(align | Qt.AlignmentFlag.AlignVCenter)
            box = QFontMetricsF(font).boundingRect(rect, flags, text)
            record.texts.append((text, self.p.transform().mapRect(box)))
        draw(self, rect, text, font, colour, align)

    def recording_chip(self, op, centre):  # type: ignore[no-untyped-def]
        point = self.p.transform().map(centre)
        record.chips.append((op, point.x(), point.y()))
        chip(self, op, centre)

    monkeypatch.setattr(LanePainter, "draw", recording_draw)
    monkeypatch.setattr(LanePainter, "_chip", recording_chip)
    return record


def repaint(view: AssemblyLineView, record: Painted) -> Painted:
    record.texts.clear()
    record.chips.clear()
    view.grab()
    return record


@pytest.fixture
def lone_view(qtbot) -> Iterator[AssemblyLineView]:  # type: ignore[no-untyped-def]
    """An assembly line on its own clock, never shown (sized with resize)."""
    holder = Clock()
    view = AssemblyLineView(holder)
    holder.setParent(view)
    qtbot.addWidget(view)
    yield view


def show(view: AssemblyLineView, schedules: list[Schedule], time: float) -> None:
    view.set_schedules(schedules)
    clock: Clock = view._clock
    clock.set_timeline(
        sorted({float(t) for s in schedules for t in np.asarray(Derived(s).events)}),
        max(s.makespan for s in schedules),
    )
    clock.seek(time)


# -- ticks, idle time, the book example ----------------------------------------------------


def test_a_tick_repaints_neither_the_bars_nor_the_static_layer(
    window: MainWindow, qapp, bar_paints
) -> None:
    window.apply_scenario(Scenario.uniform_ops(2_000, 1.0, 1.2, 0.8, buffers=3))
    qapp.processEvents()
    window.view.assembly.repaint()

    def play() -> None:
        for i in range(30):
            window.clock.seek(window.clock.end * i / 30)
            qapp.processEvents()
            window.view.assembly.repaint()

    bars = len(bar_paints)
    play()  # the narration may grow once for a longer line (the lanes get less room)
    assert len(bar_paints) == bars
    static = window.view.assembly.static_paints
    play()
    assert len(bar_paints) == bars
    assert window.view.assembly.static_paints == static
    # An edited duration keeps the lanes' shape (and the static layer); more workers don't.
    window.edit("compute", 1.1)
    window.view.assembly.repaint()
    assert window.view.assembly.static_paints == static
    window.edit("load_workers", 2)
    window.view.assembly.repaint()
    assert window.view.assembly.static_paints == static + 1
    # Other slots change the pipelined lane's shape only: the sequential lane is kept.
    lanes = window.view.assembly.lane_paints
    window.edit("buffers", 5)
    window.view.assembly.repaint()
    assert window.view.assembly.static_paints == static + 2
    assert window.view.assembly.lane_paints == lanes + 1


def test_idle_time_stops_at_the_lanes_makespan(window: MainWindow, painted: Painted) -> None:
    window.clock.seek(9.0)  # sequential ends at 9 s, pipelined at 5 s
    texts = repaint(window.view.assembly, painted).strings()
    # Pipelined: load idle from 3 s to its end at 5 s, compute from 4 s, store done at 5 s.
    assert "idle 2 s" in texts and "idle 1 s" in texts and "idle 0 s" in texts
    assert "idle 6 s" not in texts and "idle 5 s" not in texts


def test_the_book_state_at_two_and_a_half_seconds(window: MainWindow, painted: Painted) -> None:
    window.clock.seek(2.5)
    texts = repaint(window.view.assembly, painted).strings()
    assert "op 2 compute 50%" in texts  # pipelined compute unit on op 2 at 2.5 s
    assert "op 3 read 50%" in texts
    assert any("3 in use" in t for t in texts)  # unlimited: ops 1–3 are in shared memory
    assert "1 waiting" not in texts and "0 waiting" in texts  # pipelined: all three started
    assert "t = 2.5 s of 5 s" in texts


# -- shared-memory slots and chips ------------------------------------------------------


@pytest.mark.parametrize(
    ("time", "captions", "numbers"),
    [
        (0.5, ["1 · loading", "2 · reserved"], {"1", "2"}),
        (1.5, ["1 · held", "2 · loading"], {"1", "2"}),
        (2.5, ["1 · writing", "2 · held"], {"1", "2"}),
        (4.5, ["1 · held", "2 · free"], {"3"}),
    ],
)
def test_slots_are_numbered_and_show_their_state(
    lone_view: AssemblyLineView,
    painted: Painted,
    time: float,
    captions: list[str],
    numbers: set[str],
) -> None:
    """Book example with 2 slots, roomy: each slot's caption says its number and state,
    and the op in it is written inside (or sits in it as its chip)."""
    show(lone_view, [simulate(Scenario.uniform_ops(3, buffers=2), "pipelined")], time)
    lone_view.resize(1500, 330)
    repaint(lone_view, painted)
    assert [t for t in painted.strings() if " · " in t and t[0].isdigit()] == captions
    memory = assembly_memory_rect(lone_view)
    inside = {text for text, rect in painted.texts if memory.contains(rect) and text.isdigit()}
    assert inside == numbers


def assembly_memory_rect(view: AssemblyLineView) -> QRectF:
    (lane,) = view.layouts()
    assert lane.memory is not None and lane.density.name == "roomy"
    return lane.memory.card


def test_a_waiting_chip_does_not_move(lone_view: AssemblyLineView, painted: Painted) -> None:
    """Compute-bound (compute 2 s): op 2 reads 1–2 s and waits in its slot until 3 s.
    While the clock plays, its chip glides into the slot just after 2 s and then sits
    still until its compute starts; before 2 s it sits at the load worker."""
    schedule = simulate(Scenario.uniform_ops(3, 1.0, 2.0, 1.0, buffers=2), "pipelined")
    show(lone_view, [schedule], 0.0)
    lone_view.resize(1200, 300)
    lone_view.travel = lambda s: 0.2  # type: ignore[method-assign]  # as while playing

    def centre(time: float) -> tuple[float, float]:
        lone_view._clock.seek(time)
        (hit,) = [(x, y) for op, x, y in repaint(lone_view, painted).chips if op == 1]
        return hit

    reading = {centre(t) for t in (1.25, 1.5, 1.75, 1.99)}
    waiting = {centre(2.0 + 0.2 + k * 0.1) for k in range(8)}
    assert len(reading) == 1 and len(waiting) == 1
    gliding = centre(2.1)
    assert gliding not in reading | waiting
    (slot,) = [b for b in lone_view.layouts()[0].memory.boxes[1:2]]  # type: ignore[union-attr]
    assert slot.contains(*waiting.pop())


def test_a_shelf_says_how_many_ops_it_does_not_draw(
    lone_view: AssemblyLineView, painted: Painted
) -> None:
    """The input shelf has places for a few chips: "20 waiting" over four chips read as a
    miscount, so the count says how many more there are; the chips drawn and the count
    add up to what waits."""
    schedule = simulate(Scenario.uniform_ops(20, 1.0, 1.0, 1.0), "pipelined")
    show(lone_view, [schedule], 0.5)
    lone_view.resize(1200, 300)
    record = repaint(lone_view, painted)
    shelf = lone_view.layouts()[0].shelf_in
    assert shelf is not None
    drawn = [op for op, x, y in record.chips if shelf.card.contains(x, y)]
    captions = [t for t in record.strings() if "waiting" in t or t.startswith("19")]
    wide = f"19 waiting (+{19 - len(drawn)} more)"
    assert captions in ([wide], [f"{len(drawn)} of 19 waiting"]), (captions, drawn)
    assert 0 < len(drawn) < 19
    lone_view._clock.seek(19.5)  # the last op is reading: nothing waits, nothing more
    assert "0 waiting" in repaint(lone_view, painted).strings()


def test_runs_of_any_shape_paint(lone_view: AssemblyLineView, painted: Painted) -> None:
    """A measured run missing a task (no chips), an empty one (no tasks: it used to crash
    the paint), and a measured run without grants that held more slots than it had."""
    book = simulate(load_preset("book"), "pipelined")
    keep = np.arange(len(book)) != 4
    columns = (book.op, book.stage, book.unit, book.worker, book.start, book.end)
    missing = Schedule(*(c[keep] for c in columns), n_ops=3, source="measured", label="odd")
    empty = Schedule([], [], [], [], [], [], n_ops=0, label="empty")
    measured = book.with_meta(source="measured", grant=None, buffers=2, label="hardware")
    show(lone_view, [missing, empty, measured], 2.5)
    lone_view.resize(1000, 560)
    texts = repaint(lone_view, painted).strings()
    assert "no tasks" in texts and "op 3 read 50%" in texts
    assert any("3 of 2 in use" in t for t in texts)
    assert len(lone_view.layouts()[2].memory.boxes) == 3  # type: ignore[union-attr]


# -- laptop to 4K -----------------------------------------------------------------------

#: Sizes the assembly line gets: 1280×800's share (docks beside it), 1920×1080's, a 4K
#: screen's, and smaller ones down to below its minimum.
SIZES = [(934, 342), (1574, 501), (3200, 1100), (700, 300), (520, 290), (360, 200)]


def _runs() -> dict[str, list[Schedule]]:
    def both(scenario: Scenario) -> list[Schedule]:
        return [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]

    many = Scenario.uniform_ops(2_000, 1.0, 1.2, 0.8, workers=(8, 2, 3), buffers=12)
    return {
        "book": both(load_preset("book")),
        "book-2-slots": both(Scenario.uniform_ops(3, buffers=2)),
        "two-load-units": [simulate(load_preset("two-load-units"))],
        "many-ops": both(load_preset("many-ops")),
        "8-workers-12-slots": [simulate(many)],
    }


@pytest.mark.parametrize("run", list(_runs()))
def test_no_text_overlaps_another_and_parts_keep_their_minimum_sizes(
    lone_view: AssemblyLineView, painted: Painted, run: str
) -> None:
    schedules = _runs()[run]
    show(lone_view, schedules, 0.0)
    minimum = lone_view.minimum_size()
    lone_view.setMinimumSize(0, 0)  # allow sizes below the minimum (the lanes scale down)
    end = max(s.makespan for s in schedules)
    for (width, height), share in itertools.product(SIZES, (0.1, 0.37, 0.5, 1.0)):
        lone_view.resize(width, height)
        lone_view._clock.seek(end * share)
        repaint(lone_view, painted)
        where = f"{run} at {width}×{height}, t = {end * share:g}"
        texts = painted.texts
        assert texts, where
        for (a, ra), (b, rb) in itertools.combinations(texts, 2):
            overlap = ra.intersected(rb)
            assert overlap.width() < 0.5 or overlap.height() < 0.5, f"{a!r} over {b!r}: {where}"
        bounds = QRectF(lone_view.rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
        assert all(bounds.contains(rect) for _, rect in texts), where
        if width >= minimum.width() and height >= minimum.height():
            for lane in lone_view.layouts():
                assert lane.fits, where
                cells = [c for s in lane.stations for c in s.cells]
                assert min(c.figure.width() for c in cells) >= FIGURE_MIN, where
                assert lane.chip >= CHIP_MIN, where
                if lane.memory is not None:
                    assert min(b.width() for b in lane.memory.boxes) >= SLOT_MIN, where


def test_the_heading_of_shared_memory_never_covers_a_worker_label(
    lone_view: AssemblyLineView, painted: Painted
) -> None:
    """The report from a 1280×800 laptop: "shared memory · 1 slot" over "idle 2 s"."""
    show(lone_view, _runs()["book"], 2.0)
    for height in range(lone_view.minimum_size().height(), 420, 7):
        lone_view.resize(934, height)
        texts = repaint(lone_view, painted).texts
        memory = [r for t, r in texts if "memory" in t]
        labels = [r for t, r in texts if t.startswith(("idle", "op "))]
        assert memory and labels
        assert not any(m.intersects(label) for m in memory for label in labels), height


def test_the_minimum_size_is_small_enough_for_a_laptop(lone_view: AssemblyLineView) -> None:
    show(lone_view, _runs()["book"], 0.0)
    minimum = lone_view.minimum_size()
    assert minimum.width() <= 400 and minimum.height() <= 300  # two lanes
    assert lone_view.minimumSizeHint() == minimum
    lone_view.resize(minimum)
    assert all(lane.fits for lane in lone_view.layouts())
    lone_view.resize(QSize(minimum.width(), minimum.height() - 20))
    assert lone_view.size() == minimum  # the widget refuses less


@pytest.mark.parametrize("run", list(_runs()))
def test_a_lane_minimum_is_the_least_size_its_lane_fits_in(lone_view, run: str) -> None:
    """The searched minimum is exact: its lane fits there, and not one pixel narrower
    (however tall) nor one pixel shorter (at that width)."""
    font = lone_view.font()
    for schedule in _runs()[run]:
        spec = lane_spec(Derived(schedule))
        width, height = lane_minimum(spec, font)
        assert layout_lane(QRectF(0, 0, width, height), spec, font).fits, run
        assert not layout_lane(QRectF(0, 0, width - 1, 4096), spec, font).fits, run
        assert not layout_lane(QRectF(0, 0, width, height - 1), spec, font).fits, run


# -- sharp at 200% --------------------------------------------------------------------------


def test_icons_are_rendered_at_the_device_pixel_ratio(qapp) -> None:
    image = tinted("worker", 40, 40, QColor("#4E79A7").rgba(), 2.0)
    assert (image.width(), image.height()) == (80, 80)
    assert image.devicePixelRatio() == 2.0
    pixmap = icon("play", QColor("black")).pixmap(QSize(24, 24), 2.0)
    assert pixmap.devicePixelRatio() == 2.0 and pixmap.width() == 48


SCALED = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from engine.analysis.derived import Derived
    from engine.model.scenario import load_preset
    from engine.model.scheduler import simulate
    from gui.assembly import AssemblyLineView
    from gui.clock import Clock
    from gui.colours import LIGHT
    from gui.icons import tinted
    schedule = simulate(load_preset("book"), "pipelined")
    clock = Clock()
    clock.set_timeline(Derived(schedule).events, schedule.makespan)
    clock.seek(4.5)
    view = AssemblyLineView(clock)
    view.set_schedules([schedule])
    view.resize(1200, 300)
    grabbed = view.grab().toImage()
    ratio = grabbed.devicePixelRatio()
    figure = view.figure_rects()[0][0]  # the load worker, idle (no chip on it)
    size = int(figure.width())
    left, top = int(figure.x() * ratio), int(figure.y() * ratio)
    crop = grabbed.copy(left, top, 2 * size, 2 * size)

    def on_card(icon):
        canvas = QImage(2 * size, 2 * size, QImage.Format.Format_RGB32)
        canvas.fill(QColor(LIGHT.surface))
        icon.setDevicePixelRatio(1.0)
        painter = QPainter(canvas)
        painter.drawImage(0, 0, icon)
        painter.end()
        return canvas

    def difference(reference):
        total = 0
        for y in range(reference.height()):
            for x in range(reference.width()):
                a, b = QColor(reference.pixel(x, y)), QColor(crop.pixel(x, y))
                total += abs(a.red() - b.red()) + abs(a.green() - b.green())
                total += abs(a.blue() - b.blue())
        return total / (3 * reference.width() * reference.height())

    colour = QColor(LIGHT.idle_hatch).rgba()
    sharp = tinted("worker", size, size, colour, 2.0).copy()
    soft = tinted("worker", size, size, colour, 1.0).scaled(
        2 * size, 2 * size, Qt.AspectRatioMode.IgnoreAspectRatio,
        Qt.TransformationMode.SmoothTransformation)
    crop.save(sys.argv[1] + ".png")
    json.dump({"ratio": ratio, "width": grabbed.width(), "sharp": difference(on_card(sharp)),
               "soft": difference(on_card(soft))}, open(sys.argv[1], "w"))
    """
)


def test_figures_are_sharp_at_200_percent(tmp_path: Path) -> None:
    """Under QT_SCALE_FACTOR=2 the grabbed figure's pixels are the icon rendered at twice
    the size, not the 1× icon scaled up."""
    script = tmp_path / "scaled.py"
    script.write_text(SCALED)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR="2", PYTHONPATH=str(ROOT))
    out = tmp_path / "out.json"
    result = subprocess.run(
        [sys.executable, str(script), str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["ratio"] == 2.0 and figures["width"] == 2400
    assert figures["sharp"] < 0.05 and figures["soft"] > 0.2


def test_an_edit_updates_the_stats_in_place(window: MainWindow) -> None:
    built = window.stats.rebuilds
    window.edit("compute", 2.0)
    assert window.stats.value_of("pipelined", "makespan") == "8 s"  # (1 + 2 + 1) + 2·2
    assert window.stats.value_of("pipelined", "formula").endswith("✓ agrees")
    assert window.stats.rebuilds == built
    window.set_view_mode("pipelined")  # another shape: built again
    assert window.stats.rebuilds == built + 1


def test_the_form_leaves_an_unchanged_field_alone(window: MainWindow) -> None:
    box = window.scenario_panel.durations["compute"]
    editor = box.lineEdit()
    editor.setCursorPosition(1)
    window.edit("read", 2.0)  # refills the form from the new scenario
    assert editor.cursorPosition() == 1
    assert window.scenario_panel.durations["read"].value() == 2.0
    assert not window.edit("ops", 2_000_000)  # rejected: the form shows the kept value
    assert window.scenario_panel.ops.value() == 3


@pytest.mark.parametrize(
    "scenario",
    [
        Scenario.uniform_ops(20_000, 0.001234, 0.001, 0.001),
        Scenario.uniform_ops(3, 1e9, 1e9, 1e9),  # the longest times the policy accepts
        Scenario.uniform_ops(3, 1e-6, 2e-6, 3e-6),  # the shortest
        Scenario.uniform_ops(1000, 0.7, 0.9, 0.3),
    ],
)
def test_the_readout_fits_its_longest_text(window: MainWindow, scenario: Scenario) -> None:
    window.apply_scenario(scenario)
    readout = window.transport.readout
    for fraction in (0.0, 0.0123, 0.1, 0.4567, 0.777, 0.999, 1.0):
        window.clock.seek(window.clock.end * fraction)
        width = readout.fontMetrics().horizontalAdvance(readout.text())
        assert width <= readout.width(), readout.text()


def test_the_readout_counts_events_with_separators(window: MainWindow) -> None:
    """ "event 1 of 1199965" was hard to read: counts have thousands separators."""
    window.apply_scenario(Scenario.uniform_ops(20_000, 1.0, 1.2, 0.8, buffers=3))
    window.clock.seek(window.clock.end)
    count = window.clock.event_index() + 1
    assert count > 1000 and window.transport.readout.text().endswith(f"of {count:,}")


# -- exports ----------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
def test_vector_export_draws_the_assembly_line_as_shapes(qapp, tmp_path: Path) -> None:
    book = [simulate(load_preset("book"), p) for p in ("sequential", "pipelined")]
    path = tmp_path / "a.pdf"
    export(book, path, time=2.5, with_assembly=True)  # SVG refuses it: pictures of workers
    data = path.read_bytes()
    words = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True)
    assert "shared memory" in words.stdout and "op 2 compute 50%" in words.stdout
    # The assembly line's only images are its worker figures (each with its alpha mask,
    # the same figure stored once): no static layer, box or slot pixmaps.
    assert len(re.findall(rb"/Subtype\s*/Image", data)) <= 12
