"""What the app's start-up imports: the window as first painted (a fresh process, as
bench/gui_startup.py starts it) loads none of the modules that only later tabs, dialogs
or files need (issue 27, item 12: start-up had grown to 1.6× a bare PlotWidget window's,
mostly by importing them). A module that shows up here again has been imported at the top
of a module the first screen needs: import it where it is used instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Loaded when first used, never for the first screen (what needs each, in words).
LATER = {
    # recorded profiles: File → Open, a dropped file, --profile
    "gpu.profile.kineto": "reading a Kineto/Chrome trace",
    "gpu.profile.nsys": "reading an Nsight Systems export",
    "gpu.profile.pipelab_trace": "reading PipeLab's own trace",
    "gpu.profile.idle": "an imported profile's idle reasons",
    "gpu.profile.lanes": "an imported profile's lanes",
    "gui.profile_open": "opening a profile",
    "sqlite3": "reading an Nsight Systems SQLite export",
    "gzip": "reading a .gz profile",
    "engine.analysis.writers": "trace and JSON writers (exports, PipeLab's trace)",
    # a pipeline shape opened: the form's shape editor
    "gui.shape_editor": "the shape editor (a pipeline shape opened)",
    # the Warps tab
    "gui.warps_view": "the Warps tab",
    "engine.latency.warps": "the warp model (Warps tab, warp runs)",
    "engine.latency.warp_idle": "a warp run's idle reasons",
    # the GPU tab
    "gui.gpu_panel": "the GPU tab",
    "gpu.detect": "the GPU tab's device detection",
    "gpu.experiments": "the GPU tab's experiments",
    "cupy": "a CUDA device (GPU tab)",
    # exports and dialogs
    "gui.export": "exporting",
    "gui.export_dialog": "File → Export",
    "gui.figure.svg": "SVG export",
    "gui.figure.animation": "GIF/WebP export",
    "PIL": "image export",
    "gui.about": "Help → About",
    # errors and big runs
    "difflib": "a bad key's or preset name's 'did you mean'",
    "importlib.metadata": "PipeLab's version (Help → About, --version)",
    "concurrent.futures": "big runs' thread pools",
    "ctypes.util": "(glibc is found in the process's own symbols)",
    # NumPy 2.3+: np.unique's and np.median's first call imports numpy.ma
    "numpy.ma": "np.unique / np.median (engine.model.columns.sorted_unique / median_of instead)",
}

PROBE = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QEvent, QObject, QSettings
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
    from gui.app import make_app, make_window

    app = make_app()
    window = make_window()
    painted = []

    class FirstPaint(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and not painted:
                painted.append(sorted(sys.modules))
                app.quit()
            return False

    probe = FirstPaint()
    window.view.assembly.installEventFilter(probe)
    window.show()
    app.exec()
    print(json.dumps(painted[0] if painted else []))
    """
)


def test_the_first_screen_imports_no_later_module(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    modules = set(json.loads(result.stdout.splitlines()[-1]))
    assert {
        "gui.main_window",
        "gui.timeline_items",
        "engine.analysis.derived",
    } <= modules  # (painted)
    loaded = {name: why for name, why in LATER.items() if name in modules}
    assert not loaded, f"imported before the first paint: {loaded}"
