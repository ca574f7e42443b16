"""The Gantt: bars in one item, hover text, the cursor follows and drives the clock, and
moving the cursor never repaints the bars; rows per op; density where bars are thinner
than a pixel, bars again when zoomed in."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario, load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from gui.clock import Clock
from gui.colours import DARK, IDLE_STYLES, LIGHT, OP_COLOURS, density_colours
from gui.timeline import TimelineView, add_rows_menu
from tests.gui.conftest import OFFSCREEN_ONLY


@pytest.fixture
def timeline(qtbot):
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    scenario = load_preset("book")
    view.set_schedules([simulate(scenario, "sequential"), simulate(scenario, "pipelined")])
    clock.set_timeline(np.arange(10.0), 9.0)
    return view


def test_bars_live_in_one_item(timeline: TimelineView) -> None:
    from pyqtgraph import GraphicsObject

    items = [i for i in timeline.getPlotItem().items if isinstance(i, GraphicsObject)]
    assert timeline.bar_count == 18
    assert len([i for i in items if type(i).__name__ == "BarsItem"]) == 1


def test_hover_text_names_task_and_idle_gap(timeline: TimelineView) -> None:
    first = timeline.groups[0].first_row
    text = timeline.describe_at(3.5, first + 0)  # sequential load unit, op 2 reading
    assert "op 2 · read" in text and "start 3 s" in text and "duration 1 s" in text
    idle = timeline.describe_at(1.5, first + 0)  # sequential = one slot: op 1 holds it
    assert idle == "load unit idle 1–3 s (sequential)\nwaiting for a slot: held by op 1 until 3 s"
    assert timeline.describe_at(20.0, -5.0) == ""


def test_cursor_follows_and_drives_the_clock(timeline: TimelineView, qtbot) -> None:
    clock = timeline._clock
    clock.seek(2.5)
    assert timeline.cursor.value() == 2.5
    timeline.cursor.setValue(6.0)
    timeline.cursor.sigDragged.emit(timeline.cursor)
    assert clock.time == 6.0


def test_moving_the_cursor_never_repaints_the_bars(
    timeline: TimelineView, qapp, qtbot, bar_paints
) -> None:
    qtbot.wait(100)  # let the plot settle its deferred range updates
    timeline.viewport().repaint()
    assert bar_paints
    before = len(bar_paints)
    for t in np.linspace(0, 9, 40):
        timeline._clock.seek(float(t))
        qapp.processEvents()
    timeline.viewport().repaint()
    assert len(bar_paints) == before


def test_measured_rows_may_overlap(qtbot) -> None:
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    measured = Schedule(
        op=[0, 1, 0],
        stage=[0, 0, 1],
        unit=[0, 0, 1],
        worker=[0, 0, 0],
        start=[0.0, 0.5, 1.0],
        end=[2.0, 1.5, 3.0],
        workers=(1, 1),
        n_ops=2,
        source="measured",
        time_unit="ms",
        unit_names=("copy", "kernel"),
        stage_names=("h2d", "run"),
    )
    view.set_schedules([measured])
    assert view.bar_count == 3
    assert "op 2 · h2d" in view.describe_at(1.0, view.groups[0].first_row)
    bottom = view.groups[0].first_row + 2
    assert [w for _, w in view.row_axis.labels(-0.45, bottom, 300)] == ["copy", "kernel"]
    assert view.getPlotItem().getAxis("bottom").labelText == "time (ms)"
    view.set_schedules([simulate(load_preset("book"))])
    assert view.getPlotItem().getAxis("bottom").labelText == "time (s)"


def test_rows_per_op_show_the_staircase(timeline: TimelineView) -> None:
    timeline.set_rows("ops")
    assert timeline.rows == "ops" and timeline.bar_count == 18
    group = timeline.groups[1]  # pipelined
    assert group.n_rows == 3
    text = timeline.describe_at(1.5, group.first_row + 1)  # op 2 reads from 1 s to 2 s
    assert "op 2 · read" in text
    last = timeline.groups[-1]
    words = [w for _, w in timeline.row_axis.labels(-0.45, last.first_row + 3, 400)]
    assert words == ["op 1", "op 2", "op 3"] * 2
    timeline.set_rows("workers")
    assert timeline.groups[0].n_rows == 3
    with pytest.raises(PipeLabError):
        timeline.set_rows("stages")


def test_density_when_zoomed_out_and_bars_when_zoomed_in(qtbot) -> None:
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    schedule = simulate(Scenario.uniform_ops(100_000, 1.0, 1.2, 0.8, buffers=3), "pipelined")
    view.set_schedules([schedule])
    # The ramp's shades of busy (its first entry is the idle rows' own colour).
    shades = {c.rgb() for c in density_colours(LIGHT)[1:]}
    ops = {QColor(c).rgb() for c in OP_COLOURS}

    def pixels() -> tuple[int, int]:
        """How many pixels show shades of busy, and how many op colours."""
        image = view.grab().toImage()
        seen = Counter(
            image.pixel(x, y) for x in range(image.width()) for y in range(image.height())
        )
        return sum(seen[c] for c in shades), sum(seen[c] for c in ops)

    qtbot.waitUntil(lambda: pixels()[0] > 10 * 900)  # shaded rows, no bar per task
    assert pixels()[1] == 0  # no op-colour noise
    view.getPlotItem().getViewBox().setXRange(1000.0, 1030.0, padding=0)
    # About 30 s × 3 rows of 1 s ops: bars in their ops' colours again, no shading (but
    # for a few pixels of other items that happen to share a shade).
    qtbot.waitUntil(lambda: pixels()[1] > 10 * 900)
    shaded, coloured = pixels()
    assert shaded < coloured / 100, (shaded, coloured)


def test_rows_menu_switches_the_gantt(qtbot) -> None:
    from PySide6.QtWidgets import QMenu

    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    menu = QMenu()
    group = add_rows_menu(menu, view)
    per_op = next(a for a in group.actions() if "op" in a.text().replace("&", ""))
    per_op.trigger()
    assert view.rows == "ops"


# -- wait reasons: hatches, legend, hover ----------------------------------------------------


def two_slots(qtbot, rows: str = "workers", theme=LIGHT) -> TimelineView:
    """The pipelined book with 2 slots, 1000 × 420 px."""
    view = TimelineView(Clock(), theme)
    qtbot.addWidget(view)
    view.resize(1000, 420)
    view.show()
    qtbot.waitExposed(view)
    view.set_rows(rows)
    view.set_schedules([simulate(load_preset("book").with_changes(buffers=2), "pipelined")])
    ink = QColor(theme.idle_hatch).rgb()

    def hatched() -> bool:
        """The legend laid out under the rows, and hatches in a grab of the view."""
        legend = view.legend.sceneBoundingRect()
        if not view.legend.isVisible() or legend.isEmpty():
            return False
        image = view.grab().toImage()
        return any(
            image.pixel(x, y) == ink
            for x in range(image.width())
            for y in range(0, image.height(), 2)
        )

    qtbot.waitUntil(hatched)
    return view


def pixel_of(view: TimelineView, time: float, row: float) -> tuple[int, int]:
    point = view.getPlotItem().getViewBox().mapViewToScene(QPointF(time, row))
    local = view.mapFromScene(point)
    return local.x(), local.y()


def patch(image, centre: tuple[int, int], half: int = 10) -> dict[tuple[int, int], int]:
    x0, y0 = centre
    return {
        (x, y): image.pixel(x, y)
        for x in range(x0 - half, x0 + half + 1)
        for y in range(y0 - half // 2, y0 + half // 2 + 1)
    }


def directions(pixels: dict[tuple[int, int], int], ink: int) -> set[str]:
    """Which ways the hatch lines in ``pixels`` run: "/", "\\", "-", "|" (a direction
    counts when at least a third of the ink pixels continue that way: a crossed hatch
    has half of its ink on each of its two lines)."""
    inked = {p for p, c in pixels.items() if c == ink}
    steps = {"/": (1, -1), "\\": (1, 1), "-": (1, 0), "|": (0, 1)}
    found = set()
    for name, (dx, dy) in steps.items():
        inside = [(x, y) for x, y in inked if (x + dx, y + dy) in pixels]
        if inside and sum((x + dx, y + dy) in inked for x, y in inside) > len(inside) / 3:
            found.add(name)
    return found


#: Where the engine says the pipelined book with 2 slots waits (row, time, reason).
BOOK_TWO_SLOTS = [
    (0, 2.5, "slot"),
    (0, 5.0, "done"),
    (1, 0.5, "input"),
    (1, 3.5, "input"),
    (1, 5.5, "done"),
    (2, 1.0, "input"),
    (2, 4.5, "input"),
]
PATTERNS = {"input": {"/"}, "slot": {"/", "\\"}, "done": {"-"}, "worker": {"\\"}}


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_hatches_carry_the_engines_reasons(qtbot, theme) -> None:
    """Each idle span is drawn in its reason's tint and pattern where the engine puts it:
    the load unit waits for a slot 2–3 s and is done from 4 s; the compute and store
    units wait for input, the compute unit is done from 5 s."""
    from engine.reasons.waits import IDLE_REASONS
    from tests.engine.test_waits import span_at

    view = two_slots(qtbot, theme=theme)
    schedule = view.groups[0].schedule
    spans = Derived(schedule).idle_spans
    for row, time, reason in BOOK_TWO_SLOTS:
        assert IDLE_REASONS[spans.reason[span_at(spans, spans.row, row, time)]] == reason
    assert view.legend.words == [IDLE_STYLES[r].label for r in ("input", "slot", "done")]
    image = view.grab().toImage()
    first = view.groups[0].first_row
    ink = QColor(theme.idle_hatch).rgb()
    for row, time, reason in BOOK_TWO_SLOTS:
        pixels = patch(image, pixel_of(view, time, first + row))
        colours = set(pixels.values())
        tint = QColor(getattr(theme, IDLE_STYLES[reason].tint)).rgb()
        assert tint in colours and ink in colours, (row, time, reason)
        for other in {"slot_tint", "done_tint"} - {IDLE_STYLES[reason].tint}:
            assert QColor(getattr(theme, other)).rgb() not in colours, (row, time, reason)
        assert directions(pixels, ink) == PATTERNS[reason], (row, time, reason)


def test_op_rows_hatch_the_ops_waits(qtbot) -> None:
    """One row per op: op 2 waits 0–1 s for the busy load unit, op 3 waits 0–3 s for a
    slot (the engine's op waits); the legend follows."""
    view = two_slots(qtbot, rows="ops")
    assert view.legend.words == [IDLE_STYLES[r].label for r in ("worker", "slot")]
    image = view.grab().toImage()
    first = view.groups[0].first_row
    ink = QColor(LIGHT.idle_hatch).rgb()
    for op, time, reason in [(1, 0.5, "worker"), (2, 1.5, "slot"), (2, 2.5, "slot")]:
        pixels = patch(image, pixel_of(view, time, first + op), half=8)
        tint = QColor(getattr(LIGHT, IDLE_STYLES[reason].tint)).rgb()
        assert tint in set(pixels.values()), (op, time, reason)
        assert directions(pixels, ink) == PATTERNS[reason], (op, time, reason)
    text = view.describe_at(1.5, first + 2)
    assert text.startswith("op 3 waits 0–3 s for a slot: held by ops 1 and 2")
    assert view.describe_at(0.5, first + 1).startswith("op 2 waits 0–1 s for the load unit")


def test_legend_lists_the_reasons_present_and_is_drawn(qtbot) -> None:
    view = two_slots(qtbot)
    assert view.legend.words == [IDLE_STYLES[r].label for r in ("input", "slot", "done")]
    assert view.legend.isVisible()
    legend = view.mapFromScene(view.legend.sceneBoundingRect()).boundingRect()
    assert legend.top() > pixel_of(view, 0.0, view.groups[0].first_row + 2)[1]  # under rows
    image = view.grab().toImage()
    colours = {
        image.pixel(x, y)
        for x in range(max(0, legend.left()), min(image.width(), legend.right()))
        for y in range(max(0, legend.top()), min(image.height(), legend.bottom()))
    }
    assert QColor(LIGHT.slot_tint).rgb() in colours and QColor(LIGHT.text).rgb() in colours
    view.set_schedules([simulate(load_preset("book"), "pipelined")])  # unlimited slots
    assert view.legend.words == [IDLE_STYLES[r].label for r in ("input", "done")]
    view.set_schedules([])
    assert not view.legend.isVisible()


def test_hover_names_the_reason(qtbot) -> None:
    view = two_slots(qtbot)
    first = view.groups[0].first_row
    assert view.describe_at(2.5, first) == (
        "load unit idle 2–3 s (pipelined)\n"
        "waiting for a slot: held by ops 1 and 2; the first frees at 3 s"
    )
    assert view.describe_at(0.5, first + 1).endswith("waiting for input: op 1's read ends at 1 s")
    assert view.describe_at(5.5, first + 1).endswith("done: the compute unit has no work left")


def test_row_axis_makes_room_for_its_longest_label(qtbot) -> None:
    """At any window size the names are whole ("compute unit", not "ompute unit")."""
    from PySide6.QtGui import QFontMetricsF

    view = TimelineView(Clock())
    qtbot.addWidget(view)
    view.resize(1900, 900)
    view.show()
    qtbot.waitExposed(view)
    axis = view.row_axis
    metrics = QFontMetricsF(axis.style["tickFont"])
    room = axis.style["tickTextOffset"][0]
    for preset in ("book", "two-load-units"):
        view.set_schedules([simulate(load_preset(preset), "pipelined")])
        widest = max(metrics.horizontalAdvance(w) for _, w in axis.labels(-0.5, 5.0, 400))
        qtbot.waitUntil(lambda w=widest: axis.width() >= w + room)
    view.set_rows("ops")
    view.set_schedules([simulate(Scenario.uniform_ops(20_000), "pipelined")])
    assert view.row_axis.longest_label() == "op 20,000"


def test_time_axis_and_cursor_speak_the_one_formatter(qtbot) -> None:
    view = TimelineView(Clock())
    qtbot.addWidget(view)
    view.set_schedules([simulate(Scenario.uniform_ops(200_000, 1.0, 1.0, 1.0), "pipelined")])
    assert view.time_axis.tickStrings([0.0, 2e5, 6e5], 1.0, 2e5) == ["0", "200,000", "600,000"]
    assert view.getPlotItem().getAxis("bottom").labelText == "time (s)"
    view._clock.set_timeline(np.array([0.0, 2.5]), 2.5)
    view._clock.seek(2.5)
    assert view.cursor.label.toPlainText() == "2.5 s"
    ms = Schedule(
        op=[0, 0, 0], stage=[0, 1, 2], unit=[0, 1, 2], worker=[0, 0, 0],
        start=[0.0, 0.1, 0.3], end=[0.1, 0.3, 0.4], n_ops=1, workers=(1, 1, 1),
        time_unit="ms", source="measured",
    )  # fmt: skip
    view.set_schedules([ms])
    assert view.getPlotItem().getAxis("bottom").labelText == "time (µs)"
    assert view.time_axis.tickStrings([0.1, 0.2], 1.0, 0.1) == ["100", "200"]


@pytest.mark.parametrize("height", [170, 260, 400, 900])
def test_every_title_keeps_its_room_at_any_height(timeline: TimelineView, qtbot, height):
    """At 1280 × 720 the second group's title was drawn over the first group's last row:
    the gap between groups was 1.2 rows, 13 px. Now every title's band (TITLE_ROOM px) lies
    between the rows above it (or the view's top) and its own first row, at any height,
    refitted on resize; the drawn texts lie in it, the makespan labels inside the view."""
    from gui.figure.bars import BAR_HEIGHT
    from gui.timeline import TITLE_ROOM

    timeline.resize(900, height)
    qtbot.waitUntil(lambda: timeline.height() == height)
    for reset in (False, True):
        if reset:
            timeline.reset_view()  # the same after a reset
        view = timeline.getPlotItem().getViewBox()
        above = view.sceneBoundingRect().top()
        for group in timeline.groups:
            edge = view.mapViewToScene(QPointF(0.0, group.first_row - 0.5)).y()
            assert edge - TITLE_ROOM >= above - 0.5, (height, group.title)
            last = group.first_row + group.n_rows - 1 + BAR_HEIGHT / 2
            above = view.mapViewToScene(QPointF(0.0, last)).y()
        timeline.grab()  # paints the marks at this size
        assert len(timeline.marks.drawn) == 2
        for boxes in timeline.marks.drawn:
            for box in (boxes.title, boxes.label):
                assert boxes.above_bottom - 0.5 <= box.top() and box.bottom() <= boxes.rows_top
            assert boxes.label.right() <= boxes.right_edge


def test_the_first_title_is_drawn_whole_in_a_short_view(timeline: TimelineView, qtbot) -> None:
    """Its top half was cut off by the marks' cached picture (clipped to their bounds)."""
    timeline.resize(900, 170)
    qtbot.waitUntil(lambda: timeline.height() == 170)
    image = timeline.grab().toImage()
    view = timeline.getPlotItem().getViewBox()
    line = timeline.mapFromScene(
        view.mapViewToScene(QPointF(0.0, timeline._groups[0].first_row - 0.5))
    ).y()
    left = timeline.mapFromScene(view.mapViewToScene(QPointF(0.0, 0.0))).x()
    ink_rows = {
        y
        for y in range(max(0, line - 20), line - 6)
        for x in range(left + 4, left + 150)
        if QColor(image.pixel(x, y)).lightness() < 110
    }
    assert ink_rows and min(ink_rows) <= line - 14, "the title's upper half is missing"


def test_worker_names_shrink_before_any_is_skipped(timeline: TimelineView, qtbot) -> None:
    """Rows 11 px apart (the book in "both" mode at 1280 × 720) kept every other name
    ("compute unit" was missing): the names now get a smaller font down to rows 10 px
    apart, and only below that are some skipped."""
    from gui.timeline_rows import LABEL_FONT, LABEL_MIN_PITCH

    view = timeline.getPlotItem().getViewBox()

    def shown() -> list[str]:
        low, high = view.viewRange()[1]
        return [w for _, w in timeline.row_axis.labels(low, high, view.height())]

    every = ["load unit", "compute unit", "store unit"] * 2
    assert shown() == every and timeline.row_axis.font_size == LABEL_FONT
    for height in range(260, 100, -4):
        timeline.resize(900, height)
        qtbot.waitUntil(lambda h=height: timeline.height() == h)
        pitch = timeline.row_fit.pitch
        if pitch >= LABEL_MIN_PITCH:
            assert shown() == every, pitch
        else:
            assert len(shown()) < len(every), pitch
            break
        if pitch < LABEL_FONT + 1:
            assert timeline.row_axis.font_size < LABEL_FONT
    else:
        pytest.fail("the rows never got thinner than 10 px")


def test_the_cursor_label_sits_under_the_bars(timeline: TimelineView, qtbot) -> None:
    """It was drawn at the bottom of the view over the last row's bars."""
    from gui.figure.bars import BAR_HEIGHT

    timeline.resize(900, 200)
    qtbot.waitUntil(lambda: timeline.height() == 200)
    timeline._clock.seek(2.5)
    view = timeline.getPlotItem().getViewBox()
    last = timeline.groups[-1]
    bars_bottom = view.mapViewToScene(
        QPointF(0.0, last.first_row + last.n_rows - 1 + BAR_HEIGHT / 2)
    ).y()
    label = timeline.cursor.label.sceneBoundingRect()
    assert timeline.cursor.label.toPlainText() == "2.5 s"
    assert label.top() >= bars_bottom - 0.5
    assert label.bottom() <= view.sceneBoundingRect().bottom() + 1.0


def test_the_minimum_height_follows_the_rows_up_to_a_cap(qtbot) -> None:
    """Rows MIN_PITCH px apart, every title and the cursor's band: the minimum size hint
    grows with the rows, but nine workers in three runs don't ask for the whole screen."""
    from gui.timeline import MOST_MINIMUM
    from gui.timeline_rows import MIN_PITCH, rows_height

    view = TimelineView(Clock())
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    book = load_preset("book")
    view.set_schedules([simulate(book, "pipelined")])
    one = view.wanted_height()
    assert view.minimumSizeHint().height() == min(one, MOST_MINIMUM)
    view.set_schedules([simulate(book, "sequential"), simulate(book, "pipelined")])
    two = view.wanted_height()
    assert view.minimumSizeHint().height() == min(two, MOST_MINIMUM)
    assert two - one == pytest.approx(rows_height(6, 2) - rows_height(3, 1), abs=1)
    assert two - one >= 3 * MIN_PITCH
    view.resize(900, two)
    qtbot.waitUntil(lambda: view.height() == two)
    assert view.row_fit.pitch >= MIN_PITCH - 0.5
    many = book.with_changes(workers=(3, 3, 3))
    view.set_schedules([simulate(many, p) for p in ("sequential", "pipelined", "pipelined")])
    assert view.wanted_height() > MOST_MINIMUM == view.minimumSizeHint().height()


def test_the_time_axis_keeps_its_reach_through_resizes_and_resets(
    timeline: TimelineView, qtbot
) -> None:
    """The GPU page widens the axis to the slowest repeat; a resize put the limits of the
    runs alone back (the pipelined spread, to 75.9 ms, was cut at 72 ms)."""
    timeline.set_time_reach(12.0)
    view = timeline.getPlotItem().getViewBox()
    assert view.viewRange()[0][1] >= 12.0
    for height in (300, 520):
        timeline.resize(900, height)
        qtbot.waitUntil(lambda h=height: timeline.height() == h)
        assert view.viewRange()[0][1] >= 12.0
    timeline.reset_view()
    assert view.viewRange()[0][1] >= 12.0
    timeline.set_time_reach(0.0)
    assert view.viewRange()[0][1] == pytest.approx(1.04 * 9.0)


def test_a_long_title_is_cut_before_its_makespan_label_leaves_the_view(qtbot) -> None:
    """The model's run on the GPU page: a long title, a short makespan; its label was
    pushed right of the title and out of the view ("makespan 10…")."""
    view = TimelineView(Clock())
    qtbot.addWidget(view)
    view.resize(640, 300)
    view.show()
    qtbot.waitExposed(view)
    book = load_preset("book")
    long = "model: pipelined, from the sequential run's mean stage times and then some more"
    view.set_schedules(
        [simulate(book, "sequential"), simulate(book, "pipelined").with_meta(label=long)]
    )
    view.grab()
    boxes = view.marks.drawn[1]
    assert boxes.label.right() <= boxes.right_edge
    assert boxes.title.right() < boxes.label.left()


def test_an_edit_that_keeps_the_rows_keeps_the_row_axis_and_legend(
    timeline: TimelineView, qtbot
) -> None:
    """Same rows and reasons (other durations): the row names and the legend are not laid
    out or drawn again; other workers redraw the row names."""
    qtbot.wait(20)
    axis, legend = timeline.row_axis, timeline.legend
    drawn, image = axis.picture, legend._image
    assert drawn is not None and image is not None
    scenario = load_preset("book").with_changes(compute=1.5)
    timeline.set_schedules([simulate(scenario, "sequential"), simulate(scenario, "pipelined")])
    qtbot.wait(20)
    assert axis.picture is drawn and legend._image is image
    more = replace(scenario, workers=(1, 2, 1))
    timeline.set_schedules([simulate(more, "sequential"), simulate(more, "pipelined")])
    qtbot.wait(20)
    assert axis.picture is not drawn
    assert "compute unit 2" in {word for _, word in axis.labels(0, 20, 400)}


# Offscreen Qt cannot raise a window (the tooltip's); a real desktop does.
@pytest.mark.qt_log_ignore(OFFSCREEN_ONLY, r"^This plugin does not support raise\(\)$")
def test_a_tooltip_stays_while_the_pointer_rests_on_a_bar(timeline: TimelineView, qtbot) -> None:
    """Issue 25, item 2: the tooltip vanished after about a second on a bar. Once the
    pointer rests, Qt asks the view's scene for a tooltip (QEvent.ToolTip, in the active
    window only: bare Xvfb never showed it); no item has one, and the scene's empty answer
    hid the view's own tip."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QToolTip

    timeline.activateWindow()
    qtbot.waitUntil(timeline.isActiveWindow)
    view = timeline.getPlotItem().getViewBox()
    first = timeline.groups[0].first_row
    scene = view.mapViewToScene(QPointF(3.5, first))  # sequential load unit, op 2 reading
    point = timeline.mapFromScene(scene)
    viewport = timeline.viewport()
    QTest.mouseMove(viewport, point - QPoint(3, 0))
    QTest.mouseMove(viewport, point)
    qtbot.waitUntil(QToolTip.isVisible)
    shown = QToolTip.text()
    assert shown.startswith("op 2 · read")
    qtbot.wait(2000)  # the pointer rests
    assert QToolTip.isVisible() and QToolTip.text() == shown
    QToolTip.hideText()


def test_a_shapes_legend_names_its_pools(qtbot) -> None:
    """A shape's slot waits are named by pool in the legend (and in an exported figure's
    legend, the same entries); shown beside a book's run, the book's words."""
    from engine.model.shape_file import load_any_preset

    view = two_slots(qtbot)
    book = view.groups[0].schedule
    shape = load_any_preset("hopper-ping-pong")
    pipelined, sequential = shape.simulate("pipelined"), shape.simulate("sequential")
    view.set_schedules([pipelined])
    slot = "waiting for a slot: smem stages or consumer warpgroups"
    assert slot in view.legend.words
    view.set_schedules([sequential, pipelined])
    several = "waiting for a slot: one op at a time, smem stages or consumer warpgroups"
    assert several in view.legend.words
    view.set_schedules([book, pipelined])
    assert IDLE_STYLES["slot"].label in view.legend.words
