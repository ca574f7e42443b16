"""An imported profile drawn by the app's figure code: streams for rows, kernel names on the
bars and on hover, one colour per name, the trace's own wait reasons hatched and in the
legend, and rows per op refused (an activity is no op)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from engine.analysis.derived import Derived
from engine.analysis.view_model import describe_task
from engine.base.errors import PipeLabError
from gpu.profile import load_profile
from gui.export import export
from gui.figure.kinds import kind_of
from gui.figure.rows import describe_wait, idle_spans, reasons_present

SVG = "{http://www.w3.org/2000/svg}"


def chained(folder: Path) -> Path:
    """Two streams, each copy in → a named kernel → copy out, twice; one kernel waits for
    the other stream's copy, and the GPU idles 10 µs between the rounds."""
    events = []
    for stream, offset in ((7, 0.0), (8, 5.0)):
        clock = offset
        for kernel in ("gemm_tile_kernel", "softmax_kernel"):
            for cat, name, length in (
                ("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 10.0),
                ("kernel", kernel, 20.0),
                ("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 5.0),
            ):
                where = {"device": 0, "stream": stream}
                events.append({"ph": "X", "cat": cat, "name": name, "ts": clock, "dur": length,
                               "pid": 0, "tid": stream, "args": where})  # fmt: skip
                clock += length
            clock += 10.0
    path = folder / "trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def test_the_figure_names_streams_kernels_and_the_traces_own_waits(tmp_path: Path) -> None:
    (run,) = load_profile(chained(tmp_path)).devices
    out = tmp_path / "profile.svg"
    export([run.schedule], out, title="imported")
    texts = [t.text or "" for t in ElementTree.parse(out).iter(f"{SVG}text")]
    assert "compute · stream 8" in texts and "load · stream 7" in texts
    assert any(t.startswith("gemm_tile_kernel") for t in texts)  # its name on the bar
    assert not any(t.startswith("op ") for t in texts)
    assert any("12 activities" in t for t in texts)
    assert "GPU idle: no work from the host" in texts and "waiting for input" in texts


def test_one_colour_per_kernel_name(tmp_path: Path) -> None:
    (run,) = load_profile(chained(tmp_path)).devices
    schedule = run.schedule
    keys = kind_of(schedule).colour_keys(schedule, np.arange(len(schedule)))
    by_name: dict[str, set[int]] = {}
    for task, key in enumerate(keys.tolist()):
        by_name.setdefault(schedule.task_title(task) or "", set()).add(key)
    assert all(len(colours) == 1 for colours in by_name.values())
    assert len({min(c) for c in by_name.values()}) == len(by_name)


def test_hover_says_the_kernel_and_why_a_lane_waits(tmp_path: Path) -> None:
    (run,) = load_profile(chained(tmp_path)).devices
    schedule = run.schedule
    kernel = next(t for t in range(len(schedule)) if schedule.task_title(t) == "gemm_tile_kernel")
    assert describe_task(schedule, kernel).startswith("gemm_tile_kernel\ncompute · stream 7")
    spans = idle_spans(Derived(schedule))
    assert set(reasons_present(Derived(schedule))) <= {"input", "host", "other", "done"}
    words = {describe_wait(Derived(schedule), "workers", spans, i) for i in range(len(spans))}
    assert "waiting for data: Memcpy HtoD (Pinned -> Device) runs on another stream" in words
    assert any(w.startswith("the GPU runs nothing") for w in words)


def test_rows_per_op_do_not_apply_to_a_profile(tmp_path: Path) -> None:
    (run,) = load_profile(chained(tmp_path)).devices
    says = "rows per op do not apply to a profile: its rows are its streams"
    with pytest.raises(PipeLabError, match=says):
        export([run.schedule], tmp_path / "x.png", rows="ops")
