"""Every export format gives a valid, non-blank file; a failed export leaves no file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QMessageBox

from engine.errors import PipeLabError
from engine.scenario import load_preset
from engine.scheduler import simulate
from gui.export import MAX_FRAMES, export, gif_frame_times
from gui.main_window import MainWindow


@pytest.fixture
def book():
    scenario = load_preset("book")
    return [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]


def test_png_has_the_width_and_many_colours(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.png"
    export(book, path, width=900, time=2.5, with_assembly=True)
    image = Image.open(path).convert("RGB")
    assert image.width == 900 and image.height > 400
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50
    pixels = {colour for _, colour in colours}
    for colour in ((0x4E, 0x79, 0xA7), (0xF2, 0x8E, 0x2B), (0xE1, 0x57, 0x59)):
        assert colour in pixels  # op 1, 2, 3 colours are drawn


def test_svg_loads_in_qsvgrenderer(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.svg"
    export(book, path, width=1000)
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    assert renderer.viewBox().width() == 1000
    text = path.read_text()
    assert "<svg" in text and "op 1" in text and "makespan 9 s" in text


def test_pdf_is_a_pdf(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.pdf"
    export(book, path, width=1000)
    data = path.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 5000


def test_gif_has_the_expected_frames(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.gif"
    export(book, path, width=400, fps=2)
    image = Image.open(path)
    assert image.n_frames == len(gif_frame_times(book, 2)) == 19  # 9 s at 2 fps, both ends
    assert image.size[0] == 400


def test_gif_past_the_frame_cap_is_refused(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.gif"
    with pytest.raises(PipeLabError, match=f"cap of {MAX_FRAMES}"):
        export(book, path, fps=50)
    assert not path.exists()


def test_chrome_trace(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    export(book, path)
    events = json.loads(path.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 18


@pytest.mark.parametrize("name", ["t.bmp", "t", "missing/t.png"])
def test_failed_export_leaves_no_file(qapp, book, tmp_path: Path, name: str) -> None:
    with pytest.raises(PipeLabError):
        export(book, tmp_path / name)
    assert list(tmp_path.rglob("*")) == []


def test_window_export_errors_show_a_dialog(qtbot, tmp_path: Path, monkeypatch) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: messages.append(text))
    assert not window.export_to(tmp_path / "timeline.docx")
    assert "unknown export format" in messages[0]
    assert window.export_to(tmp_path / "timeline.png", width=800)
    assert Image.open(tmp_path / "timeline.png").width == 800
    assert sorted(p.name for p in tmp_path.iterdir()) == ["timeline.png"]
