"""Help → The model: the model page (docs/model.md, shipped as engine/model.md) in the
app's Help menu, so an installed app has the text every --help cites."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QTextBrowser

from engine.resources import model_doc
from gui.app import make_window
from gui.help import MODEL_ACTION, MODEL_WINDOW
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
