"""Recorded profiles in the app: `pipelab --profile`, File → Open by content, a dropped file;
the lanes with the what-if beside, the trace's own figures in the stats, bad files as a
message with the app up."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from gpu.profile import looks_like_profile
from gui.main_window import MainWindow

DATA = Path(__file__).resolve().parents[1] / "data" / "profiles"
HTA = DATA / "hta"


def chained_kineto(folder: Path) -> Path:
    """Four copy-in → kernel → copy-out chains on each of two streams (µs)."""
    events = []
    for stream in (7, 8):
        clock = 3.0 * stream
        for _ in range(4):
            for cat, name, length in (
                ("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 10.0),
                ("kernel", "gemm", 20.0),
                ("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 5.0),
            ):
                events.append(
                    f'{{"ph": "X", "cat": "{cat}", "name": "{name}", "pid": 0, "tid": {stream}, '
                    f'"ts": {clock}, "dur": {length}, "args": {{"device": 0, "stream": {stream}}}}}'
                )
                clock += length
    path = folder / "chains.json"
    path.write_text('{"traceEvents": [' + ", ".join(events) + "]}")
    return path


@pytest.mark.parametrize(
    ("name", "text", "profile"),
    [
        ("a.toml", 'name = "x"\nops = 3\n', False),
        ("b.toml", "[workers]\nload = 2\n", False),
        ("c.txt", '{"traceEvents": []}', True),
        ("d.txt", '[{"ph": "X"}]', True),
        ("e.txt", "Start (ns),Duration (ns),Name\n1,2,k\n", True),
    ],
)
def test_profiles_are_told_by_content(tmp_path: Path, name: str, text: str, profile: bool) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert looks_like_profile(path) is profile
    packed = tmp_path / f"{name}.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert looks_like_profile(packed)  # gzip: a profile (scenarios are not read gzipped)


def test_a_profile_opens_with_its_what_if_and_its_own_stats(
    window: MainWindow, tmp_path: Path
) -> None:
    assert window.open_file(chained_kineto(tmp_path))
    external = window.model.external
    assert external is not None and "8 chains as ops" in external.description
    shown = window.model.shown
    assert shown is not None
    schedules = list(shown.schedules)
    assert [s.source for s in schedules] == ["measured", "simulated"]
    assert schedules[0].row_titles is not None  # rows: the streams
    assert not window.scenario_panel.isEnabled()  # the form describes nothing shown
    assert "chains.json" in window.windowTitle()
    labels = {line.label for _, line in window.stats.lines}
    assert {"breakdown", "copies hidden", "headroom", "lanes idle"} <= labels
    values = {line.label: line.value for group, line in window.stats.lines if "device" in group}
    # 8 copies of 10 µs (80 µs summed), two streams 3 µs apart: a union of 4 × 13 µs
    assert values["busy"].startswith("load 52 µs")
    window.model.back_to_scenario(wait=True)
    assert window.model.external is None and window.scenario_panel.isEnabled()


def test_a_trace_without_chains_says_only_the_bound_applies(window: MainWindow) -> None:
    assert window.open_file(HTA / "sampled_rank-1.json.gz")
    external = window.model.external
    assert external is not None and "only the bound applies" in external.description
    shown = window.model.shown
    assert shown is not None and len(shown.schedules) == 1
    from gui.assembly_texts import lane_spec

    assert "not ops that travel" in lane_spec(shown.derived[0]).title  # why nothing glides


def test_a_bad_profile_is_a_message_and_the_app_keeps_its_run(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(
        "gui.main_window.warn", lambda parent, title, text: said.append((title, text))
    )
    before = window.model.shown
    bad = tmp_path / "broken.json.gz"
    bad.write_bytes(gzip.compress(b'{"traceEvents": [')[:-6])
    assert not window.open_file(bad)
    assert said and said[-1][0] == "Cannot open profile" and "broken.json.gz" in said[-1][1]
    assert "\n" not in said[-1][1]
    assert window.model.shown is before and window.model.external is None
    empty = tmp_path / "none.json"
    empty.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "ts": 1, "dur": 1}]}')
    assert not window.open_file(empty)
    assert "no GPU activity" in said[-1][1]


def test_a_dropped_profile_opens(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(chained_kineto(tmp_path)))])
    event = QDropEvent(
        QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.model.external is not None, timeout=20_000)
    assert "chains.json" in window.model.external.title


def test_the_lesson_and_the_narration_speak_of_the_trace(
    window: MainWindow, tmp_path: Path
) -> None:
    from engine.analysis.derived import Derived
    from engine.analysis.timeline import narrate
    from gui.run_heading import lesson_line

    assert window.open_file(chained_kineto(tmp_path))
    shown = window.model.shown
    assert shown is not None
    lesson, why = lesson_line(shown)
    assert lesson.startswith("measured") and "hidden" in lesson and "headroom" in lesson
    assert "busy" in why  # the bottleneck's sentence, for the tooltip
    measured = shown.schedules[0]
    said = narrate(Derived(measured), 30e-6)  # stream 7's kernel runs, stream 8's copy in
    assert "is running gemm" in said and "op " not in said


def _kineto(folder: Path, events: list[tuple[str, str, int, float, float]]) -> Path:
    """A Kineto trace of (cat, name, stream, ts µs, dur µs) on device 0."""
    rows = [
        f'{{"ph": "X", "cat": "{cat}", "name": "{name}", "pid": 0, "tid": {stream}, '
        f'"ts": {ts}, "dur": {dur}, "args": {{"device": 0, "stream": {stream}}}}}'
        for cat, name, stream, ts, dur in events
    ]
    path = folder / "waits.json"
    path.write_text('{"traceEvents": [' + ", ".join(rows) + "]}")
    return path


def test_the_narration_says_why_a_stream_waits_as_the_trace_shows_it(
    window: MainWindow, tmp_path: Path
) -> None:
    """Stream 7 computes, waits (as stream 9 does) while stream 8 copies in and computes
    again; then the device runs nothing (stream 9 waits for the host) and stream 9
    computes last. The app's narration gives each idle stream the
    trace's reason (the copy by name, the host, no work left), never the pipeline's
    ("waits for op 2", "it starts at") that a trace cannot know."""
    copy = "Memcpy HtoD (Pinned -> Device)"
    path = _kineto(
        tmp_path,
        [
            ("kernel", "first_kernel", 7, 0.0, 10.0),
            ("gpu_memcpy", copy, 8, 10.0, 10.0),
            ("kernel", "second_kernel", 7, 20.0, 10.0),
            ("kernel", "last_kernel", 9, 40.0, 10.0),
        ],
    )
    assert window.open_file(path)
    shown = window.model.shown
    assert shown is not None
    lines = {}
    for at in (15e-6, 35e-6, 45e-6):
        window.clock.seek(at)
        lines[at] = window.view.narration_lines()[0]
    copying, nothing, last = lines.values()
    assert (
        f"compute · stream 7 and compute · stream 9 wait for data: {copy} runs on another stream"
        in copying
    )
    assert "compute · stream 9 waits for the host: the GPU runs nothing" in nothing
    assert "load · stream 8 and compute · stream 7 have no work left" in last
    assert "compute · stream 9 starts last_kernel" in last  # (the event at or before 45 µs)
    for line in lines.values():
        assert "op " not in line and "starts at" not in line
        assert "load · no stream" not in line and "store" not in line  # rows that ran nothing


def test_the_gantt_names_and_colours_a_trace_s_activities_by_kernel(
    window: MainWindow, tmp_path: Path
) -> None:
    """On screen as in the exports: a group of imported lanes counts activities (not
    ops), and a bar takes its kernel's colour: one kernel, one colour, on any stream."""
    from collections import Counter

    from PySide6.QtCore import QPointF

    path = _kineto(
        tmp_path,
        [
            ("kernel", "k_alpha", 7, 0.0, 10.0),
            ("kernel", "k_beta", 7, 20.0, 10.0),
            ("kernel", "k_alpha", 9, 40.0, 10.0),
        ],
    )
    assert window.open_file(path)
    timeline = window.view.timeline
    measured = window.model.shown.schedules[0]
    group = next(g for g in timeline.groups if g.schedule is measured)
    assert group.title.endswith("· 3 activities")
    window.resize(1280, 800)
    timeline.getPlotItem().getViewBox().setXRange(0.0, 50e-6, padding=0.0)
    image = timeline.grab().toImage()
    box = timeline.getPlotItem().getViewBox()

    def bar_colour(task: int) -> int:
        """The commonest pixel inside the bar's middle (its label is a minority)."""
        row = group.first_row + int(measured.rows_of(task))
        start, end = float(measured.start[task]), float(measured.end[task])
        pixels = Counter()
        for f in np.linspace(0.2, 0.8, 13):
            for dy in (-0.2, 0.0, 0.2):
                scene = box.mapViewToScene(QPointF(start + f * (end - start), row + dy))
                point = timeline.mapFromScene(scene)
                pixels[image.pixel(point.x(), point.y())] += 1
        return pixels.most_common(1)[0][0]

    by_name = {measured.task_title(t): [] for t in range(len(measured))}
    for task in range(len(measured)):
        by_name[measured.task_title(task)].append(bar_colour(task))
    first, second = by_name["k_alpha"]
    [beta] = by_name["k_beta"]
    assert first == second != beta
