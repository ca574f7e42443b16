"""Imported profiles (gpu.profile): the figures on real public profiles against a plain
computation written here (sorted sweeps, no numpy), the traps of each format, PipeLab's own
trace read back, and every bad file one line."""

from __future__ import annotations

import gzip
import itertools
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engine.analysis.writers import to_trace
from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from gpu.profile import load_profile
from gpu.profile.chains import find_chains, most_at_once, what_if
from gpu.profile.figures import PARTS, device_figures
from gpu.profile.idle import analysed

DATA = Path(__file__).resolve().parents[1] / "data" / "profiles"
HTA = DATA / "hta"
NSYS = DATA / "nsys-ai"

Interval = tuple[float, float]

# -- the plain computation ---------------------------------------------------------------


def plain_union_length(intervals: Iterable[Interval]) -> float:
    """Length of the union of intervals: sort, walk, join what overlaps."""
    total, reach_start, reach_end = 0.0, None, None
    for start, end in sorted(intervals):
        if reach_end is None or start > reach_end:
            if reach_end is not None:
                total += reach_end - reach_start  # type: ignore[operator]
            reach_start, reach_end = start, end
        else:
            reach_end = max(reach_end, end)
    if reach_end is not None:
        total += reach_end - reach_start  # type: ignore[operator]
    return total


def plain_breakdown(by_unit: dict[str, list[Interval]]) -> dict[str, float]:
    """The makespan's four parts by a sweep over every start and end: for each piece
    between two neighbouring times, whether compute and whether a copy runs."""
    points = []
    for unit, intervals in by_unit.items():
        kind = "compute" if unit == "compute" else "copy"
        for start, end in intervals:
            points += [(start, 1, kind), (end, -1, kind)]
    points.sort()
    running = {"compute": 0, "copy": 0}
    parts = dict.fromkeys(PARTS, 0.0)
    for (time, change, kind), (next_time, *_) in itertools.pairwise(points):
        running[kind] += change
        piece = next_time - time
        if running["compute"] and running["copy"]:
            parts["overlapped"] += piece
        elif running["compute"]:
            parts["compute_only"] += piece
        elif running["copy"]:
            parts["copy_only"] += piece
        else:
            parts["idle"] += piece
    return parts


KINETO_UNITS = {"kernel": "compute", "gpu_memset": "compute"}
KINETO_COPIES = {"HtoD": "load", "DtoH": "store", "DtoD": "compute"}


def plain_kineto(path: Path, device: int) -> dict[str, list[Interval]]:
    """One device's intervals by unit, read with json and nothing else (seconds)."""
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    by_unit: dict[str, list[Interval]] = {"load": [], "compute": [], "store": []}
    first = min(e["ts"] for e in events if "ts" in e)  # (µs since 1970: kept exact)
    for event in events:
        if event.get("ph") != "X" or event.get("args", {}).get("device") != device:
            continue
        category = event.get("cat")
        if category == "gpu_memcpy":
            unit = KINETO_COPIES[event["name"].split()[1]]
        elif category in KINETO_UNITS:
            unit = KINETO_UNITS[category]
        else:
            continue
        start = event["ts"] - first
        by_unit[unit].append((start * 1e-6, (start + event["dur"]) * 1e-6))
    return by_unit


NSYS_COPIES = {1: "load", 2: "store", 8: "compute"}


def plain_nsys(path: Path, device: int, folder: Path) -> dict[str, list[Interval]]:
    """One device's intervals by unit, read with sqlite3 and nothing else (seconds)."""
    plain = folder / "plain.sqlite"
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    db = sqlite3.connect(plain)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    by_unit: dict[str, list[Interval]] = {"load": [], "compute": [], "store": []}
    first = min(
        db.execute(f"SELECT min(start) FROM {t}").fetchone()[0]
        for t in (
            "CUPTI_ACTIVITY_KIND_KERNEL",
            "CUPTI_ACTIVITY_KIND_MEMSET",
            "CUPTI_ACTIVITY_KIND_MEMCPY",
        )
        if t in tables
    )
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table in tables:
            rows = db.execute(f"SELECT start, end FROM {table} WHERE deviceId = ?", (device,))
            by_unit["compute"] += [((s - first) * 1e-9, (e - first) * 1e-9) for s, e in rows]
    rows = db.execute(
        "SELECT start, end, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE deviceId = ?",
        (device,),
    )
    for start, end, kind in rows:
        by_unit[NSYS_COPIES[kind]].append(((start - first) * 1e-9, (end - first) * 1e-9))
    db.close()
    return by_unit


def assert_figures_match(path: Path, device: int, by_unit: dict[str, list[Interval]]) -> None:
    run = load_profile(path).device(device)
    figures = device_figures(run.schedule)
    every = [i for intervals in by_unit.values() for i in intervals]
    makespan = max(e for _, e in every) - min(s for s, _ in every)
    scale = max(makespan, 1e-12)
    assert figures.makespan == pytest.approx(makespan, rel=1e-9, abs=1e-12 * scale)
    for unit, intervals in by_unit.items():
        assert figures.busy[unit] == pytest.approx(plain_union_length(intervals), abs=1e-9 * scale)
    assert figures.busy["any"] == pytest.approx(plain_union_length(every), abs=1e-9 * scale)
    expected = plain_breakdown(by_unit)
    for part in PARTS:
        assert figures.breakdown[part] == pytest.approx(expected[part], abs=1e-9 * scale), part
    assert sum(figures.breakdown.values()) == pytest.approx(figures.makespan, abs=1e-9 * scale)
    busiest = max(figures.busy[u] for u in ("load", "compute", "store"))
    assert figures.headroom == pytest.approx(makespan - busiest, abs=1e-9 * scale)


# -- real public profiles ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "device"),
    [
        ("sampled_rank-1.json.gz", 1),
        ("simple_add.json.gz", 0),
        ("event_sync_multi_stream.json.gz", 0),
    ],
)
def test_pytorch_traces_match_a_plain_computation(name: str, device: int) -> None:
    assert_figures_match(HTA / name, device, plain_kineto(HTA / name, device))


@pytest.mark.parametrize(
    ("name", "device"),
    [("mock.sqlite.gz", 0), ("h100_2gpu_1s.sqlite.gz", 0), ("h100_2gpu_1s.sqlite.gz", 1)],
)
def test_nsys_exports_match_a_plain_computation(name: str, device: int, tmp_path: Path) -> None:
    assert_figures_match(NSYS / name, device, plain_nsys(NSYS / name, device, tmp_path))


def test_a_real_trace_lanes_are_its_streams_per_unit() -> None:
    profile = load_profile(HTA / "sampled_rank-1.json.gz")
    assert profile.format == "kineto"
    (run,) = profile.devices
    assert run.device == 1
    load, compute, store = run.streams
    assert load == (23, 25) and store == (23,) and compute == (7, 23, 84, 203)
    # stream 25 only copies in; stream 7's device-to-device copies are compute
    titles = [run.schedule.row_label(r) for r in range(run.schedule.n_workers)]
    assert "load · stream 25" in titles
    names = {run.schedule.task_title(t) for t in range(len(run.schedule))}
    assert "Memcpy DtoD (Device -> Device)" in names


def test_two_devices_come_in_device_order_and_one_can_be_picked() -> None:
    profile = load_profile(NSYS / "h100_2gpu_1s.sqlite.gz")
    assert profile.format == "nsys-sqlite"
    assert [run.device for run in profile.devices] == [0, 1]
    assert profile.device(1).device == 1
    with pytest.raises(PipeLabError, match="--device 5: the profile has device 0, 1"):
        profile.device(5)


# -- traps, in small traces written here ---------------------------------------------------


def kineto_file(folder: Path, events: list[dict[str, object]], name: str = "t.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def event(cat: str, name: str, ts: object, dur: float, **where: object) -> dict[str, object]:
    pid, tid = where.pop("pid", 0), where.pop("tid", 0)
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid,
            "args": where}  # fmt: skip


def test_fractional_microseconds_and_device_from_args_not_pid(tmp_path: Path) -> None:
    path = kineto_file(
        tmp_path,
        [
            event("kernel", "k", 10.25, 0.5, pid=99, tid=1, device=3, stream=7),
            event(
                "gpu_memcpy",
                "Memcpy HtoD (Pinned -> Device)",
                10.0,
                0.125,
                pid=99,
                device=3,
                stream=8,
            ),
        ],
    )
    (run,) = load_profile(path).devices
    assert run.device == 3 and run.streams == ((8,), (7,), ())
    assert run.origin == pytest.approx(10e-6)
    assert device_figures(run.schedule).makespan == pytest.approx(0.75e-6, rel=1e-12)
    assert device_figures(run.schedule).busy["load"] == pytest.approx(0.125e-6, rel=1e-12)


def test_annotations_cpu_ops_and_runtime_calls_on_gpu_rows_are_not_activity(tmp_path: Path) -> None:
    path = kineto_file(
        tmp_path,
        [
            event("gpu_user_annotation", "step", 0, 100, device=0, stream=7),
            event("cpu_op", "aten::mm", 0, 100, device=0, stream=7),
            event("cuda_runtime", "cudaLaunchKernel", 0, 3),
            {"ph": "f", "cat": "ac2g", "name": "flow", "ts": 1, "pid": 0, "tid": 7},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
            event("Kernel", "old_style", 40, 10, device=0, stream=7),
        ],
    )
    (run,) = load_profile(path).devices
    assert len(run.schedule) == 1 and device_figures(run.schedule).makespan == pytest.approx(1e-5)


def test_kernels_overlapping_on_two_streams_are_busy_once(tmp_path: Path) -> None:
    path = kineto_file(
        tmp_path,
        [
            event("kernel", "a", 0, 10, device=0, stream=1),
            event("kernel", "b", 5, 10, device=0, stream=2),
            event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 12, 8, device=0, stream=3),
        ],
    )
    (run,) = load_profile(path).devices
    figures = device_figures(run.schedule)
    assert figures.busy["compute"] == pytest.approx(15e-6)  # not 20: the union
    assert figures.breakdown["overlapped"] == pytest.approx(3e-6)
    assert figures.breakdown["copy_only"] == pytest.approx(5e-6)
    assert run.schedule.workers == (1, 2, 1)


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("Memcpy HtoD (Pageable -> Device)", "load"),
        ("Memcpy HtoD (Pinned -> Device)", "load"),
        ("Memcpy HtoA", "load"),
        ("Memcpy DtoH (Device -> Pinned)", "store"),
        ("Memcpy AtoH", "store"),
        ("Memcpy DtoD (Device -> Device)", "compute"),
        ("Memcpy AtoA", "compute"),
        ("Memcpy AtoD", "compute"),
        ("Memcpy DtoA", "compute"),
        ("Memcpy PtoP (Device -> Device)", "load"),
        ("Memset (Device)", "compute"),
    ],
)
def test_every_copy_kind_goes_to_its_unit(tmp_path: Path, name: str, unit: str) -> None:
    category = "gpu_memset" if name.startswith("Memset") else "gpu_memcpy"
    path = kineto_file(tmp_path, [event(category, name, 0, 1, device=0, stream=4)])
    (run,) = load_profile(path).devices
    assert run.schedule.unit_names[int(run.schedule.unit[0])] == unit


def test_a_peer_copy_leaving_the_device_is_a_store(tmp_path: Path) -> None:
    copy = event("gpu_memcpy", "Memcpy PtoP (Device -> Device)", 0, 1, device=0, stream=4)
    copy["args"]["dst device"] = 1  # type: ignore[index]
    (run,) = load_profile(kineto_file(tmp_path, [copy])).devices
    assert run.schedule.unit_names[int(run.schedule.unit[0])] == "store"


def test_nsys_copy_kinds_and_unified_memory(tmp_path: Path) -> None:
    path = tmp_path / "kinds.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, copyKind)")
    kinds = {
        1: "load",
        2: "store",
        3: "load",
        4: "store",
        8: "compute",
        11: "load",
        12: "store",
        13: "compute",
    }
    db.executemany(
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, ?, ?)",
        [(i * 100, i * 100 + 50, kind, kind) for i, kind in enumerate(kinds)],
    )
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5000, 5100, 0, 9, 9)")  # HtoH
    db.commit()
    db.close()
    profile = load_profile(path)
    assert profile.left_out == 1
    (run,) = profile.devices
    schedule = run.schedule
    got = {
        run.streams[u][w]: schedule.unit_names[u]
        for u, w in zip(schedule.unit.tolist(), schedule.worker.tolist(), strict=True)
    }
    assert got == kinds  # (stream = kind here)


#: An nsys cuda_gpu_trace CSV as nsys prints it (lines before the header), written here.
NSYS_CSV = (DATA / "cuda_gpu_trace.csv").read_text()


def test_nsys_csv_skips_what_nsys_prints_before_the_header(tmp_path: Path) -> None:
    path = tmp_path / "report.csv"
    path.write_text(NSYS_CSV)
    profile = load_profile(path)
    assert profile.format == "nsys-csv"
    assert [run.device for run in profile.devices] == [0, 1]
    figures = device_figures(profile.device(0).schedule)
    assert figures.makespan == pytest.approx(1550e-9)
    assert figures.busy == pytest.approx(
        {"load": 500e-9, "compute": 1000e-9, "store": 250e-9, "any": 1450e-9}
    )
    assert figures.breakdown == pytest.approx(
        {"compute_only": 700e-9, "overlapped": 300e-9, "copy_only": 450e-9, "idle": 100e-9}
    )


def test_a_compute_lane_waiting_on_a_copy_names_it(tmp_path: Path) -> None:
    path = tmp_path / "report.csv"
    path.write_text(NSYS_CSV)
    _, idle = analysed(load_profile(path).device(0))
    schedule = load_profile(path).device(0).schedule
    compute_row = int(schedule.worker_offsets[1])
    first = np.flatnonzero(idle.row == compute_row)[0]
    assert idle.reason[first] == 0 and idle.end[first] == pytest.approx(200e-9)  # input
    assert schedule.task_title(int(idle.task[first])) == "[CUDA memcpy Host-to-Device]"


def test_gzip_of_any_format_is_read(tmp_path: Path) -> None:
    path = tmp_path / "report.csv.gz"
    path.write_bytes(gzip.compress(NSYS_CSV.encode()))
    assert load_profile(path).format == "nsys-csv"


# -- PipeLab's own trace -------------------------------------------------------------------


@pytest.mark.parametrize("buffers", [0, 2])
def test_pipelab_trace_reads_back_to_the_same_schedule(tmp_path: Path, buffers: int) -> None:
    scenario = Scenario.uniform_ops(7, 0.5, 1.25, 0.75, buffers=buffers, workers=(1, 2, 1))
    written = simulate(scenario, "pipelined").with_meta(label="seven ops")
    path = tmp_path / "run.json"
    path.write_text(to_trace([written]))
    profile = load_profile(path)
    assert profile.format == "pipelab-trace"
    back = profile.devices[0].schedule
    for column in ("op", "stage", "unit", "worker"):
        assert np.array_equal(getattr(back, column), getattr(written, column)), column
    assert np.allclose(back.start, written.start, rtol=1e-12, atol=0)
    assert np.allclose(back.end, written.end, rtol=1e-12, atol=0)
    for meta in ("workers", "n_ops", "policy", "source", "time_unit", "buffers", "label",
                 "unit_names", "stage_names"):  # fmt: skip
        assert getattr(back, meta) == getattr(written, meta), meta


# -- bad files: one line, exit 2 -------------------------------------------------------------


def sqlite_without_tables(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text)")
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.write_bytes(b""), "the file is empty"),
        (lambda p: p.write_text('{"traceEvents": [1, 2'), "not valid JSON (line 1"),
        (
            lambda p: p.write_bytes(gzip.compress(b"{}" * 1000)[:20]),
            "a gzip file that cannot be read",
        ),
        (lambda p: p.write_bytes(b"\x00\x01\x02binary\xff"), "not a profile PipeLab reads"),
        (lambda p: p.write_text("just some words\n"), "not a profile PipeLab reads"),
        (lambda p: p.write_text('{"traceEvents": []}'), "no GPU activity"),
        (lambda p: p.write_text('{"hello": 1}'), "no traceEvents list"),
        (sqlite_without_tables, "an SQLite file without Nsight Systems'"),
        (
            lambda p: p.write_text(json.dumps({"traceEvents": [event("kernel", "k", "soon", 1)]})),
            "event 1: could not convert",
        ),
        (
            lambda p: p.write_text(json.dumps({"traceEvents": [event("kernel", "k", 5, -3)]})),
            "'k' ends before it starts",
        ),
    ],
)
def test_a_bad_file_is_one_line_and_exit_2(
    tmp_path: Path, make: object, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad\nname.json"
    make(path)  # type: ignore[operator]
    assert main(["import", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and says in captured.err, captured.err
    assert "bad\\nname.json" in captured.err


def test_a_real_trace_without_gpu_activity_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(HTA / "no_gpu_activity.json.gz")]) == 2
    assert "no GPU activity" in capsys.readouterr().err


def test_a_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path / "nope.json")]) == 2
    assert "cannot read it" in capsys.readouterr().err


# -- the command's outputs -----------------------------------------------------------------


def test_json_has_the_contract_per_device(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(NSYS / "h100_2gpu_1s.sqlite.gz"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "nsys-sqlite" and [d["device"] for d in data["devices"]] == [0, 1]
    device = data["devices"][0]
    assert set(device) >= {
        "makespan",
        "busy",
        "breakdown",
        "headroom",
        "workers",
        "tasks",
        "idle",
        "bottleneck",
    }
    assert sum(device["breakdown"].values()) == pytest.approx(device["makespan"], rel=1e-9)
    task = device["tasks"][0]
    assert set(task) == {"name", "unit", "stream", "start", "end"}
    assert {span["reason"] for span in device["idle"]} <= {"input", "host", "other", "done"}


def test_device_flag_keeps_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["import", str(NSYS / "h100_2gpu_1s.sqlite.gz"), "--format", "json", "--device", "1"])
        == 0
    )
    assert [d["device"] for d in json.loads(capsys.readouterr().out)["devices"]] == [1]


def test_table_names_the_lanes_the_breakdown_and_the_bottleneck(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["import", str(HTA / "sampled_rank-1.json.gz")]) == 0
    out = capsys.readouterr().out
    assert "device 1" in out and "streams 23, 25" in out
    assert "copies hidden under compute" in out and "bottleneck   the compute unit" in out


def test_trace_out_reads_back_as_the_same_lanes(tmp_path: Path) -> None:
    out = tmp_path / "lanes.json"
    assert (
        main(["import", str(HTA / "simple_add.json.gz"), "--format", "trace", "--out", str(out)])
        == 0
    )
    original = load_profile(HTA / "simple_add.json.gz").devices[0].schedule
    back = load_profile(out).devices[0].schedule
    assert len(back) == len(original)
    assert device_figures(back).busy == pytest.approx(device_figures(original).busy, rel=1e-9)
    events = json.loads(out.read_text())["traceEvents"]
    assert any(e.get("name") == "Memcpy HtoD (Pageable -> Device)" for e in events)


# -- the what-if ------------------------------------------------------------------------------


def chained_trace(folder: Path, streams: int, chains: int, gap: float = 3.0) -> Path:
    """``chains`` copy-in → kernel → copy-out chains one after another on each of
    ``streams`` streams (staggered by 5 µs): 10, 20 and 5 µs."""
    events = []
    for index in range(streams):
        clock = 5.0 * index
        for _ in range(chains):
            for cat, name, length in (
                ("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 10.0),
                ("kernel", "k", 20.0),
                ("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 5.0),
            ):
                events.append(event(cat, name, clock, length, device=0, stream=index + 7))
                clock += length
            clock += gap
    return kineto_file(folder, events)


def test_chains_become_ops_of_a_pipeline_beside_the_measured_run(tmp_path: Path) -> None:
    (run,) = load_profile(chained_trace(tmp_path, streams=3, chains=4)).devices
    figures, _ = analysed(run)
    found = what_if(run, figures)
    assert found.chains == 12 and found.streams == 3
    pipelined = found.pipelined
    assert pipelined is not None and pipelined.n_ops == 12 and pipelined.buffers == 3
    assert np.allclose(pipelined.op_ends - pipelined.op_starts, [10e-6, 20e-6, 5e-6])
    # the workers are what the trace ran at once: the three streams' kernels overlap
    assert pipelined.workers == (most_at_once(run.schedule, 0), 3, most_at_once(run.schedule, 2))
    assert found.measured == pytest.approx(figures.makespan)
    assert found.bound == pytest.approx(max(figures.busy[u] for u in ("load", "compute", "store")))


def test_one_stream_of_chains_is_a_sequential_run_and_the_pipeline_wins(tmp_path: Path) -> None:
    (run,) = load_profile(chained_trace(tmp_path, streams=1, chains=5, gap=0.0)).devices
    figures, _ = analysed(run)
    found = what_if(run, figures)
    assert found.chains == 5 and found.streams == 1
    assert found.measured == pytest.approx(5 * 35e-6)
    assert found.pipelined is not None
    assert found.pipelined.makespan == pytest.approx(5 * 35e-6)  # one slot: the same order
    assert found.saving == pytest.approx(0.0, abs=1e-9)


def test_chains_of_sub_microsecond_activities_are_simulated(tmp_path: Path) -> None:
    """The engine takes durations of at least 1e-6 of its unit; an imported trace's copies
    and memsets run for less than a microsecond (here 0.5 µs, and one of 0.002 µs): the
    what-if is simulated in a finer unit and comes back in seconds, not as an error."""
    events = []
    clock = 0.0
    for index in range(4):
        for cat, name, length in (
            ("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0.5 if index else 0.002),
            ("kernel", "k", 2.0),
            ("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0.5),
        ):
            events.append(event(cat, name, clock, length, device=0, stream=7))
            clock += length
    (run,) = load_profile(kineto_file(tmp_path, events)).devices
    figures, _ = analysed(run)
    found = what_if(run, figures)
    assert found.pipelined is not None and found.pipelined.time_unit == run.schedule.time_unit
    lengths = found.pipelined.op_ends - found.pipelined.op_starts
    assert np.allclose(lengths[1:], [0.5e-6, 2e-6, 0.5e-6], rtol=1e-9, atol=0)
    assert lengths[0, 0] == pytest.approx(0.002e-6, rel=1e-6)
    assert found.pipelined.makespan == pytest.approx(clock * 1e-6, rel=1e-9)  # one stream


def test_without_chains_only_the_bound_applies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(HTA / "sampled_rank-1.json.gz"), "--format", "json"]) == 0
    what = json.loads(capsys.readouterr().out)["devices"][0]["what_if"]
    assert what["chains"] < 2 and "pipelined" not in what
    assert main(["import", str(HTA / "sampled_rank-1.json.gz")]) == 0
    assert "only the bound applies, 580 ms" in capsys.readouterr().out


def test_a_broken_order_is_no_chain(tmp_path: Path) -> None:
    events = [
        event("kernel", "k", 0, 5, device=0, stream=1),  # a kernel before any copy in
        event("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 5, 5, device=0, stream=1),
        event("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 10, 5, device=0, stream=1),
        event(
            "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 15, 5, device=0, stream=1
        ),  # no kernel
    ]
    (run,) = load_profile(kineto_file(tmp_path, events)).devices
    assert find_chains(run) == []


# -- export --profile ---------------------------------------------------------------------------


def test_export_draws_the_lanes_and_the_what_if_beside(tmp_path: Path) -> None:
    pytest.importorskip(
        "PySide6", reason="the figure is drawn by the app (the GPU machine has no Qt)"
    )
    out = tmp_path / "profile.svg"
    assert main(["export", "--profile", str(chained_trace(tmp_path, 3, 4)), "--out", str(out)]) == 0
    text = out.read_text()
    assert "compute · stream 8" in text and "a pipeline of the same work (3 slots)" in text


def test_export_of_a_profile_as_a_trace_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "lanes.json"
    source = NSYS / "h100_2gpu_1s.sqlite.gz"
    assert main(["export", "--profile", str(source), "--device", "1", "--out", str(out)]) == 0
    back = load_profile(out)
    assert [len(run.schedule) for run in back.devices] == [
        len(load_profile(source).device(1).schedule)
    ]


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--preset", "book"], "leave out --preset"),
        (["--read", "2", "--buffers", "3"], "leave out --read, --buffers"),
    ],
)
def test_export_of_a_profile_refuses_scenario_flags(
    tmp_path: Path, flags: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.png"
    assert (
        main(["export", "--profile", str(HTA / "simple_add.json.gz"), *flags, "--out", str(out)])
        == 2
    )
    assert says in capsys.readouterr().err and not out.exists()


def test_two_devices_are_not_compared_as_a_before_and_after() -> None:
    from engine.analysis.stats import comparison

    devices = load_profile(DATA / "nsys-ai" / "h100_2gpu_1s.sqlite.gz").devices
    assert len(devices) == 2
    assert comparison([run.schedule for run in devices]) is None
    pytest.importorskip("PySide6", reason="the figure's caption is laid out with Qt's fonts")
    from gui.figure.layout import caption_text

    assert caption_text([run.schedule for run in devices]) == ""  # no "device 0 → device 1"
