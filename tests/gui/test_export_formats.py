"""Every export format gives a valid file of the asked size; a refused or failed export
leaves no file."""

from __future__ import annotations

import json
import re
import subprocess
import weakref
from pathlib import Path
from xml.etree import ElementTree

import pytest
from export_checks import pdf_page_width, pdf_text, tool
from PIL import Image
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QMessageBox

from engine.base.errors import PipeLabError
from engine.model.scenario import load_preset
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from gui.export import MAX_FRAMES, export, frame_times, gif_frame_times
from gui.main_window import MainWindow

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def book():
    scenario = load_preset("book")
    return [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]


def test_png_has_the_width_and_the_op_colours(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.png"
    export(book, path, width=900, time=2.5, with_assembly=True)
    image = Image.open(path).convert("RGB")
    assert image.width == 900 and image.height > 400
    pixels = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
    for colour in ((0x4E, 0x79, 0xA7), (0xF2, 0x8E, 0x2B), (0xE1, 0x57, 0x59)):
        assert colour in pixels  # op 1, 2, 3 colours are drawn


@pytest.mark.parametrize(
    ("options", "size"),
    [
        ({}, (1600, None)),
        ({"width": 800, "scale": 2}, (1600, None)),
        ({"size": "slide"}, (1280, None)),  # 13.33 in at 96 px per inch
        ({"size": "column", "scale": 2}, (672, None)),
    ],
)
def test_png_sizes(qapp, book, tmp_path: Path, options: dict, size: tuple) -> None:
    path = tmp_path / "t.png"
    export(book, path, **options)
    assert Image.open(path).width == size[0]


def test_retina_png_is_the_same_figure_twice_as_sharp(qapp, book, tmp_path: Path) -> None:
    export(book, tmp_path / "one.png", width=700)
    export(book, tmp_path / "two.png", width=700, scale=2)
    one, two = Image.open(tmp_path / "one.png"), Image.open(tmp_path / "two.png")
    assert two.size == (one.width * 2, one.height * 2)


def test_transparent_png_and_dark_theme(qapp, book, tmp_path: Path) -> None:
    export(book, tmp_path / "clear.png", width=600, transparent=True)
    clear = Image.open(tmp_path / "clear.png")
    assert clear.mode == "RGBA" and clear.getpixel((1, 1))[3] == 0
    export(book, tmp_path / "dark.png", width=600, theme="dark")
    assert Image.open(tmp_path / "dark.png").convert("RGB").getpixel((1, 1)) == (0x16, 0x18, 0x1C)


def test_svg_is_plain_svg_in_points_with_groups(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.svg"
    export(book, path)
    text = path.read_text()
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid() and renderer.viewBox().width() == 504  # a 7 in page
    root = ElementTree.fromstring(text)
    assert root.get("width") == "504pt"
    # No raster images, no non-scaling strokes, no transforms: every renderer agrees.
    assert "<image" not in text and "non-scaling-stroke" not in text and "transform" not in text
    ids = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert {"run-1", "run-2", "run-1-row-1", "run-2-row-3", "time-axis", "legend"} <= ids
    classes = " ".join(g.get("class") or "" for g in root.iter(f"{SVG}g"))
    assert "unit-load" in classes and "idle-input" in classes and "task colour-1" in classes
    assert len(re.findall(r'<rect [^>]*class="op-1"', text)) == 6  # 3 stages × 2 runs
    assert root.find(f".//{SVG}pattern") is not None  # hatching is a pattern


@pytest.mark.parametrize(("size", "width"), [("column", 252), ("page", 504), ("slide", 960)])
def test_pdf_page_width_follows_the_size(qapp, book, tmp_path: Path, size: str, width) -> None:
    path = tmp_path / "t.pdf"
    export(book, path, size=size)
    assert path.read_bytes().startswith(b"%PDF")
    assert pdf_page_width(path) == pytest.approx(width, abs=0.5)


def test_pdf_keeps_its_words_in_a_subset_font(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.pdf"
    export(book, path, title="The book example")
    words = pdf_text(path)
    for phrase in ("The book example", "load unit", "compute unit", "makespan 9 s", "time (s)"):
        assert phrase in words
    assert path.stat().st_size < 100_000  # two fonts embedded, only the glyphs used
    fonts = subprocess.run(
        [tool("pdffonts"), str(path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    assert len(fonts) == 2 and all(" yes " in line for line in fonts)  # embedded
    # Subset, and named so: Qt tags the font descriptor only ("sub no" in pdffonts).
    assert all(re.match(r"[A-Z]{6}\+DejaVuSans", line) for line in fonts), fonts
    assert all(line.split()[-4:-2] == ["yes", "yes"] for line in fonts), fonts  # emb, sub
    data = path.read_bytes()  # the cross-reference table still points at each object
    table = int(re.search(rb"startxref\s+(\d+)", data).group(1))
    assert data[table:].startswith(b"xref")
    rows = data[table:].split(b"\n")
    for number in range(1, int(rows[1].split()[1])):
        offset = int(rows[2 + number][:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), number


def test_gif_and_webp_have_the_expected_frames(qapp, book, tmp_path: Path) -> None:
    export(book, tmp_path / "t.gif", width=400, fps=2)
    export(book, tmp_path / "t.webp", width=400, fps=2)
    frames = len(gif_frame_times(book, 2))
    assert frames == len(frame_times(book, 2, ".webp")) == 19  # 9 s at 2 fps, both ends
    for name in ("t.gif", "t.webp"):
        image = Image.open(tmp_path / name)
        assert image.n_frames == frames and image.size[0] == 400


@pytest.mark.parametrize("name", ["t.gif", "t.webp"])
def test_animation_frames_are_made_as_the_encoder_asks(
    qapp, book, tmp_path: Path, monkeypatch, name
) -> None:
    """Every frame was made, in RGB, before the encoder began: 0.9 GB for the book
    example's GIF at 1,600 px. Now at most two are alive at once (the one encoded, the one
    made), and the animation is the same."""
    import gui.figure.animation

    frames: list[weakref.ref[Image.Image]] = []  # (a Pillow image is not hashable)
    most = 0
    made = gui.figure.animation.frame_of

    def counted(image):  # type: ignore[no-untyped-def]
        nonlocal most
        frame = made(image)
        frames.append(weakref.ref(frame))
        most = max(most, sum(alive() is not None for alive in frames))
        return frame

    monkeypatch.setattr(gui.figure.animation, "frame_of", counted)
    export(book, tmp_path / name, width=300, fps=2)
    assert most <= 2
    image = Image.open(tmp_path / name)
    assert image.n_frames == 19
    image.seek(18)  # the last frame decodes, and shows the run done
    assert image.convert("RGB").getbbox() is not None


@pytest.mark.parametrize("preset", ["book", "two-load-units"])
def test_webp_is_not_larger_than_the_gif(qapp, tmp_path: Path, preset) -> None:
    """The full-colour WebP was larger than the 128-colour GIF (1.35 MB against 1.08 MB for
    two-load-units): a key frame every 9-17 frames. Now a fifth to a third smaller."""
    scenario = load_preset(preset)
    runs = [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]
    # 46 or 61 frames: the old encoding made this WebP 8-20 % larger than the GIF.
    export(runs, tmp_path / "t.gif", width=400, fps=5)
    export(runs, tmp_path / "t.webp", width=400, fps=5)
    gif, webp = (tmp_path / "t.gif").stat().st_size, (tmp_path / "t.webp").stat().st_size
    assert webp <= gif, (webp, gif)
    webp_image = Image.open(tmp_path / "t.webp")
    assert webp_image.n_frames == Image.open(tmp_path / "t.gif").n_frames
    webp_image.seek(webp_image.n_frames - 1)  # the last frame decodes: it is whole
    assert webp_image.convert("RGB").getbbox() is not None


@pytest.mark.parametrize("name", ["t.gif", "t.webp"])
def test_animation_past_the_frame_cap_is_refused(qapp, book, tmp_path: Path, name) -> None:
    path = tmp_path / name
    with pytest.raises(PipeLabError, match=f"cap of {MAX_FRAMES}"):
        export(book, path, fps=50)
    assert not path.exists()


def test_chrome_trace(qapp, book, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    export(book, path)
    events = json.loads(path.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 18


@pytest.mark.parametrize(
    ("name", "options", "words"),
    [
        ("t.bmp", {}, "unknown export format"),
        ("t", {}, "unknown export format"),
        ("missing/t.png", {}, "does not exist"),
        ("t.pdf", {"size": "poster"}, "size must be one of column, page, slide"),
        ("t.png", {"rows": "stages"}, "rows must be one of workers, ops"),
        ("t.png", {"theme": "sepia"}, "theme must be one of light, dark"),
        ("t.png", {"scale": 0.5}, "scale must be between 1 and 4"),
        ("t.png", {"scale": float("nan")}, "scale must be between 1 and 4"),
        ("t.png", {"width": 50}, "width must be between"),
        ("t.png", {"time": 9.5}, "outside the run"),
        ("t.png", {"time": float("nan")}, "outside the run"),
        ("t.svg", {"with_assembly": True}, "SVG cannot hold the assembly line"),
        ("t.gif", {"transparent": True}, "not animations"),
    ],
)
def test_refused_export_leaves_no_file(qapp, book, tmp_path: Path, name, options, words) -> None:
    with pytest.raises(PipeLabError, match=re.escape(words)):
        export(book, tmp_path / name, **options)
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


@pytest.mark.parametrize("rows", ["workers", "ops"])
def test_a_measured_run_with_overlapping_tasks_exports(qapp, tmp_path: Path, rows) -> None:
    measured = Schedule(
        op=[0, 1, 0, 1],
        stage=[0, 0, 1, 1],
        unit=[0, 0, 1, 1],
        worker=[0, 0, 0, 0],
        start=[0.0, 0.5, 1.0, 1.6],
        end=[2.0, 1.5, 3.0, 2.5],
        workers=(1, 1),
        n_ops=2,
        source="measured",
        time_unit="ms",
        label="copy engine run",
        unit_names=("copy", "kernel"),
        stage_names=("h2d", "run"),
    )
    path = tmp_path / "t.svg"
    export([measured], path, rows=rows)
    text = path.read_text()
    assert "copy engine run (measured)" in text and "time (ms)" in text
    assert (">copy</text>" in text) is (rows == "workers")


@pytest.mark.parametrize("name", ["a\nb.xyz", "no\ndir/x.png"])
def test_a_file_name_with_a_newline_is_quoted_in_one_line(tmp_path: Path, name: str) -> None:
    """The app's export named the file raw: a newline in it made a two-line message."""
    from gui.export import check_target

    with pytest.raises(PipeLabError) as raised:
        check_target(tmp_path / name)
    message = str(raised.value)
    assert "\n" not in message and "\\n" in message and message.startswith("'"), message


def test_a_warps_export_name_with_a_newline_is_quoted_in_one_line(tmp_path: Path) -> None:
    from engine.latency.warps import WarpConfig, simulate_warps
    from gui.warps_export import export_warps

    run = simulate_warps(WarpConfig(warps=2, latency=4, compute=2, cycles=20))
    with pytest.raises(PipeLabError) as raised:
        export_warps(run, tmp_path / "a\nb.xyz")
    message = str(raised.value)
    assert "\n" not in message and "'a\\nb.xyz'" in message, message
