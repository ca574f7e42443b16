"""Helpers for the export tests: the layout an export draws, where its row labels land in
pixels, ink in a box, the tools readers use (rsvg-convert, pdftotext, pdfinfo; Inkscape,
Chromium and Firefox where installed), and the grey-image comparison of two renderings."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.model.schedule import Schedule
from gui.export import plan_export
from gui.figure.fonts import cap_height, text_width
from gui.figure.layout import build_figure
from gui.figure.model import Figure, Text

#: The Debian package of each tool the tests run (the others are poppler-utils').
PACKAGES = {
    "rsvg-convert": "librsvg2-bin",
    "inkscape": "inkscape",
    "chromium": "chromium",
    "firefox-esr": "firefox-esr",
}
#: A guard against a hung renderer, never a limit on its work (browsers start in seconds).
HANG_GUARD_S = 300


def tool(name: str) -> str:
    """The path of a command-line tool, or skip the test saying which package has it."""
    path = shutil.which(name)
    if path is None:
        package = PACKAGES.get(name, "poppler-utils")
        pytest.skip(f"{name} is not installed (Debian package {package})")
    return path


def layout_of(schedules: list[Schedule], suffix: str, **options: object) -> tuple[Figure, float]:
    """The figure an export with these options draws, and its pixels per point."""
    plan = plan_export(schedules, suffix, **options)  # type: ignore[arg-type]
    return build_figure(schedules, plan.options), plan.pixels


def label_box(text: Text, pixels: float) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) in pixels of where ``text`` is drawn."""
    width = text_width(text.text, text.size, text.bold)
    left = text.x - (width if text.anchor == "end" else width / 2 if text.anchor == "middle" else 0)
    top = text.y - cap_height(text.size) * 1.1
    return (
        int(left * pixels),
        int(top * pixels),
        int((left + width) * pixels) + 1,
        int(text.y * pixels) + 1,
    )


def ink(
    image: Image.Image, box: tuple[int, int, int, int], background: tuple[int, int, int]
) -> float:
    """Share of the pixels in ``box`` that clearly differ from ``background``."""
    region = np.asarray(image.convert("RGB").crop(box), dtype=np.float64)
    difference = np.abs(region - np.asarray(background, dtype=np.float64)).max(axis=2)
    return float((difference > 80).mean())


def row_label_ink(image: Image.Image, figure: Figure, pixels: float) -> dict[str, float]:
    """Ink at each row label the layout places (label words → share of inked pixels;
    repeated words keep their least-inked place)."""
    background = (255, 255, 255)
    if figure.background:
        colour = figure.background.lstrip("#")
        background = (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16))
    found: dict[str, float] = {}
    for text in figure.texts("row-label"):
        share = ink(image, label_box(text, pixels), background)
        found[text.text] = min(share, found.get(text.text, 1.0))
    return found


def pdf_text(path: Path) -> str:
    return subprocess.run(
        [tool("pdftotext"), str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def pdf_page_width(path: Path) -> float:
    info = subprocess.run(
        [tool("pdfinfo"), str(path)], capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in info.splitlines() if x.startswith("Page size:"))
    return float(line.split()[2])


def pdf_word_heights(path: Path) -> list[tuple[str, float]]:
    """(word, height of its box in points) for every word pdftotext finds."""
    import re

    html = subprocess.run(
        [tool("pdftotext"), "-bbox", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    words = re.findall(
        r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<', html
    )
    return [(word, float(y1) - float(y0)) for y0, y1, word in words]


def rsvg_png(svg: Path, width: int, out: Path) -> Image.Image:
    subprocess.run(
        [tool("rsvg-convert"), "-w", str(width), "-b", "white", str(svg), "-o", str(out)],
        check=True,
    )
    return Image.open(out)


def grey_difference(a: Image.Image, b: Image.Image, factor: int = 8) -> float:
    """Mean absolute difference (0-1) of two renderings as grey images shrunk ``factor``
    times (box filter): text set a pixel apart or antialiased differently hardly counts,
    a missing, moved or recoloured bar, label or hatch does."""
    grey_a = a.convert("L")
    grey_b = b.convert("L").resize(grey_a.size, Image.Resampling.BOX)
    size = (max(1, grey_a.width // factor), max(1, grey_a.height // factor))
    small_a = np.asarray(grey_a.resize(size, Image.Resampling.BOX), dtype=np.float64) / 255
    small_b = np.asarray(grey_b.resize(size, Image.Resampling.BOX), dtype=np.float64) / 255
    return float(np.abs(small_a - small_b).mean())


def render_svg(renderer: str, svg: Path, size: tuple[int, int], out: Path) -> Image.Image:
    """``svg`` drawn by ``renderer`` (rsvg-convert, inkscape, chromium, firefox-esr) at
    ``size`` pixels on white, as an RGB image. The browsers draw it as an ``<img>`` of
    that size in a page of that size (an SVG opened alone keeps its physical size)."""
    width, height = size
    command = tool(renderer)
    env = None
    if renderer == "rsvg-convert":
        return rsvg_png(svg, width, out)
    if renderer == "inkscape":
        args = [f"--export-filename={out}", f"--export-width={width}", "--export-type=png"]
        args += ["--export-background=white", "--export-background-opacity=1", str(svg)]
    else:
        page = out.with_suffix(".html")
        page.write_text(
            '<html><body style="margin:0;background:white">'
            f'<img src="{svg.resolve().as_uri()}" style="display:block;width:{width}px;'
            f'height:{height}px"></body></html>',
            encoding="utf-8",
        )
        if renderer == "chromium":
            args = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
            args += ["--force-device-scale-factor=1", f"--screenshot={out}"]
        else:  # firefox: its own profile folder, not the user's
            env = {**os.environ, "HOME": str(out.parent), "MOZ_HEADLESS": "1"}
            args = ["--headless", "--screenshot", str(out)]
        args += [f"--window-size={width},{height}", page.resolve().as_uri()]
    subprocess.run([command, *args], check=True, capture_output=True, env=env, timeout=HANG_GUARD_S)
    return Image.open(out).convert("RGB").crop((0, 0, width, height))


def overlapping_texts(figure: Figure) -> list[tuple[str, str]]:
    """Pairs of text items of ``figure`` whose boxes (advance × ascent and descent)
    overlap, as their words; and any text that pokes out of the figure, paired with ""."""
    from gui.figure.fonts import box_of

    texts = figure.texts()
    boxes = np.array([box_of(t) for t in texts]).reshape(-1, 4)
    slack = 0.01  # points: boxes that only touch do not overlap
    left, top, right, bottom = boxes.T
    apart = (
        (right[:, None] <= left[None, :] + slack)
        | (right[None, :] <= left[:, None] + slack)
        | (bottom[:, None] <= top[None, :] + slack)
        | (bottom[None, :] <= top[:, None] + slack)
    )
    i, j = np.nonzero(np.triu(~apart, k=1))
    pairs = [(texts[a].text, texts[b].text) for a, b in zip(i.tolist(), j.tolist(), strict=True)]
    outside = (left < -slack) | (top < -slack)
    outside |= (right > figure.width + slack) | (bottom > figure.height + slack)
    pairs.extend((texts[k].text, "") for k in np.flatnonzero(outside).tolist())
    return pairs
