"""Issue 25, items 8-10: the lesson's numbers on the first screen, a window that shrinks
to what the open tab needs (1024 × 700 fits), narration never cut through a line, and op
labels that stay on the bars of thin rows (three runs pinned at 1280 × 800 too, with the
current run's narration first and whole)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from gui.colours import OP_COLOURS
from gui.figure.bars import BAR_HEIGHT
from gui.main_window import GPU_TAB, PIPELINE_TAB, WARPS_TAB, MainWindow
from gui.run_heading import lesson_line
from gui.timeline_rows import BAR_LABEL_FLOOR, LABEL_PITCH, bar_label_size
from gui.window_geometry import FRAME


def _settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def test_the_lesson_is_in_the_heading_without_a_click(window: MainWindow) -> None:
    shown = window.model.shown
    assert shown is not None
    lesson, why = lesson_line(shown)
    assert lesson.startswith("sequential 9\u00a0s → pipelined 5\u00a0s, 1.8× faster")
    assert "bottleneck: none" in lesson and "balanced" in why
    assert window.heading.lesson.text() == lesson
    assert window.heading.lesson.isVisible()  # on the Pipeline tab, no dock opened
    # On the title's own line: it costs the window no height.
    assert abs(window.heading.lesson.y() - window.title.y()) <= 4


def test_the_least_size_follows_the_open_tab(window: MainWindow) -> None:
    """Having opened the Warps tab held the window over 1,120 px wide on the Pipeline
    tab (a tab widget is as big as its biggest page)."""
    first = window.minimumSizeHint()
    for tab in (WARPS_TAB, GPU_TAB, PIPELINE_TAB):
        window.tabs.setCurrentIndex(tab)
        _settle()
    again = window.minimumSizeHint()
    assert again.width() == first.width() <= 900
    screen = QRect(0, 0, 1024, 700).marginsRemoved(FRAME)
    assert again.width() <= screen.width() and again.height() <= screen.height()


def test_the_narration_never_shows_a_line_cut_in_half(window: MainWindow) -> None:
    """At the least size the narration box was given 2.5 lines: the third line sliced."""
    box = window.view.narration_box
    window.resize(window.minimumSizeHint())
    _settle()
    for squeeze in range(0, 40, 3):  # any height the layout may give it
        box.setFixedHeight(box.floor() + squeeze)
        _settle()
        seen = box.height() - box.viewportMargins().bottom()
        top = box.verticalScrollBar().value()
        for line_top, line_bottom in box.label.line_edges():
            inside = top <= line_top and line_bottom <= top + seen
            outside = line_bottom <= top or line_top >= top + seen
            assert inside or outside, (squeeze, line_top, line_bottom, top, seen)


def test_pinned_runs_narration_is_cut_to_whole_lines_with_the_text_on_hover(
    window: MainWindow,
) -> None:
    model = window.model
    for slots in (2, 3, 0):
        model.edit("buffers", slots, wait=True)
        model.pin(wait=True)
    model.edit("buffers", 1, wait=True)
    window.clock.seek(2.0)
    _settle()
    box = window.view.narration_box
    box.set_cap(box.floor())
    _settle()
    assert box.cut_rows >= 1
    assert "—" in box.toolTip() and "pinned" in box.toolTip()
    assert box.toolTip().count("\n") == len(window.view.schedules) - 1  # every row, whole
    assert "…" in box.label.text()


def test_op_labels_shrink_before_they_vanish() -> None:
    """Bars 7-9 px tall (three runs at 1280 × 800) lost their labels under 10 px."""
    assert bar_label_size(30) == 13
    assert bar_label_size(9.4) == BAR_LABEL_FLOOR == 8  # the old rule: none under 10 px
    assert bar_label_size(BAR_LABEL_FLOOR + 0.9) is None
    sizes = [bar_label_size(px / 4) for px in range(4 * 9, 4 * 40)]
    assert all(s is not None for s in sizes)
    assert sizes == sorted(sizes)  # type: ignore[type-var]


def _three_pins_at_1280_by_800(window: MainWindow) -> None:
    """Both policies and three pinned runs (2, 3 and unlimited slots; now 1 slot) in a
    window filling a 1280 × 800 screen: five groups, fifteen rows."""
    model = window.model
    for slots in (2, 3, 0):
        model.edit("buffers", slots, wait=True)
        model.pin(wait=True)
    model.edit("buffers", 1, wait=True)
    window.resize(QRect(0, 0, 1280, 800).marginsRemoved(FRAME).size())
    _settle()
    assert len(window.view.schedules) == 5


def _ink_in(image: QImage, box: QRect, colour: QColor) -> int:
    """Pixels in ``box`` far from ``colour`` (a label's ink on a bar of that colour)."""
    far = 0
    for x in range(box.left(), box.right() + 1):
        for y in range(box.top(), box.bottom() + 1):
            pixel = image.pixelColor(x, y)
            if abs(pixel.red() - colour.red()) + abs(pixel.green() - colour.green()) > 150:
                far += 1
    return far


def test_three_pins_at_1280_by_800_keep_op_labels_on_the_bars(window: MainWindow) -> None:
    """Three pins at 1280 × 800: fifteen rows in some 90 px, bars 4-6 px tall, no op
    labels and no "compute unit" names. The assembly line gives up a lane instead."""
    _three_pins_at_1280_by_800(window)
    view, timeline = window.view, window.view.timeline
    assert timeline.row_fit.pitch >= LABEL_PITCH
    assert bar_label_size(timeline.row_fit.pitch * BAR_HEIGHT) is not None
    assert [s.label for s in view.assembly.schedules] == ["pipelined"]  # the current one
    box = timeline.getPlotItem().getViewBox()
    names = [words for _, words in timeline.row_axis.labels(*box.viewRange()[1], box.height())]
    assert names.count("compute unit") == 5
    # Every group's first bar (op 1's read, 0-1 s) carries its label's ink.
    image = timeline.grab().toImage()
    colour = QColor(OP_COLOURS[0])
    for group in timeline.groups:
        corner = box.mapViewToScene(QPointF(0.2, group.first_row - 0.25))
        far = box.mapViewToScene(QPointF(0.8, group.first_row + 0.25))
        rect = QRectF(corner, far).normalized()
        inside = QRect(
            timeline.mapFromScene(rect.topLeft()), timeline.mapFromScene(rect.bottomRight())
        )
        assert image.pixelColor(inside.left(), inside.top()) == colour  # on the bar
        assert _ink_in(image, inside, colour) >= 6, group.title


def test_three_pins_keep_the_current_runs_narration_first_and_whole(
    window: MainWindow,
) -> None:
    """It came last, under the pinned runs' rows: cut to a line, or scrolled away."""
    _three_pins_at_1280_by_800(window)
    box = window.view.narration_box
    for time in (0.0, 2.0, 4.5, 7.0):
        window.clock.seek(time)
        _settle()
        rows = box.label.text().split("<br>")
        assert rows[0].startswith("<b>sequential</b>") and rows[1].startswith("<b>pipelined</b>")
        assert all("…" not in row for row in rows[:2]), time
        assert all(row.startswith("<b>pinned") for row in rows[2:])
        assert box.cut_rows == 3
        # The current rows' lines are all in view, none cut by the box's edge.
        seen = box.height() - box.viewportMargins().bottom()
        assert box.verticalScrollBar().value() == 0
        assert box.label.height_for(box.label.width(), without_last=3) <= seen, time
        assert "pinned pipelined · 3 slots —" in box.toolTip()  # every row whole on hover
