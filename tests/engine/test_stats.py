"""The one stats builder (engine/analysis/stats.py) that the app's panel and the table both show."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis import metrics
from engine.analysis.derived import Derived
from engine.analysis.stats import row_idle_text, schedule_stats
from engine.base.text import op_list, op_numbers, span_text, time_text
from engine.model.scenario import Scenario, load_preset
from engine.model.scheduler import simulate


def _values(stats) -> dict[str, str]:
    return {line.label: line.value for line in stats.lines}


def test_two_slots_show_what_binds_with_numbers() -> None:
    scenario = Scenario.uniform_ops(3, buffers=2)
    stats = schedule_stats(Derived(simulate(scenario)), scenario)
    values = _values(stats)
    assert values["bottleneck"] == (
        "buffer slots: each op holds one for 3 s and there are 2: one op every 1.5 s"
    )
    assert values["formula"] == "6 s = 2 rounds × 3 s ✓ agrees"
    assert values["idle"] == "5 s for input · 1 s for a slot · 3 s done"
    how = {line.label: line.how for line in stats.lines}["bottleneck"]
    assert "(read + compute + write) / slots = 1.5 s" in how
    assert [use.idle for use in stats.workers] == [
        "2–3 s slot (ops 1 and 2) · 4–6 s done",
        "0–1 s input (op 1) · 3–4 s input (op 3) · 5–6 s done",
        "0–2 s input (op 1) · 4–5 s input (op 3)",
    ]
    assert "Idle: 2–3 s slot (ops 1 and 2)" in stats.workers[0].how


def test_every_preset_has_the_same_lines_whatever_the_numbers() -> None:
    """The panel updates in place when only numbers change: the labels must not depend on
    whether a closed form exists or which resource binds."""
    for name in ("book", "double-buffering", "uneven-ops", "two-load-units"):
        scenario = load_preset(name)
        labels = [
            line.label for line in schedule_stats(Derived(simulate(scenario)), scenario).lines
        ]
        assert labels == ["makespan", "bottleneck", "formula", "idle"], name


def test_measured_runs_get_no_formula() -> None:
    model = simulate(load_preset("book"))
    measured = replace(model, source="measured", grant=None, label="hardware")
    values = _values(schedule_stats(Derived(measured)))
    assert "formula" not in values and values["bottleneck"].startswith("none")


def test_compact_words() -> None:
    assert op_list([0, 1]) == "ops 1 and 2" and op_list([4]) == "op 5"
    assert op_numbers([0, 1, 2, 3, 6]) == "1–4 and 7"
    assert time_text(1_000_002.0) == "1,000,002 s" and span_text(2.0, 3.5) == "2–3.5 s"
    schedule = simulate(Scenario.uniform_ops(50, 1.0, 2.0, 1.0))
    assert row_idle_text(Derived(schedule), 1) == "0–1 s input (op 1) · 101–102 s done"
    assert (
        row_idle_text(Derived(schedule), 2) == "52 s input in 50 spans"
    )  # more than 4 spans: summed


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 1e-6]),
            st.floats(min_value=1e-6, max_value=1e9, allow_nan=False, allow_infinity=False),
        ),
        max_size=60,
    )
)
def test_the_median_positive_duration_is_numpys(values: list[float]) -> None:
    durations = np.array(values, dtype=np.float64)
    positive = durations[durations > 0]
    expected = float(np.median(positive)) if len(positive) else 1.0
    assert metrics.median_positive_in_place(durations.copy()) == expected
