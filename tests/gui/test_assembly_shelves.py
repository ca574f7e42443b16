"""The assembly line of a pipeline shape's run (issue 28): one station per unit (named,
×k), one shelf per pool with its name, size and use, each slot with its op and what the op
does in the shape's words; no book shelf; a shape without pools draws no shelf."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from engine.model.schedule import Pool
from engine.model.shape import Shape, simulate_shape
from engine.model.shape_file import ShapedScenario, load_any_preset
from gui.assembly import AssemblyLineView
from gui.assembly_lane import LanePainter
from gui.assembly_parts import SLOT_MIN
from gui.colours import op_colour
from tests.gui.test_assembly import Painted, lone_view, painted, repaint, show

__all__ = ["lone_view", "painted"]  # (fixtures)


def runs(name: str, *policies: str) -> list:  # type: ignore[type-arg]
    scenario = load_any_preset(name)
    assert isinstance(scenario, ShapedScenario)
    return [scenario.simulate(policy) for policy in policies]


def test_ping_pong_at_twelve_seconds(lone_view: AssemblyLineView, painted: Painted) -> None:
    show(lone_view, runs("hopper-ping-pong", "pipelined"), 12.0)
    lone_view.resize(1500, 360)
    texts = repaint(lone_view, painted).strings()
    (lane,) = lone_view.layouts()
    assert lane.density.name == "roomy" and lane.memory is None
    assert [len(shelf.boxes) for shelf in lane.pools] == [4, 2]
    assert [s.title_text for s in lane.stations] == ["TMA", "tensor cores", "consumers × 2"]
    assert "smem stages · 4 slots · 4 in use · peak 4" in texts
    assert "consumer warpgroups · 2 slots · 2 in use · peak 2" in texts
    assert not any("shared memory" in t for t in texts)
    captions = [t for t in texts if "mma" in t or "epilogue" in t or t == "free"]
    # smem stages: slots hold tiles 9, 6, 7, 8 (a ring); consumer warpgroups: 5 and 6.
    assert captions[-6:] == [
        "9 · waits mma", "6 · mma", "7 · waits mma", "8 · waits mma", "5 · epilogue", "6 · mma",
    ]  # fmt: skip


def test_cooperative_has_one_consumer_slot(lone_view: AssemblyLineView, painted: Painted) -> None:
    show(lone_view, runs("hopper-cooperative", "pipelined"), 12.0)
    lone_view.resize(1500, 360)
    texts = repaint(lone_view, painted).strings()
    assert [len(shelf.boxes) for shelf in lone_view.layouts()[0].pools] == [4, 1]
    assert "smem stages · 4 slots · 4 in use · peak 4" in texts
    assert "consumer warpgroups · 1 slot · 1 in use · peak 1" in texts
    assert "4 · mma" in texts and texts.count("waits mma") + texts.count("5 · waits mma") >= 1


def test_a_shelf_per_pool_is_drawn_in_its_ops_colours(lone_view: AssemblyLineView) -> None:
    """Pixels: each held slot is outlined in its op's colour; free slots in no op's."""
    show(lone_view, runs("hopper-ping-pong", "pipelined"), 12.0)
    lone_view.resize(1500, 360)
    image = lone_view.grab().toImage()
    (lane,) = lone_view.layouts()
    (rect,) = lone_view.lane_rects()
    expected = [[8, 5, 6, 7], [4, 5]]  # ops (0-based) in each pool's slots
    for shelf, ops in zip(lane.pools, expected, strict=True):
        for box, op in zip(shelf.boxes, ops, strict=True):
            where = LanePainter.to_widget(lane, rect, box)
            assert where.width() >= SLOT_MIN
            assert _has_colour(image, where, op_colour(op)), (op, where)


def test_the_sequential_run_of_a_shape_has_one_shelf(
    lone_view: AssemblyLineView, painted: Painted
) -> None:
    show(lone_view, runs("hopper-ping-pong", "sequential", "pipelined"), 12.0)
    lone_view.resize(1500, 700)
    texts = repaint(lone_view, painted).strings()
    sequential, pipelined = lone_view.layouts()
    assert len(sequential.pools) == 1 and len(pipelined.pools) == 2
    assert "one op at a time · 1 slot · 1 in use · peak 1" in texts
    assert "3 · epilogue" in texts


def test_a_shape_without_pools_draws_no_shelf(
    lone_view: AssemblyLineView, painted: Painted
) -> None:
    show(lone_view, runs("pipeline-parallel", "pipelined"), 2.5)
    lone_view.resize(1500, 360)
    texts = repaint(lone_view, painted).strings()
    (lane,) = lone_view.layouts()
    assert lane.pools == () and lane.memory is None
    assert [s.title_text for s in lane.stations] == ["GPU 1", "GPU 2", "GPU 3", "GPU 4"]
    assert not any("memory ·" in t or "in use" in t for t in texts)


SIZES = [(934, 342), (1574, 501), (3200, 1100), (700, 300), (520, 290)]


@pytest.mark.parametrize("name", ["hopper-ping-pong", "host-pipeline", "cp-async-ring"])
def test_no_text_of_a_shape_lane_overlaps_another(
    lone_view: AssemblyLineView, painted: Painted, name: str
) -> None:
    schedules = runs(name, "sequential", "pipelined")
    show(lone_view, schedules, 0.0)
    lone_view.setMinimumSize(0, 0)
    end = max(s.makespan for s in schedules)
    for (width, height), share in itertools.product(SIZES, (0.1, 0.37, 0.5)):
        lone_view.resize(width, height)
        lone_view._clock.seek(end * share)
        texts = repaint(lone_view, painted).texts
        where = f"{name} at {width}×{height}, t = {end * share:g}"
        for (a, ra), (b, rb) in itertools.combinations(texts, 2):
            overlap = ra.intersected(rb)
            assert overlap.width() < 0.5 or overlap.height() < 0.5, f"{a!r} over {b!r}: {where}"
        for lane in lone_view.layouts():
            for one, other in itertools.combinations(lane.pools, 2):
                assert not one.card.intersects(other.card), where


def _has_colour(image, rect: QRectF, colour: QColor) -> bool:  # type: ignore[no-untyped-def]
    ratio = image.devicePixelRatio()
    for x in range(int(rect.left() * ratio), int(rect.right() * ratio)):
        for y in range(int(rect.top() * ratio), int(rect.bottom() * ratio)):
            pixel = image.pixelColor(x, y)
            if (
                abs(pixel.red() - colour.red())
                + abs(pixel.green() - colour.green())
                + abs(pixel.blue() - colour.blue())
                < 30
            ):
                return True
    return False


def test_an_unlimited_pool_and_long_names(lone_view: AssemblyLineView, painted: Painted) -> None:
    """Size 0 reads "unlimited"; a pool's and a stage's long names are cut to fit, and a
    small pool beside a large one still draws all its slots."""
    shape = Shape(
        ("fetch", "a very long stage name indeed", "store"),
        (0, 1, 2),
        ("DMA", "SMs", "DMA out"),
        (1, 3, 1),
        (Pool("an unlimited pool with a long name\n", 0, 0, 1), Pool("ring", 3, 1, 2)),
    )
    durations = np.random.default_rng(2).uniform(0.5, 2.0, size=(40, 3))
    schedule = simulate_shape(shape, durations)
    show(lone_view, [schedule], schedule.makespan * 0.4)
    for width, height in ((1500, 360), (900, 260)):
        lone_view.resize(width, height)
        texts = repaint(lone_view, painted).texts
        strings = [t for t, _ in texts]
        assert any("· unlimited ·" in t for t in strings) or width < 1000
        assert not any("\n" in t for t in strings)
        (lane,) = lone_view.layouts()
        assert len(lane.pools[1].boxes) == 3, width
        for (a, ra), (b, rb) in itertools.combinations(texts, 2):
            overlap = ra.intersected(rb)
            assert overlap.width() < 0.5 or overlap.height() < 0.5, f"{a!r} over {b!r}"
