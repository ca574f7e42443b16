"""Help → The model: the model page (docs/model.md, shipped as engine/model.md) in the
app's Help menu, so an installed app has the text every --help cites."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QTextBrowser

from engine.base.resources import model_doc
from gui.app import make_window
from gui.help import HELP_TEXT, MODEL_ACTION, MODEL_WINDOW
from tests.gui.conftest import OFFSCREEN_ONLY


def test_the_shipped_page_is_the_model_text() -> None:
    text = model_doc().read_text(encoding="utf-8")
    assert text.startswith("# The model behind PipeLab")
    assert "buffer slot" in text


# Offscreen Qt cannot raise a window; a real desktop does.
@pytest.mark.qt_log_ignore(OFFSCREEN_ONLY, r"^This plugin does not support raise\(\)$")
def test_help_menu_opens_the_model(qtbot) -> None:
    window = make_window(preset="book")
    qtbot.addWidget(window)
    (help_menu,) = [
        entry.menu()
        for entry in window.menuBar().actions()
        if entry.text().replace("&", "") == "Help"
    ]
    texts = [action.text() for action in help_menu.actions()]
    assert MODEL_ACTION in texts
    assert texts.index(MODEL_ACTION) < [t.lower() for t in texts].index("&about pipelab")
    (action,) = [a for a in help_menu.actions() if a.text() == MODEL_ACTION]
    action.trigger()
    dialog = window.findChild(QDialog, MODEL_WINDOW)
    assert dialog is not None and dialog.isVisible()
    shown = dialog.findChild(QTextBrowser).toPlainText()
    assert "The model behind PipeLab" in shown and "Ops and stages" in shown
    assert "# " not in shown.splitlines()[0]  # rendered as Markdown, not shown as source
    action.trigger()  # again: the same window, not a second one
    assert len(window.findChildren(QDialog, MODEL_WINDOW)) == 1
    dialog.close()


def test_the_help_numbers_ops_as_the_screen_does_and_keeps_to_the_model() -> None:
    """Issue 25, item 13: the help said "op 2 must wait for op 0's write" while the screen
    numbers ops from 1, and its second half (atomic writes, SIGTERM, FIFOs) was for
    contributors: that is docs/contributing.md now."""
    import re

    text = model_doc().read_text(encoding="utf-8")
    assert not re.search(r"\bops? 0\b|\b0, 1, 2\b", text)
    assert "op 3 must wait for op 1's write" in text
    for topic in ("atomically", "SIGTERM", "FIFO", "temporary file", "exit status", "overflow"):
        assert topic not in text, topic
    contributing = model_doc().parents[1] / "docs" / "contributing.md"
    if contributing.exists():  # (a source checkout: an installed wheel has the model only)
        moved = contributing.read_text(encoding="utf-8")
        assert all(t in moved for t in ("atomically", "SIGTERM", "FIFO", "overflow"))


#: Opens Help → The model on a small screen (Qt's offscreen platform, sized by a file) and
#: reports where the window and its text lie.
SMALL_SCREEN_SCRIPT = """
import json, sys
from PySide6.QtWidgets import QApplication, QTextBrowser
app = QApplication(sys.argv)
from gui.app import make_window
from gui.help import show_model
window = make_window(preset="book")
window.show()
dialog = show_model(window)
for _ in range(20):
    app.processEvents()
browser = dialog.findChild(QTextBrowser)
print(json.dumps({
    "free": window.screen().availableGeometry().getRect(),
    "inside": dialog.geometry().getRect(),
    "wider": browser.horizontalScrollBar().maximum(),
    "margin": browser.document().documentMargin(),
}))
"""


def test_the_model_window_fits_a_small_screen_and_every_line_its_width(tmp_path: Path) -> None:
    """A line was clipped under the viewer's frame: the window was 720 × 640 whatever the
    screen, taller than a small desktop's free area (here 1024 × 600). It fits the screen
    now, its text keeps clear of the frame and no line is wider than the viewer."""
    import json
    import os
    import subprocess
    import sys

    screens = [{"name": "small", "x": 0, "y": 0, "width": 1024, "height": 600,
                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]  # fmt: skip
    config = tmp_path / "screens.json"
    config.write_text(json.dumps({"screens": screens, "windowFrameMargins": True}))
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}", PYTHONPATH=str(root))
    result = subprocess.run(
        [sys.executable, "-c", SMALL_SCREEN_SCRIPT], env=env, cwd=tmp_path,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout.splitlines()[-1])
    x, y, width, height = shown["inside"]  # (the window's own area, where the viewer is)
    fx, fy, free_width, free_height = shown["free"]
    assert fx <= x and fy <= y and x + width <= fx + free_width and y + height <= fy + free_height
    assert shown["wider"] == 0
    assert shown["margin"] >= 8  # text clear of the frame


@pytest.mark.qt_log_ignore(OFFSCREEN_ONLY)
def test_the_help_dock_lays_its_text_out_when_first_shown(qtbot) -> None:
    """The help dock opens tabbed behind the Scenario: its text waits for it (start-up);
    Help → What am I looking at? (F1) brings the dock up, and the text is there, wrapped
    to the dock."""
    window = make_window(preset="book")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    assert window.help_text.visibleRegion().isEmpty()  # (tabbed: the window is short)
    assert window.help_text.text() == ""
    (action,) = [a for a in window.findChildren(QAction) if a.shortcut().toString() == "F1"]
    action.trigger()
    qtbot.waitUntil(lambda: not window.help_text.visibleRegion().isEmpty())
    assert window.help_text.text() == HELP_TEXT
    assert window.help_text.height() > window.help_text.fontMetrics().height() * 5
