"""A real window on an X server (Xvfb): grab it and check that the pixels show the three
stations of each lane and coloured bars in the timeline."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QPoint, QSettings
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])
    from gui.app import make_app, make_window
    app = make_app()
    window = make_window()
    window.resize(1600, 1000)
    window.show()
    for _ in range(20):
        app.processEvents()
    window.clock.seek(2.5)
    app.processEvents()
    window.grab().save(sys.argv[1] + "/window.png")
    assembly = window.view.assembly
    stations = [
        [[*assembly.mapTo(window, QPoint(int(r.x()), int(r.y()))).toTuple(),
          int(r.width()), int(r.height())] for r in lane]
        for lane in assembly.station_rects()
    ]
    timeline = window.view.timeline
    corner = timeline.mapTo(window, QPoint(0, 0)).toTuple()
    json.dump({"platform": app.platformName(), "stations": stations,
               "timeline": [*corner, timeline.width(), timeline.height()]},
              open(sys.argv[1] + "/layout.json", "w"))
    window.close()
    """
)


@pytest.mark.xvfb
def test_real_window_shows_stations_and_bars(tmp_path: Path) -> None:
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (apt install xvfb xauth)")
    script = tmp_path / "window.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1600x1000x24",
            sys.executable,
            str(script),
            str(tmp_path),
            str(tmp_path / "settings"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    layout = json.loads((tmp_path / "layout.json").read_text())
    assert layout["platform"] == "xcb"
    image = Image.open(tmp_path / "window.png").convert("RGB")
    assert len(layout["stations"]) == 2
    for lane in layout["stations"]:
        assert len(lane) == 3  # load, compute, store
        for x, y, w, h in lane:
            station = image.crop((x, y, x + w, y + h))
            # a card with a title, a figure and a label: many distinct colours, not blank
            assert len(station.getcolors(maxcolors=1 << 16)) > 20
    x, y, w, h = layout["timeline"]
    colours = {c for _, c in image.crop((x, y, x + w, y + h)).getcolors(maxcolors=1 << 20)}
    for op_colour in ((0x4E, 0x79, 0xA7), (0xF2, 0x8E, 0x2B), (0xE1, 0x57, 0x59)):
        assert op_colour in colours
    # at 2.5 s the pipelined compute worker is busy with op 2: its figure is orange
    x, y, w, h = layout["stations"][1][1]
    station_colours = {c for _, c in image.crop((x, y, x + w, y + h)).getcolors(1 << 16)}
    assert (0xF2, 0x8E, 0x2B) in station_colours


PIN_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QPoint, QPointF, QSettings
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])
    from gui.app import make_app, make_window
    app = make_app()
    window = make_window(preset="book")
    window.resize(1280, 800)
    window.show()

    def settle():
        for _ in range(20):
            app.processEvents()

    def load_row_pixel(group):
        # the load unit's row of a row group, at t = 2.25 s (beside the cursor at 2.5 s)
        timeline = window.view.timeline
        view = timeline.getPlotItem().getViewBox()
        scene = view.mapViewToScene(QPointF(2.25, group.first_row))
        point = timeline.mapTo(window, timeline.mapFromScene(scene))
        return [point.x(), point.y()]

    settle()
    panel = window.scenario_panel
    panel.view.setCurrentIndex(2)
    panel.view.activated.emit(2)  # pipelined only
    panel.buffers.setValue(2)
    panel.buffers.editingFinished.emit()
    panel.pin.click()  # pin the 2-slot run
    panel.buffers.setValue(3)
    panel.buffers.editingFinished.emit()
    window.clock.seek(2.5)
    settle()
    window.grab().save(sys.argv[1] + "/pinned.png")
    comparison = window.comparison
    corner = comparison.mapTo(window, QPoint(0, 0))
    pinned = {
        "labels": [s.label for s in window.schedules],
        "comparison": comparison.text().replace("\u00a0", " "),
        "comparison_rect": [corner.x(), corner.y(), comparison.width(), comparison.height()],
        "load_rows": [load_row_pixel(g) for g in window.view.timeline.groups],
    }
    panel.unpin.click()
    settle()
    window.grab().save(sys.argv[1] + "/unpinned.png")
    unpinned = {
        "labels": [s.label for s in window.schedules],
        "comparison_visible": comparison.isVisible(),
        "load_rows": [load_row_pixel(g) for g in window.view.timeline.groups],
    }
    json.dump({"pinned": pinned, "unpinned": unpinned}, open(sys.argv[1] + "/pin.json", "w"))
    window.close()
    """
)


def _run_in_xvfb(script_text: str, tmp_path: Path, screen: str) -> None:
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (apt install xvfb xauth)")
    script = tmp_path / "script.py"
    script.write_text(script_text)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [
            *("xvfb-run", "-a", "-s", f"-screen 0 {screen}", sys.executable, str(script)),
            *(str(tmp_path), str(tmp_path / "settings")),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.xvfb
def test_pin_edit_compare_unpin_in_a_real_window(tmp_path: Path) -> None:
    _run_in_xvfb(PIN_SCRIPT, tmp_path, "1280x800x24")
    found = json.loads((tmp_path / "pin.json").read_text())
    pinned, unpinned = found["pinned"], found["unpinned"]
    assert pinned["labels"] == ["pinned pipelined · 2 slots", "pipelined"]
    assert pinned["comparison"] == "2 slots: 6 s · 3 slots: 5 s (1 s faster)"
    image = Image.open(tmp_path / "pinned.png").convert("RGB")
    x, y, w, h = pinned["comparison_rect"]
    assert len(image.crop((x, y, x + w, y + h)).getcolors(1 << 16)) > 5  # text is drawn
    op3 = (0xE1, 0x57, 0x59)
    (px, py), (cx, cy) = pinned["load_rows"]
    # 2.25 s into the run: with 2 slots the load unit waits for a slot (idle, pale); with 3
    # it reads op 3 (red). Both rows are drawn on one time axis, so at the same x.
    assert px == cx and cy > py
    assert image.getpixel((px, py)) != op3
    assert _near(image.getpixel((cx, cy)), op3)
    after = Image.open(tmp_path / "unpinned.png").convert("RGB")
    assert unpinned["labels"] == ["pipelined"] and not unpinned["comparison_visible"]
    ((ux, uy),) = unpinned["load_rows"]
    assert _near(after.getpixel((ux, uy)), op3)


def _near(colour: tuple[int, ...], target: tuple[int, int, int], slack: int = 12) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(colour, target, strict=False))


# -- every screen: the window fits, every dock and control inside, figures at their size --

FIT_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from PySide6.QtCore import QPoint, QPointF, QRect, QSettings
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])
    from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QComboBox, QDockWidget,
                                   QProgressBar, QSlider, QTabBar, QWidget)
    from gui.app import make_app, make_window
    from gui.figure.bars import BAR_HEIGHT
    from gui.timeline import TITLE_ROOM
    sys.path.insert(0, "tests/gui")
    from gpu_stand_in import stand_in_result
    app = make_app()
    window = make_window()  # a first start: no saved geometry, no resize
    window.show()

    def settle():
        for _ in range(8):
            app.processEvents()
            time.sleep(0.02)

    def rect(widget, visible_only=False):
        area = widget.visibleRegion().boundingRect() if visible_only else widget.rect()
        corner = widget.mapToGlobal(area.topLeft())
        return [corner.x(), corner.y(), area.width(), area.height()]

    def gantt(timeline):
        # the Gantt's geometry in scene pixels: row pitch, title bands, names, marks
        view = timeline.getPlotItem().getViewBox()
        y = lambda row: view.mapViewToScene(QPointF(0.0, row)).y()
        low, high = view.viewRange()[1]
        above, groups = view.sceneBoundingRect().top(), []
        for g in timeline.groups:
            groups.append({"edge": y(g.first_row - 0.5), "above": above,
                           "rows": [y(g.first_row + r) for r in range(g.n_rows)]})
            above = y(g.first_row + g.n_rows - 1 + BAR_HEIGHT / 2)
        timeline.grab()  # the marks as painted at this size
        return {
            "groups": groups, "title_room": TITLE_ROOM, "last_bar": above,
            "names": [w for _, w in timeline.row_axis.labels(low, high, view.height())],
            "rows": [g.schedule.row_label(r) for g in timeline.groups for r in range(g.n_rows)],
            "marks": [[b.title.top(), b.title.bottom(), b.label.top(), b.label.bottom(),
                       b.label.right(), b.rows_top, b.above_bottom, b.right_edge]
                      for b in timeline.marks.drawn],
            "cursor_top": timeline.cursor.label.sceneBoundingRect().top(),
            "time_range": view.viewRange()[0],
        }

    CONTROLS = (QAbstractButton, QAbstractSpinBox, QComboBox, QSlider, QProgressBar, QTabBar)
    settle()
    window.clock.seek(2.5)
    result = stand_in_result()  # slowest sequential repeat: 12.25 ms
    found = {"available": app.primaryScreen().availableGeometry().getRect(), "tabs": []}
    for tab in range(3):
        window.tabs.setCurrentIndex(tab)
        if tab == 2 and window.gpu_panel.result is None:
            window.gpu_panel.show_result(result)
        settle()
        page = {"frame": window.frameGeometry().getRect(), "docks": {}, "controls": [],
                "whole": {}}
        for dock in window.findChildren(QDockWidget):
            if dock.isVisible() and not dock.visibleRegion().isEmpty():
                page["docks"][dock.objectName()] = rect(dock)
        for widget in window.findChildren(QWidget):
            if not isinstance(widget, CONTROLS):
                continue
            if widget.isVisible() and not widget.visibleRegion().isEmpty():
                page["controls"].append([type(widget).__name__, rect(widget, True)])
        always = {"tab bar": window.tabs.tabBar(), "slider": window.transport.slider,
                  "readout": window.transport.readout,
                  **{f"button {k}": b for k, b in window.transport.buttons.items()}}
        if tab == 0:
            always["assembly"] = window.view.assembly
            page["figures"] = [[r.width(), r.height()] for lane in
                               window.view.assembly.figure_rects() for r in lane]
            page["assembly"] = [*window.view.assembly.size().toTuple(),
                                *window.view.assembly.minimumSize().toTuple()]
            page["gantt"] = gantt(window.view.timeline)
        if tab == 2:
            panel = window.gpu_panel
            always |= {"progress": panel.progress, "status": panel.status_label,
                       "device": panel.device_label, "gpu gantt": panel.timeline.viewport()}
            page["gpu_groups"] = len(panel.timeline.groups)
            page["gantt"] = gantt(panel.timeline)
        for name, widget in always.items():
            page["whole"][name] = [rect(widget), rect(widget, True)]
        window.grab().save(f"{sys.argv[1]}/tab{tab}.png")
        found["tabs"].append(page)
    json.dump(found, open(sys.argv[1] + "/fit.json", "w"))
    window.close()
    """
)


def _inside(inner: list[int], outer: list[int]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


@pytest.mark.xvfb
@pytest.mark.parametrize("screen", ["1280x720", "1280x800", "1920x1080"])
def test_a_first_start_fits_the_screen_on_every_tab(tmp_path: Path, screen: str) -> None:
    from gui.assembly_parts import FIGURE_MIN

    _run_in_xvfb(FIT_SCRIPT, tmp_path, f"{screen}x24")
    found = json.loads((tmp_path / "fit.json").read_text())
    available = found["available"]
    assert len(found["tabs"]) == 3
    for index, page in enumerate(found["tabs"]):
        where = f"tab {index} on {screen}"
        assert _inside(page["frame"], available), where
        for name, dock in page["docks"].items():
            assert _inside(dock, page["frame"]), f"dock {name}, {where}"
        if index:
            assert not page["docks"], f"the Pipeline's docks show on {where}"
        else:
            assert "scenario" in page["docks"]
        assert page["controls"], where
        for kind, control in page["controls"]:
            assert _inside(control, page["frame"]), f"{kind} at {control}, {where}"
        for name, (whole, seen) in page["whole"].items():
            assert whole == seen and _inside(whole, page["frame"]), f"{name} cut, {where}"
        image = Image.open(tmp_path / f"tab{index}.png").convert("RGB")
        assert len(image.getcolors(maxcolors=1 << 20)) > 50, f"{where} looks blank"
    pipeline = found["tabs"][0]
    assert pipeline["figures"] and all(min(f) >= FIGURE_MIN for f in pipeline["figures"])
    width, height, min_width, min_height = pipeline["assembly"]
    assert width >= min_width and height >= min_height
    assert found["tabs"][2]["gpu_groups"] == 3  # sequential, pipelined, model
    for index in (0, 2):
        _check_gantt(found["tabs"][index]["gantt"], f"the Gantt of tab {index} on {screen}")
    assert found["tabs"][2]["gantt"]["time_range"][1] >= 12.25  # the spread shows


def _check_gantt(gantt: dict, where: str) -> None:
    """Rows at least MIN_PITCH px apart, every worker's name, each title's band between
    the rows above it and its own, the drawn titles and makespans in their bands (and the
    makespans inside the view), the cursor's label under the last bars."""
    from gui.timeline_rows import MIN_PITCH

    assert gantt["names"] == gantt["rows"], where
    room = gantt["title_room"]
    for group in gantt["groups"]:
        rows = group["rows"]
        pitches = [b - a for a, b in itertools.pairwise(rows)]
        assert pitches and min(pitches) >= MIN_PITCH - 0.5, (where, pitches)
        assert group["edge"] - room >= group["above"] - 0.5, (where, group)
        assert group["edge"] <= rows[0], where
    assert len(gantt["marks"]) == len(gantt["groups"]), where
    for t_top, t_bottom, l_top, l_bottom, l_right, rows_top, above, right in gantt["marks"]:
        for top, bottom in ((t_top, t_bottom), (l_top, l_bottom)):
            assert above - 0.5 <= top and bottom <= rows_top + 0.5, (where, top, bottom)
        assert l_right <= right, (where, "a makespan label runs off the view")
    assert gantt["cursor_top"] >= gantt["last_bar"] - 0.5, (where, "the cursor's label")


RESTORE_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from PySide6.QtCore import QSettings
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])
    from gui.app import make_app, make_window
    app = make_app()
    window = make_window()
    window.show()
    for _ in range(10):
        app.processEvents()
        time.sleep(0.02)
    if sys.argv[3] == "save":
        window.setGeometry(100, 80, 3400, 1900)  # a big window on the 4K screen
        for _ in range(10):
            app.processEvents()
    found = {"available": app.primaryScreen().availableGeometry().getRect(),
             "frame": window.frameGeometry().getRect(),
             "tabs": sorted(d.objectName() for d in window.tabifiedDockWidgets(
                 window.scenario_dock)),
             "docks": {d.objectName(): d.isVisible() for d in window.pipeline_docks}}
    window.grab().save(sys.argv[1] + f"/{sys.argv[3]}.png")
    json.dump(found, open(sys.argv[1] + f"/{sys.argv[3]}.json", "w"))
    window.close()
    """
)


@pytest.mark.xvfb
def test_a_window_saved_on_a_4k_screen_is_restored_inside_a_laptops(tmp_path: Path) -> None:
    """Saved on 4K with the Scenario form above the Stats; reopened on a laptop the frame
    is fitted to the screen and the docks become tabs (Qt restored them stacked: a form
    of five fields and a scroll bar, the narration cut)."""
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (apt install xvfb xauth)")
    script = tmp_path / "restore.py"
    script.write_text(RESTORE_SCRIPT)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))

    def run(screen: str, step: str, store: Path) -> dict:
        result = subprocess.run(
            [
                *("xvfb-run", "-a", "-s", f"-screen 0 {screen}x24", sys.executable),
                *(str(script), str(tmp_path), str(store), step),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0 and "cannot open display" in result.stderr.lower():
            pytest.skip(f"Xvfb would not start a {screen} screen")
        assert result.returncode == 0, result.stderr[-2000:]
        return dict(json.loads((tmp_path / f"{step}.json").read_text()))

    saved = run("3840x2160", "save", tmp_path / "settings")
    assert saved["frame"][2] >= 3400  # it was big there
    assert saved["tabs"] == []  # the form above the stats
    for screen in ("1280x800", "1280x720"):
        store = tmp_path / f"settings-{screen}"
        shutil.copytree(tmp_path / "settings", store)  # each screen reopens the 4K state
        restored = run(screen, f"restore-{screen}", store)
        assert _inside(restored["frame"], restored["available"]), screen
        assert restored["frame"][2] >= 900, screen  # not shrunk to nothing either
        assert restored["tabs"] == ["help", "stats"], screen
        assert restored["docks"]["scenario"], screen  # the form's tab is the one shown
