"""The `export` command through a subprocess, as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # the command must go offscreen by itself
    env.pop("DISPLAY", None)
    return subprocess.run(
        [sys.executable, "main.py", "export", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_png_svg_pdf_json(tmp_path: Path) -> None:
    png, svg, pdf, trace = (tmp_path / f"t.{s}" for s in ("png", "svg", "pdf", "json"))
    result = run("--preset", "book", "--out", str(png), "--width", "1000", "--assembly")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert Image.open(png).width == 1000
    assert run("--preset", "double-buffering", "--out", str(svg)).returncode == 0
    text = svg.read_text()
    assert "<svg" in text and 'width="504pt"' in text and ">load unit</text>" in text
    assert run("--ops", "5", "--policy", "pipelined", "--out", str(pdf)).returncode == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert run("--out", str(trace)).returncode == 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 18


def test_figure_flags(tmp_path: Path) -> None:
    png, svg = tmp_path / "t.png", tmp_path / "t.svg"
    result = run(
        "--out", str(png), "--size", "slide", "--scale", "2", "--transparent",
        "--rows", "ops", "--theme", "dark", "--time", "2.5", "--no-caption",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    image = Image.open(png)
    assert image.width == 2560 and image.mode == "RGBA"  # 13.33 in at 96 px/in, twice
    assert run("--out", str(svg), "--size", "column", "--rows", "ops").returncode == 0
    text = svg.read_text()
    assert 'width="252pt"' in text and ">op 3</text>" in text and 'id="cursor"' not in text


def test_gif_and_webp(tmp_path: Path) -> None:
    for name in ("t.gif", "t.webp"):
        out = tmp_path / name
        result = run("--out", str(out), "--width", "400", "--fps", "1", "--policy", "pipelined")
        assert result.returncode == 0, result.stderr
        assert Image.open(out).n_frames == 6  # 5 s at 1 fps, both ends


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--out", "t.bmp"), "unknown export format '.bmp'"),
        (("--out", "nowhere/t.png"), "does not exist"),
        (("--out", "t.pdf", "--size", "poster"), "argument --size: invalid choice"),
        (("--out", "t.png", "--rows", "stages"), "argument --rows: invalid choice"),
        (("--out", "t.png", "--theme", "sepia"), "argument --theme: invalid choice"),
        (("--out", "t.png", "--scale", "0"), "argument --scale: must be between 1 and 4"),
        (("--out", "t.png", "--scale", "two"), "argument --scale: must be a number"),
        (("--out", "t.png", "--width", "10"), "argument --width: must be between"),
        (("--out", "t.svg", "--width", "800"), "--width is for PNG and animations"),
        (("--out", "t.pdf", "--scale", "2"), "--scale is for PNG and animations"),
        (("--out", "t.svg", "--assembly"), "SVG cannot hold the assembly line"),
        (("--out", "t.webp", "--transparent"), "not animations"),
        (("--out", "t.png", "--time", "9.5"), "--time 9.5 is outside the run"),
        # Shown as given, not rounded: "--time 9 is outside … from 0 to 9 s" once.
        (
            ("--out", "t.png", "--time", "9.0000001"),
            "--time 9.0000001 is outside the run: give a time from 0 to 9 s",
        ),
        (("--out", "t.png", "--time", "1e308"), "--time 1e308 is outside"),  # not 1e+308
        (("--out", ""), "argument --out: must not be empty"),  # as simulate and warps say
        (("--out", "t.png", "--time", "-1"), "outside the run"),
        (("--out", "t.png", "--time", "nan"), "--time must be a finite number"),
        (
            ("--out", "t.png", "--ops", "0"),
            "argument --ops: must be between 1 and 10,000,000, not 0",
        ),
    ],
)
def test_bad_flags_are_one_line_exit_2_and_no_file(tmp_path: Path, args, words) -> None:
    args = tuple(str(tmp_path / a) if a.startswith(("t.", "nowhere")) else a for a in args)
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
def test_pdf_words_are_text(tmp_path: Path) -> None:
    pdf = tmp_path / "t.pdf"
    assert run("--preset", "two-load-units", "--out", str(pdf), "--size", "column").returncode == 0
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "load unit 2" in words and "sequential 32 s → pipelined 11 s, 2.91×" in words


def svg_title(path: Path) -> list[str]:
    """The texts of the SVG's title element and of its drawn title (parsed as XML)."""
    from xml.etree import ElementTree

    root = ElementTree.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    drawn = [t.text or "" for t in root.iter(f"{ns}text") if t.get("class") == "title"]
    return [root.findtext(f"{ns}title") or "", *drawn]


def test_the_title_names_what_the_flags_changed(tmp_path: Path) -> None:
    """`--ops 1000000` drew "The book example" over a million ops: a changed preset's
    title now says how it differs, and `--title` replaces it ('' for none)."""
    svg = tmp_path / "t.svg"
    assert run("--preset", "book", "--out", str(svg)).returncode == 0
    assert svg_title(svg) == ["The book example", "The book example"]
    assert run("--preset", "book", "--buffers", "2", "--out", str(svg)).returncode == 0
    assert svg_title(svg) == ["The book example with 2 slots"] * 2
    assert run("--title", "Figure 3", "--ops", "7", "--out", str(svg)).returncode == 0
    assert svg_title(svg) == ["Figure 3", "Figure 3"]
    assert run("--title", "", "--out", str(svg)).returncode == 0
    assert svg_title(svg) == ["PipeLab timeline"]  # the file's title; nothing drawn


def test_a_title_with_control_characters_or_too_long_still_makes_a_figure(
    tmp_path: Path,
) -> None:
    """A control character made an SVG that no XML reader opens, and a long title ran off
    the figure's edge: the title is one line of XML text, cut with "…" where it ends."""
    svg = tmp_path / "t.svg"
    assert run("--title", "A\x01 <b>&\nB", "--out", str(svg)).returncode == 0
    assert svg_title(svg) == ["A <b>& B", "A <b>& B"]
    long = "W" * 400
    assert run("--title", long, "--size", "column", "--out", str(svg)).returncode == 0
    title, drawn = svg_title(svg)
    assert title == long and drawn.endswith("…") and drawn[:-1] == "W" * (len(drawn) - 1)
    rsvg = shutil.which("rsvg-convert")
    if rsvg:  # librsvg draws it: nothing beyond the right margin but white
        png = tmp_path / "t.png"
        subprocess.run([rsvg, "-w", "504", "-b", "white", str(svg), "-o", str(png)], check=True)
        grey = Image.open(png).convert("L")
        margin = grey.crop((grey.width - 8, 0, grey.width, 40))
        assert np.asarray(margin).min() > 200


#: main(argv) in a child whose stderr is a terminal, progress drawn at once at every phase
#: (and not redrawn in between).
_ON_A_TERMINAL = (
    "import sys, cli.console as c; c.DELAY = 0.0; c.INTERVAL = 3600.0\n"
    "from main import main; sys.exit(main(sys.argv[1:]))"
)


def on_a_terminal(*argv: str) -> tuple[int, str]:
    """Run ``argv`` with stderr on a pseudo-terminal; its exit status and what it drew."""
    import pty

    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    with subprocess.Popen(
        [sys.executable, "-c", _ON_A_TERMINAL, *argv],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
    ) as process:
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child has gone: the terminal is closed
                break
            if not chunk:
                break
            drawn += chunk
        code = process.wait(timeout=300)
    os.close(leader)
    return code, drawn.decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("name", "phases"),
    [("t.json", ["simulating 2,000 ops, sequential", "writing 12,000 tasks"]),
     ("t.png", ["simulating 2,000 ops, pipelined", "drawing the PNG"])],
)  # fmt: skip
def test_long_exports_show_progress_on_a_terminal(tmp_path: Path, name: str, phases) -> None:
    """`export --ops 1000000` was silent for a minute on a terminal: each step is on the
    progress line (as in simulate and warps), erased before the command ends."""
    code, drawn = on_a_terminal("export", "--ops", "2000", "--out", str(tmp_path / name))
    assert code == 0, drawn
    for phase in phases:
        assert f"pipelab: {phase}" in drawn, drawn
    assert drawn.rstrip(" ").endswith("\r"), drawn  # erased: the prompt comes back clean
    assert (tmp_path / name).stat().st_size > 0


def test_the_format_table_loads_without_qt() -> None:
    """The CLI reads `gui.export_formats` to build its parser: that must not start Qt."""
    code = (
        "import sys\n"
        "from cli.main import commands\n"
        "from cli.parser import build_parser\n"
        "build_parser(commands())\n"
        "bad = [m for m in ('PySide6', 'pyqtgraph') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
