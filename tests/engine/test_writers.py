"""The JSON contract and the Chrome Trace Event writer."""

from __future__ import annotations

import itertools
import json

from engine.scenario import Scenario, load_preset
from engine.scheduler import simulate
from engine.writers import both_to_json, to_json, to_trace


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


def test_both_json_has_speedup() -> None:
    book = Scenario.uniform_ops(3)
    data = json.loads(both_to_json(simulate(book, "sequential"), simulate(book, "pipelined")))
    assert data["sequential"]["makespan"] == 9
    assert data["pipelined"]["makespan"] == 5
    assert data["speedup"] == 1.8


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
