"""A real window on an X server (Xvfb): grab it and check that the pixels show the three
stations of each lane and coloured bars in the timeline."""

from __future__ import annotations

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
        timeout=120,
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
