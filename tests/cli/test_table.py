"""The text Gantt: labels only where a task has its cells alone, never run together."""

from __future__ import annotations

from cli.table import metrics_lines, seconds, text_gantt
from engine.model.scenario import Scenario, load_preset
from engine.model.scheduler import simulate


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
    assert seconds(1201.8000000000227) == "1,202 s"  # every digit, no binary noise
    assert seconds(0.5, "ms") == "500 µs"  # SI prefixes, also for measured runs in ms


def test_metrics_name_what_binds_and_list_the_waits() -> None:
    scenario = load_preset("double-buffering")
    lines = metrics_lines(simulate(scenario), scenario, width=100)
    assert lines[0] == "makespan     10 s"
    assert lines[2] == (
        "bottleneck   buffer slots: each op holds one for 3 s and there are 2: one op every 1.5 s"
    )
    assert lines[3] == "formula      10 s = 3 rounds × 3 s + 1 × 1 s ✓ agrees"
    assert lines[4].startswith("idle         load unit     2–3 s slot (ops 1 and 2) · ")
    assert all(len(line) <= 100 for line in lines)


def test_many_spans_are_summed_by_reason() -> None:
    scenario = load_preset("many-ops")
    lines = metrics_lines(simulate(scenario), scenario, width=100)
    idle = [line for line in lines if line.strip().startswith("store unit")]
    assert idle == ["             store unit    402 s input in 1,000 spans"]
    assert not any("overhead" in line for line in lines)  # rounding gaps are not overhead


def test_long_lines_wrap_under_their_label() -> None:
    scenario = load_preset("uneven-ops")
    lines = metrics_lines(simulate(scenario), scenario, width=60)
    assert all(len(line) <= 60 for line in lines)
    neck = lines.index(next(line for line in lines if line.startswith("bottleneck")))
    assert lines[neck + 1].startswith(" " * 13) and lines[neck + 1].strip()
