"""The assembly line and what a clock tick costs: a tick redraws neither the Gantt's bars
nor the assembly line's static layer; idle time stops at the lane's own makespan; edits
update the stats in place and leave the field being edited alone; vector exports of the
assembly line draw shapes, not pixmaps."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.scenario import Scenario, load_preset
from engine.scheduler import simulate
from engine.view_model import idle_time
from gui import assembly
from gui.export import export
from gui.main_window import MainWindow


def painted_texts(win: MainWindow, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the assembly line draws in one repaint."""
    texts: list[str] = []
    original = assembly._LanePainter._text

    def record(self, rect, text, font, colour, align):  # type: ignore[no-untyped-def]
        texts.append(text)
        original(self, rect, text, font, colour, align)

    monkeypatch.setattr(assembly._LanePainter, "_text", record)
    win.view.assembly.repaint()
    return texts


def test_a_tick_repaints_neither_the_bars_nor_the_static_layer(window: MainWindow, qapp) -> None:
    window.apply_scenario(Scenario.uniform_ops(2_000, 1.0, 1.2, 0.8, buffers=3))
    qapp.processEvents()
    window.view.assembly.repaint()

    def play() -> None:
        for i in range(30):
            window.clock.seek(window.clock.end * i / 30)
            qapp.processEvents()
            window.view.assembly.repaint()

    bars = window.view.timeline.bars.paint_count
    play()  # the narration may grow once for a longer line (the lanes get less room)
    assert window.view.timeline.bars.paint_count == bars
    static = window.view.assembly.static_paints
    play()
    assert window.view.timeline.bars.paint_count == bars
    assert window.view.assembly.static_paints == static
    # An edited duration keeps the lanes' shape (and the static layer); more workers don't.
    window.edit("compute", 1.1)
    window.view.assembly.repaint()
    assert window.view.assembly.static_paints == static
    window.edit("load_workers", 2)
    window.view.assembly.repaint()
    assert window.view.assembly.static_paints == static + 1


def test_idle_time_stops_at_the_lanes_makespan(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.clock.seek(9.0)  # sequential ends at 9 s, pipelined at 5 s
    texts = painted_texts(window, monkeypatch)
    # Pipelined: load idle from 3 s to its end at 5 s, compute from 4 s, store done at 5 s.
    assert "idle 2 s" in texts and "idle 1 s" in texts and "idle 0 s" in texts
    assert "idle 6 s" not in texts and "idle 5 s" not in texts
    schedule = simulate(load_preset("book"), "pipelined")
    assert idle_time(schedule, 3.0, 9.0) == 2.0
    assert idle_time(schedule, 3.0, 4.0) == 1.0
    assert idle_time(schedule, float("nan"), 2.0) == 2.0  # never worked: idle since 0


def test_the_static_layer_and_the_moving_parts_show_the_book_state(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.clock.seek(2.5)
    texts = painted_texts(window, monkeypatch)
    assert "op 2 compute 50%" in texts  # pipelined compute unit on op 2 at 2.5 s
    assert "op 3 read 50%" in texts
    assert any(t.startswith("shared memory · unlimited slots · 3 in use") for t in texts)
    assert "1 waiting" not in texts and "0 waiting" in texts  # pipelined: all three started
    assert "t = 2.5 s of 5 s" in texts


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


def test_the_readout_fits_its_longest_text(window: MainWindow) -> None:
    window.apply_scenario(Scenario.uniform_ops(20_000, 0.001234, 0.001, 0.001))
    window.clock.seek(window.clock.end * 0.777)
    readout = window.transport.readout
    width = readout.fontMetrics().horizontalAdvance(readout.text())
    assert width <= readout.width()


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
