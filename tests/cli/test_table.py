"""The text Gantt: labels only where a task has its cells alone, never run together."""

from __future__ import annotations

from cli.table import seconds, text_gantt
from engine.scenario import Scenario
from engine.scheduler import simulate


def _row(schedule, name: str, width: int) -> str:
    line = next(x for x in text_gantt(schedule, width).splitlines() if x.startswith(name))
    return line[len(name) :].strip()


def test_adjacent_labels_never_touch() -> None:
    # 12 ops of 1 s on one load unit over 24 columns: 2 cells each. "1=" fits; "11" would
    # fill its cells exactly and read as one number with "12" beside it: blocks instead.
    schedule = simulate(Scenario.uniform_ops(12, 1.0, 0.0, 0.0))
    row = _row(schedule, "load unit", 14 + 24)
    assert row.startswith("1=2=3=") and row.endswith("9=" + "█" * 6)
    assert "1112" not in row


def test_crowded_cells_are_blocks() -> None:
    schedule = simulate(Scenario.uniform_ops(5000, 1.0, 1.0, 1.0))
    row = _row(schedule, "load unit", 80)
    assert set(row) == {"█"}


def test_large_times_print_in_full() -> None:
    assert seconds(1_000_002.0) == "1,000,002 s"
    assert seconds(1201.8000000000227) == "1201.8 s"
    assert seconds(0.5, "ms") == "0.5 ms"
