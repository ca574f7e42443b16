"""The JSON contract and the Chrome Trace Event writer."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import re

import pytest

from engine.analysis.derived import Derived
from engine.analysis.writers import to_json, to_trace, write_both_json
from engine.model.scenario import Scenario, load_preset
from engine.model.scheduler import simulate


def test_json_contract_fields() -> None:
    schedule = simulate(Scenario.uniform_ops(3))
    data = json.loads(to_json(schedule))
    assert {
        "policy",
        "source",
        "makespan",
        "ops",
        "buffers",
        "workers",
        "tasks",
        "utilization",
        "idle",
        "bottleneck",
    } <= data.keys()
    assert data["policy"] == "pipelined" and data["source"] == "simulated"
    assert data["makespan"] == 5 and data["ops"] == 3 and data["buffers"] == 0
    assert data["workers"] == {"load": 1, "compute": 1, "store": 1}
    assert data["tasks"][0] == {
        "op": 0,
        "stage": "read",
        "unit": "load",
        "worker": 0,
        "start": 0,
        "end": 1,
    }
    assert len(data["tasks"]) == 9
    assert data["utilization"] == {"load": 0.6, "compute": 0.6, "store": 0.6}


def test_json_idle_and_bottleneck_follow_the_contract() -> None:
    """ARCHITECTURE.md: "idle": [{"unit", "worker", "start", "end", "reason", "ops"}] and
    "bottleneck": {"resource", "period", "why"}; a worker's spans partition its idle time."""
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    data = json.loads(to_json(schedule))
    assert data["idle"][0] == {
        "unit": "load",
        "worker": 0,
        "start": 2,
        "end": 3,
        "reason": "slot",
        "ops": [0, 1],
    }
    assert [(s["unit"], s["start"], s["end"], s["reason"], s["ops"]) for s in data["idle"]] == [
        ("load", 2, 3, "slot", [0, 1]),
        ("load", 4, 6, "done", []),
        ("compute", 0, 1, "input", [0]),
        ("compute", 3, 4, "input", [2]),
        ("compute", 5, 6, "done", []),
        ("store", 0, 2, "input", [0]),
        ("store", 4, 5, "input", [2]),
    ]
    assert data["bottleneck"] == {
        "resource": "slots",
        "period": 1.5,
        "why": "buffer slots: each op holds one for 3 s and there are 2: one op every 1.5 s",
    }
    many = json.loads(to_json(simulate(load_preset("two-load-units"))))
    for unit, share in many["utilization"].items():
        k = many["workers"][unit]
        idle = sum(s["end"] - s["start"] for s in many["idle"] if s["unit"] == unit)
        assert idle == pytest.approx((1 - share) * many["makespan"] * k)
    assert {s["reason"] for s in many["idle"]} <= {"input", "slot", "done"}
    assert many["bottleneck"]["resource"] == "none"


def test_json_slot_holders_for_many_spans() -> None:
    """Holders are found a chunk of spans at a time; they must equal one-by-one answers."""
    schedule = simulate(Scenario.uniform_ops(2000, 1.0, 2.0, 3.0, buffers=3))
    data = json.loads(to_json(schedule))
    spans = Derived(schedule).idle_spans
    assert [s["ops"] for s in data["idle"]] == [list(spans.ops(i)) for i in range(len(spans))]
    assert sum(s["reason"] == "slot" for s in data["idle"]) > 1000


def test_both_json_has_speedup() -> None:
    book = Scenario.uniform_ops(3)
    text = io.StringIO()
    write_both_json(text.write, simulate(book, "sequential"), simulate(book, "pipelined"))
    data = json.loads(text.getvalue())
    assert data["sequential"]["makespan"] == 9
    assert data["pipelined"]["makespan"] == 5
    assert data["speedup"] == 1.8
    assert data["sequential"]["bottleneck"]["resource"] == "slots"
    assert data["pipelined"]["bottleneck"]["resource"] == "none"
    assert data["sequential"]["idle"][0]["reason"] == "slot"


def test_json_numbers_have_no_binary_noise() -> None:
    data = json.loads(to_json(simulate(load_preset("many-ops"))))
    assert data["makespan"] == 1201.8


def test_trace_is_valid_chrome_trace_with_one_thread_per_worker() -> None:
    book = load_preset("two-load-units")
    schedules = [simulate(book, "sequential"), simulate(book, "pipelined")]
    events = json.loads(to_trace(schedules))["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == sum(len(s) for s in schedules)
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e["ph"] == "M" and e["name"] == "thread_name"
    }
    assert names[(2, 1)] == "load unit 1" and names[(2, 2)] == "load unit 2"
    assert names[(2, 4)] == "store unit"
    processes = [e["args"]["name"] for e in events if e["name"] == "process_name"]
    assert processes == ["sequential (simulated)", "pipelined (simulated)"]
    first = next(e for e in complete if e["pid"] == 2)
    assert first["ts"] == 0 and first["dur"] == 2_000_000  # µs
    assert first["args"]["op"] == 0 and first["args"]["stage"] == "read"
    # No two events on one track overlap (Perfetto would push them to an overflow track).
    for pid, tid in names:
        track = sorted(
            (e["ts"], e["ts"] + e["dur"]) for e in complete if (e["pid"], e["tid"]) == (pid, tid)
        )
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(track))


def test_hostile_labels_are_escaped_in_json_and_traces_and_read_back_exactly() -> None:
    """JSON escapes C0 itself; C1 controls and bidi overrides are written \\uXXXX too (the
    writers keep ensure_ascii), so no terminal that shows the file obeys them."""
    hostile = "\x1b[31mRED\x1b]0;t\x07\x00\x9b\u202eevil\u2066x\u2069\n"
    schedule = dataclasses.replace(
        simulate(Scenario.uniform_ops(3)),
        label=hostile,
        unit_titles=(hostile, "b", "c"),
    )
    for text in (to_json(schedule), to_trace([schedule])):
        assert not re.search(
            "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text.replace("\n", "")
        )
    events = json.loads(to_trace([schedule]))["traceEvents"]
    names = [e["args"]["name"] for e in events if e["ph"] == "M" and "name" in e["args"]]
    assert f"{hostile} (simulated)" in names and any(hostile in name for name in names)
