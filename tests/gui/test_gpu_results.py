"""The GPU page's results, read as a newcomer reads them (issue 25, item 15): the cursor
label in the axis's unit, the dashed spread boxes in the legend, the "why" in plain words,
and the sentence before a CPU run on a machine that cannot show the overlap."""

from __future__ import annotations

from gpu_stand_in import stand_in_result

from gpu.cores import Cores
from gpu.detect import Detection
from gpu.report import measured_description, measured_title, pipeline_rows
from gui.clock import Clock
from gui.gpu_panel import GpuPanel
from gui.gpu_results import SPREAD_KEY, GpuResults


def _results(qtbot) -> GpuResults:  # type: ignore[no-untyped-def]
    results = GpuResults(Clock())
    qtbot.addWidget(results)
    result = stand_in_result()
    results.show_pipeline(result, pipeline_rows(result))
    return results


def test_the_cursor_label_speaks_the_axis_unit(qtbot) -> None:  # type: ignore[no-untyped-def]
    results = _results(qtbot)
    assert results.timeline.getPlotItem().getAxis("bottom").labelText == "time (ms)"
    assert results.timeline.cursor.label.toPlainText() == "0 ms"  # was "0 s"


def test_the_dashed_spread_boxes_are_in_the_legend(qtbot) -> None:  # type: ignore[no-untyped-def]
    results = _results(qtbot)
    assert results.spread_bands  # the stand-in's sequential repeats differ
    assert results.spread_key.isVisibleTo(results)
    assert results.spread_key.text.text() == SPREAD_KEY
    results.clear()
    assert not results.spread_key.isVisibleTo(results)


def test_the_why_line_is_plain_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    results = _results(qtbot)
    why = dict(results.table_rows())["why"]
    for jargon in ("side-by-side stage times", "fell", "short of"):
        assert jargon not in why
    assert why.startswith("Pipelined ")
    assert "<b>why</b>" in results.summary.text()


def test_a_measured_run_is_named_for_the_window() -> None:
    result = stand_in_result()
    assert measured_title(result) == "Measured on CPU threads: 3 chunks, sequential and pipelined"
    assert measured_description(result).startswith("Showing the measured run: 3 chunks on CPU")


def _panel(qtbot, cores: Cores) -> GpuPanel:  # type: ignore[no-untyped-def]
    detection = Detection("cpu", None, "no CUDA device (test)")
    panel = GpuPanel(detection, cores=cores)
    qtbot.addWidget(panel)
    return panel


def test_two_busy_cores_are_said_before_the_run(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(qtbot, Cores(2, 2))
    assert panel.cores_note.isVisibleTo(panel)
    assert "copy engines" in panel.cores_note.text()


def test_two_free_cores_say_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(qtbot, Cores(2, 0))
    assert not panel.cores_note.isVisibleTo(panel) and panel.cores_note.text() == ""
