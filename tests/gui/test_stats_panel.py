"""The Stats panel in a dock taller than its rows: the rows keep their natural height at
the top (one policy's stats spread over a tall dock with utilization bars 80 px thick)."""

from __future__ import annotations

from engine.scenario import load_preset
from engine.scheduler import simulate
from gui.stats_panel import StatsPanel, UtilizationBar


def test_few_rows_keep_their_height_in_a_tall_panel(qtbot) -> None:
    panel = StatsPanel()
    qtbot.addWidget(panel)
    panel.set_schedules([simulate(load_preset("book"), "pipelined")])
    panel.resize(360, 900)
    panel.show()
    qtbot.waitExposed(panel)
    bars = panel.findChildren(UtilizationBar)
    assert len(bars) == 3  # load, compute, store
    for bar in bars:
        assert bar.height() == bar.sizeHint().height()
    lowest = max(bar.mapTo(panel, bar.rect().bottomLeft()).y() for bar in bars)
    assert lowest < panel.sizeHint().height() < 450  # packed at the top, the rest empty
    assert panel.value_of("pipelined", "makespan") == "5 s"
