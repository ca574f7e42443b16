"""About and the application object name PipeLab's version."""

from __future__ import annotations

from engine.base.resources import version
from gui.about import about_text
from gui.app import make_app


def test_about_names_pipelab_version_and_licence() -> None:
    text = about_text()
    assert f"PipeLab {version()}" in text and "MIT" in text


def test_the_application_carries_the_version() -> None:
    assert make_app().applicationVersion() == version()
