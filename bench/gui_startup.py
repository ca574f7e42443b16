"""Process start → first painted window: PipeLab's main window against a bare pyqtgraph
PlotWidget window, measured in the same run (5 alternating runs each, median), both with
their byte code cached, as every launch after the first finds it (the probes may write
__pycache__ even where PYTHONDONTWRITEBYTECODE is set: compiling pyqtgraph's and PipeLab's
sources at each start would measure the compiler, not the start-up).

    uv run python bench/gui_startup.py        # offscreen; or under xvfb-run with xcb
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = textwrap.dedent(
    """
    import sys, time
    from PySide6.QtCore import QEvent, QObject, QSettings
    KIND = sys.argv[1]
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])

    class FirstPaint(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                print(time.time(), flush=True)
                app.quit()
            return False

    if KIND == "bare":
        import pyqtgraph as pg
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        window = pg.PlotWidget()
        window.resize(1600, 1000)
    else:
        from gui.app import make_app, make_window
        app = make_app()
        window = make_window()
    probe = FirstPaint()
    target = window.viewport() if KIND == "bare" else window.view.assembly
    target.installEventFilter(probe)
    window.show()
    app.exec()
    """
)


def once(kind: str, script: Path, settings: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    start = time.time()
    out = subprocess.run(
        [sys.executable, str(script), kind, settings],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return float(out.split()[0]) - start


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "probe.py"
        script.write_text(PROBE)
        for kind in ("bare", "pipelab"):
            once(kind, script, folder)  # warm the file cache and write the byte code
        times: dict[str, list[float]] = {"bare": [], "pipelab": []}
        for _ in range(5):
            for kind in times:
                times[kind].append(once(kind, script, folder))
    bare, ours = (statistics.median(times[k]) for k in ("bare", "pipelab"))
    print(f"bare PlotWidget window: first paint {bare * 1000:.0f} ms after process start")
    print(f"PipeLab main window:    first paint {ours * 1000:.0f} ms after process start")
    print(f"ratio: {ours / bare:.2f}× (target ≤ 1.3×)")


if __name__ == "__main__":
    main()
