"""Memory of the app while switching scenarios: the main window (offscreen) alternates
between a 200,000-op scenario and the book example ``--switches`` times; the resident set
size after each big run is printed beside the one after the first (the reference, same
run). A run keeps what is derived from its Schedules (engine.analysis.derived.Derived),
so a dead run must take its caches with it and the growth stay small.

    uv run python bench/switch_memory.py [--switches 20] [--ops 200000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # engine/, not bench/engine.py
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc; else the peak from resource)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=20)
    parser.add_argument("--ops", type=int, default=200_000)
    args = parser.parse_args()

    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from gui.app import make_app

    app = make_app()  # as the app starts: freed memory held (gui.memory)
    from engine.model.scenario import load_preset
    from gui.main_window import MainWindow

    window = MainWindow()
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    book = load_preset("book")
    big = book.with_changes(ops=args.ops)
    figures: list[int] = []
    for _ in range(args.switches):
        window.apply_scenario(big)
        window.clock.to_end()  # every view draws the big run, hover caches fill
        app.processEvents()
        figures.append(rss_bytes())
        window.apply_scenario(book, "book")
        app.processEvents()
    window.clock.pause()
    if window.gpu_panel is not None:
        window.gpu_panel.shutdown()
    window.close()

    first = figures[0]
    mib = 2**20
    print(f"switches                 {args.switches} × ({args.ops:,} ops ↔ book)")
    print(f"RSS after first switch   {first / mib:.0f} MiB (reference)")
    print(f"RSS after last switch    {figures[-1] / mib:.0f} MiB")
    print(f"largest after any        {max(figures) / mib:.0f} MiB")
    print(
        f"growth                   {(max(figures) - first) / mib:+.0f} MiB "
        f"({max(figures) / first:.2f}× the reference)"
    )


if __name__ == "__main__":
    main()
