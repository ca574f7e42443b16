"""File → Open of any bad scenario file: the one-line message in a dialog, the app up and
the current scenario kept (deep nesting once escaped as a RecursionError)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

BAD = {
    "deep arrays": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "deep inline tables": "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n",
    "unclosed nesting": "a = " + "[" * 100_000,
    "huge duration": "[defaults]\ncount = 3\nread = 1e308\n",
    "subnormal duration": "[defaults]\ncount = 3\nread = 1e-320\n",
    "dotted typo": "defaults.count = 3\ndefaults.raed = 1\n",
    "digits": "[defaults]\ncount = 1" + "0" * 5000 + "\n",
    "binary": b"\xff\xfe\x00[defaults]",
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_file_is_one_line_in_a_dialog(window, qtbot, monkeypatch, tmp_path, name):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "warning", lambda parent, title, text, *a: shown.append((title, text))
    )
    path = tmp_path / "bad.toml"
    content = BAD[name]
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = window.scenario
    assert not window.open_scenario_file(path)
    assert len(shown) == 1
    title, text = shown[0]
    assert title == "Cannot open scenario" and "\n" not in text and str(path) in text
    assert window.scenario is before and window.isVisible()
