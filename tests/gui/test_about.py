"""About names PipeLab's version (read when About opens: importlib.metadata is not a start-up
import, tests/gui/test_startup_imports.py)."""

from __future__ import annotations

from engine.base.resources import version
from gui.about import about_text


def test_about_names_pipelab_version_and_licence() -> None:
    text = about_text()
    assert f"PipeLab {version()}" in text and "MIT" in text
