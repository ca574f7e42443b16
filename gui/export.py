"""Exports of the timeline as figures you can put in a paper or on a slide, usable headless.

Every image format draws ONE layout (`gui.figure.layout.build_figure`): PNG (``width`` px,
``scale`` for retina, ``transparent``), PDF (real text, subset fonts, a physical page size),
SVG (written straight from the layout: text as ``<text>``, bars as ``<rect>``, hatching as a
pattern), and animated GIF / WebP (the assembly line over the Gantt with a moving cursor).
JSON is the Chrome trace (engine.analysis.writers). Sizes: ``size`` column / page / slide (3.5 / 7 /
13.33 in wide; SVG and PDF default to page); a PNG given only ``width`` is laid out at 96
pixels per inch. Every check runs before anything is drawn, and every file is written
atomically: a refused or failed export leaves no file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import QApplication

from engine.analysis.derived import Derived
from engine.analysis.writers import to_trace
from engine.base.atomic import write_atomic
from engine.base.errors import PipeLabError
from engine.base.text import format_time, time_text
from engine.base.validation import path_text, shown
from engine.model.schedule import Schedule
from gui.clock import Clock
from gui.colours import THEMES, Theme
from gui.export_formats import (
    ANIMATIONS,
    BY_SUFFIX,
    DEFAULT_FPS,
    DEFAULT_SIZE,
    DEFAULT_WIDTH,
    MAX_FPS,
    MAX_FRAMES,
    MAX_IMAGE_BYTES,
    MAX_SCALE,
    MAX_WIDTH,
    MIN_FPS,
    MIN_SCALE,
    MIN_WIDTH,
    SIZES,
    SUFFIXES,
    ExportFormat,
    names,
)
from gui.figure.layout import (
    PIXEL_TEXT,
    POINTS_PER_INCH,
    FigureOptions,
    build_figure,
    cursor_group,
)
from gui.figure.model import Embed, Figure, Group
from gui.figure.painter import paint_figure, render_image
from gui.figure.pdf_fonts import tag_subset_fonts
from gui.figure.rows import check_rows, derived_list
from gui.figure.svg import figure_svg
from gui.memory import release_freed_memory

#: The animations' frame rate unless told (kept under the name callers know).
GIF_FPS = DEFAULT_FPS
#: Screen pixels per inch: a PNG given in pixels is laid out as a screen shows it.
SCREEN_DPI = 96.0
#: Vector formats decide bars versus density at this many dots per point (144 dpi).
VECTOR_RESOLUTION = 2.0
PNG_QUALITY = 80
#: The assembly line is drawn at this height per lane, in its own pixels.
LANE_PIXELS = 250


def check_target(path: str | Path) -> str:
    """The export format of ``path`` (its suffix); PipeLabError if unknown or unwritable."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in BY_SUFFIX:
        raise PipeLabError(f"{path_text(target)}: {_unknown(suffix)}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise PipeLabError(f"{path_text(target)}: folder {path_text(folder)} does not exist")
    return suffix


def _unknown(suffix: str) -> str:
    given = shown(suffix) if suffix else "(no suffix)"
    return f"unknown export format {given} (use one of {', '.join(SUFFIXES)})"


def export_format(suffix: str) -> ExportFormat:
    """The table's entry for ``suffix``; PipeLabError if it names no format."""
    if suffix not in BY_SUFFIX:
        raise PipeLabError(_unknown(suffix))
    return BY_SUFFIX[suffix]


@dataclass(frozen=True)
class ExportPlan:
    """Everything an export will do, decided (and checked) before anything is drawn."""

    suffix: str
    options: FigureOptions
    pixels: float  # device pixels per point (images); 1 for vector formats
    assembly: bool
    assembly_time: float
    fps: int

    @property
    def format(self) -> ExportFormat:
        return BY_SUFFIX[self.suffix]

    @property
    def raster(self) -> bool:
        return self.format.raster


def plan_export(
    schedules: list[Schedule],
    suffix: str,
    *,
    width: int | None = None,
    size: str | None = None,
    scale: float = 1.0,
    transparent: bool = False,
    rows: str = "workers",
    theme: Theme | str = "light",
    time: float | None = None,
    with_assembly: bool = False,
    title: str = "",
    run_titles: tuple[str, ...] = (),
    caption: bool = True,
    note: str = "",
    fps: int = GIF_FPS,
) -> ExportPlan:
    """Check every option and decide the figure's layout options and pixel density."""
    if not schedules:
        raise PipeLabError("nothing to export: no schedules are shown")
    form = export_format(suffix)
    check_rows(rows)
    figure_theme = _theme(theme)
    if size is not None and size not in SIZES:
        raise PipeLabError(f"size must be one of {', '.join(SIZES)}, not {size!r}")
    if not (math.isfinite(scale) and MIN_SCALE <= scale <= MAX_SCALE):
        raise PipeLabError(f"scale must be between {MIN_SCALE:g} and {MAX_SCALE:g}, not {scale:g}")
    if width is not None and not MIN_WIDTH <= width <= MAX_WIDTH:
        raise PipeLabError(
            f"export width must be between {MIN_WIDTH} and {MAX_WIDTH:,} px, not {width}"
        )
    if not MIN_FPS <= fps <= MAX_FPS:
        raise PipeLabError(f"frame rate must be between {MIN_FPS} and {MAX_FPS}, not {fps}")
    end = max(s.makespan for s in schedules)
    if time is not None and not (math.isfinite(time) and 0 <= time <= end):
        unit = schedules[0].time_unit
        raise PipeLabError(
            f"time {time:g} is outside the run: give a time from 0 to {format_time(end, unit)}"
        )
    if transparent and form.figure and not form.transparent:
        raise PipeLabError(
            f"a transparent background is for {names('transparent')}, not animations"
        )
    animation = form.animation
    if with_assembly and form.figure and not form.assembly:
        raise PipeLabError(
            f"{form.name} cannot hold the assembly line as shapes and text (it draws pictures "
            "of its workers): export it to PDF or PNG, or leave out --assembly"
        )
    if form.raster and size is None:
        pixels_wide = width or DEFAULT_WIDTH
        options = FigureOptions(width=pixels_wide * POINTS_PER_INCH / SCREEN_DPI, text=PIXEL_TEXT)
        pixels = SCREEN_DPI / POINTS_PER_INCH * scale
    else:
        options = FigureOptions.for_size(size or DEFAULT_SIZE)
        if form.raster:
            # The size at 96 px per inch, in whole pixels, unless a width is given.
            pixels_wide = width or round(options.width * SCREEN_DPI / POINTS_PER_INCH)
            pixels = pixels_wide / options.width * scale
        else:
            pixels = 1.0
    resolution = pixels if form.raster else VECTOR_RESOLUTION
    assembly = with_assembly or animation
    options = replace(
        options,
        rows=rows,
        theme=figure_theme,
        time=0.0 if animation else time,
        caption=caption,
        note=note,
        title=title,
        run_titles=tuple(run_titles),
        transparent=transparent,
        resolution=resolution,
        assembly_height=_assembly_height(options.width, options.text, len(schedules))
        if assembly
        else 0.0,
    )
    return ExportPlan(suffix, options, pixels, assembly, time or 0.0, fps)


def _theme(theme: Theme | str) -> Theme:
    if isinstance(theme, Theme):
        return theme
    if theme not in THEMES:
        raise PipeLabError(f"theme must be one of {', '.join(THEMES)}, not {theme!r}")
    return THEMES[theme]


def _assembly_pixels(width: float) -> float:
    """The assembly line's own width in pixels for a figure ``width`` points wide: its
    12 px text lands near 7-9 pt on a page or slide (a column squeezes it below)."""
    return max(640.0, min(1400.0, width / 0.64))


def _assembly_height(width: float, text: float, lanes: int) -> float:
    inner = width - 2 * 0.9 * text
    return lanes * LANE_PIXELS * inner / _assembly_pixels(width)


def export(
    schedules: list[Schedule],
    path: str | Path,
    *,
    width: int | None = None,
    size: str | None = None,
    scale: float = 1.0,
    transparent: bool = False,
    rows: str = "workers",
    theme: Theme | str = "light",
    time: float | None = None,
    with_assembly: bool = False,
    title: str = "",
    run_titles: tuple[str, ...] = (),
    caption: bool = True,
    note: str = "",
    fps: int = GIF_FPS,
    derived: Sequence[Derived] | None = None,
) -> None:
    """Write ``schedules`` to ``path`` in the format its suffix names (see module doc).

    ``width`` (px) applies to images and animations; ``size`` lays a figure out at a
    physical width (the default for SVG and PDF: page). The cursor is drawn only when
    ``time`` is given. Animations always show the assembly line and a moving cursor.
    ``note``: the caption's words (else two runs' headline comparison). ``run_titles``:
    each run's heading, in order (else `gui.figure.heading.run_title`). ``derived``: each
    Schedule's `Derived` (its run's, in the app; else one made for this export).
    """
    suffix = check_target(path)
    if not BY_SUFFIX[suffix].figure:
        if not schedules:
            raise PipeLabError("nothing to export: no schedules are shown")
        write_atomic(path, to_trace(schedules).encode("utf-8"))
        return
    plan = plan_export(
        schedules,
        suffix,
        width=width,
        size=size,
        scale=scale,
        transparent=transparent,
        rows=rows,
        theme=theme,
        time=time,
        with_assembly=with_assembly,
        title=title,
        run_titles=run_titles,
        caption=caption,
        note=note,
        fps=fps,
    )
    times = frame_times(schedules, fps, suffix) if suffix in ANIMATIONS else []
    if QApplication.instance() is None:
        raise PipeLabError("exporting images needs a QApplication (run through the CLI)")
    shown = derived_list(schedules, derived)
    figure = build_figure(schedules, plan.options, shown)
    check_pixels(figure, plan, len(times))
    try:
        write_atomic(path, render(schedules, figure, plan, times, shown))
    finally:
        # The app keeps what is freed for its next run (`gui.memory.hold_freed_memory`):
        # an export's frames and buffers (0.26 GB for a GIF at 1,600 px) go back at once.
        release_freed_memory()


def check_pixels(figure: Figure, plan: ExportPlan, frames: int = 0) -> None:
    """PipeLabError when ``figure`` drawn as the plan says is larger than its image format
    holds or than memory allows (thousands of worker rows make a tall figure: a WebP of
    400 compute workers failed inside the encoder, a 4× PNG got a null image)."""
    if not plan.raster:
        return
    width, height = round(figure.width * plan.pixels), round(figure.height * plan.pixels)
    kind, side = plan.format.name, plan.format.max_side
    if max(width, height) > side:
        raise PipeLabError(
            f"this {kind} would be {width:,} × {height:,} px, and {kind} holds at most "
            f"{side:,} px a side: use a smaller width, another format or fewer rows"
        )
    needed = width * height * (4 + held_bytes(plan.suffix, frames))
    if needed > MAX_IMAGE_BYTES:
        held = plan.suffix == ".gif" and frames  # a WebP holds no frame but the one made
        frames_words = f" × {frames} frames" if held else ""
        raise PipeLabError(
            f"this {kind} would take {needed / 2**30:.1f} GiB of memory ({width:,} × "
            f"{height:,} px{frames_words}), more than the cap of 2 GiB: use a smaller width"
            f"{' or a lower frame rate' if held else ''}, or fewer rows"
        )


def held_bytes(suffix: str, frames: int) -> int:
    """Bytes a pixel an animation of ``frames`` frames holds beside its Qt image while it
    is encoded, frame by frame (`gui.figure.animation`). Measured (peak RSS over a PNG's,
    Pillow 13, 800-3,200 px wide): a GIF about 32 plus one a frame (its writer keeps every
    frame with its palette), a WebP about 48 whatever its frames (libwebp's lossless
    encoder)."""
    if not frames:
        return 0
    return 32 + frames if suffix == ".gif" else 48


@dataclass(frozen=True)
class Preview:
    """What an export with some options will write, laid out (not yet drawn), and a line
    saying its format and size ("PDF, 7 × 2.7 in (504 × 194 pt)")."""

    schedules: list[Schedule]
    figure: Figure
    plan: ExportPlan
    words: str
    derived: list[Derived]

    @property
    def text(self) -> float:
        """The figure's body text size, in points."""
        return self.plan.options.text

    def draw(self, pixels: float) -> QImage:
        """The figure drawn at ``pixels`` pixels per point, as the export draws it."""
        with _AssemblyPainter(self.schedules, self.plan, self.derived) as assembly:
            return render_image(self.figure, pixels, assembly.paint)


def preview(
    schedules: list[Schedule],
    suffix: str,
    *,
    derived: Sequence[Derived] | None = None,
    **options: object,
) -> Preview:
    """Lay out what an export with these options will write (checked as the export
    checks them), for the export dialog to draw at the size it has; ``derived`` as
    `export` takes it."""
    plan = plan_export(schedules, suffix, **options)  # type: ignore[arg-type]
    shown = derived_list(schedules, derived)
    figure = build_figure(schedules, plan.options, shown)
    if plan.raster:
        width, height = round(figure.width * plan.pixels), round(figure.height * plan.pixels)
        words = f"{plan.format.shown_as}, {width:,} × {height:,} px"
    else:
        inches = (figure.width / POINTS_PER_INCH, figure.height / POINTS_PER_INCH)
        words = (
            f"{plan.format.shown_as}, {inches[0]:.3g} × {inches[1]:.2g} in "
            f"({figure.width:.0f} × {figure.height:.0f} pt)"
        )
    return Preview(list(schedules), figure, plan, words, shown)


def render(
    schedules: list[Schedule],
    figure: Figure,
    plan: ExportPlan,
    times: list[float] | None = None,
    derived: Sequence[Derived] | None = None,
) -> bytes:
    """The bytes of ``figure`` in the plan's format (its writer in `FIGURE_WRITERS`)."""
    with _AssemblyPainter(schedules, plan, derived) as assembly:
        return FIGURE_WRITERS[plan.suffix](schedules, figure, plan, times or [], assembly)


class _AssemblyPainter:
    """Draws the assembly line (gui.assembly, through its public API) into the figure's
    `Embed`, at the plan's time or at a frame's time."""

    def __init__(
        self, schedules: list[Schedule], plan: ExportPlan, derived: Sequence[Derived] | None
    ) -> None:
        self.view = None
        self.time = plan.assembly_time
        if not plan.assembly:
            return
        from gui.assembly import AssemblyLineView

        self.clock = Clock()
        self.view = AssemblyLineView(self.clock, plan.options.theme)
        self.view.set_schedules(schedules, derived_list(schedules, derived))
        self.logical_width = _assembly_pixels(plan.options.width)
        self.view.resize(round(self.logical_width), LANE_PIXELS * len(schedules))

    def __enter__(self) -> _AssemblyPainter:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.view is not None:
            self.view.deleteLater()
            self.clock.deleteLater()
            self.view = None

    def paint(self, painter: QPainter, embed: Embed) -> None:
        if self.view is None:
            return
        ratio = embed.w / self.logical_width
        painter.translate(embed.x, embed.y)
        painter.scale(ratio, ratio)
        self.view.paint_on(painter, self.time)


def _png_bytes(image: QImage, plan: ExportPlan) -> bytes:
    dots = plan.pixels * POINTS_PER_INCH / 0.0254
    image.setDotsPerMeterX(round(dots))
    image.setDotsPerMeterY(round(dots))
    if not plan.options.transparent:
        image = image.convertToFormat(QImage.Format.Format_RGB32)
    # zlib level 1 (Qt maps quality 80 to it): a few times faster than the default
    # level and, on flat-coloured charts, barely bigger.
    # PySide6's stubs type the format as bytes; at run time it takes only str.
    return _qt_bytes(lambda buffer: image.save(buffer, "PNG", PNG_QUALITY))  # type: ignore[call-overload]


def _pdf_bytes(figure: Figure, assembly: _AssemblyPainter) -> bytes:
    def write(buffer: QBuffer) -> None:
        writer = QPdfWriter(buffer)
        writer.setResolution(72)  # one unit = one point, as the figure counts
        size = QPageSize(QSizeF(figure.width, figure.height), QPageSize.Unit.Point)
        writer.setPageLayout(
            QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0))
        )
        writer.setTitle(figure.meta.get("title", "PipeLab timeline"))
        writer.setCreator("PipeLab")
        painter = QPainter(writer)
        paint_figure(painter, figure, None, assembly.paint)
        painter.end()

    return tag_subset_fonts(_qt_bytes(write))


def _qt_bytes(write: object) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    write(buffer)  # type: ignore[operator]
    buffer.close()
    return bytes(data.data())


def _svg(
    schedules: list[Schedule],
    figure: Figure,
    plan: ExportPlan,
    times: list[float],
    assembly: _AssemblyPainter,
) -> bytes:
    return figure_svg(figure)


def _png(
    schedules: list[Schedule],
    figure: Figure,
    plan: ExportPlan,
    times: list[float],
    assembly: _AssemblyPainter,
) -> bytes:
    return _png_bytes(render_image(figure, plan.pixels, assembly.paint), plan)


def _pdf(
    schedules: list[Schedule],
    figure: Figure,
    plan: ExportPlan,
    times: list[float],
    assembly: _AssemblyPainter,
) -> bytes:
    return _pdf_bytes(figure, assembly)


def frame_times(schedules: list[Schedule], fps: int = GIF_FPS, suffix: str = ".gif") -> list[float]:
    """The times an animation shows: the run played as the app plays it at 1× (see
    Clock.rate), ``fps`` frames a second, first and last frame at 0 and the end."""
    clock = Clock()
    end = max((s.makespan for s in schedules), default=0.0)
    clock.set_timeline([end], end)
    seconds = end / clock.rate if clock.rate > 0 else 0.0
    count = max(2, math.ceil(seconds * fps) + 1)
    clock.deleteLater()
    if count > MAX_FRAMES:
        kind = "GIF" if suffix == ".gif" else "animation"
        raise PipeLabError(
            f"this {kind} would need {count} frames ({time_text(seconds)} at {fps} fps), more than "
            f"the cap of {MAX_FRAMES}: lower the frame rate"
        )
    return [end * i / (count - 1) for i in range(count)]


def gif_frame_times(schedules: list[Schedule], fps: int = GIF_FPS) -> list[float]:
    """`frame_times` of a GIF (kept for callers of the GIF-only name)."""
    return frame_times(schedules, fps, ".gif")


def _animation(
    schedules: list[Schedule],
    figure: Figure,
    plan: ExportPlan,
    times: list[float],
    assembly: _AssemblyPainter,
) -> bytes:
    """Frames: the figure drawn once without its cursor, then per frame the assembly
    line and the cursor at the frame's time on a copy."""
    from PIL import Image

    from gui.figure.animation import encode_animation, frame_of

    still = replace(figure, items=tuple(i for i in figure.items if not _is_cursor(i)))
    base = render_image(still, plan.pixels, None)

    def frames() -> Generator[Image.Image, None, None]:  # one at a time, as asked
        for time in times:
            image = base.copy()
            painter = QPainter(image)
            assembly.time = time
            overlay = replace(
                figure,
                background="",
                items=(
                    *(i for i in figure.items if isinstance(i, Embed)),
                    cursor_group(figure, plan.options, time, schedules),
                ),
            )
            paint_figure(painter, overlay, plan.pixels, assembly.paint)
            painter.end()
            yield frame_of(image)

    return encode_animation(frames(), len(times), plan.suffix, plan.fps)


def _is_cursor(item: object) -> bool:
    return isinstance(item, Group) and item.id == "cursor"


#: How each figure format of `gui.export_formats.FORMATS` is written (the trace is
#: `engine.analysis.writers.to_trace`); tests check every figure format has one.
FIGURE_WRITERS: dict[str, Callable[..., bytes]] = {
    ".png": _png,
    ".svg": _svg,
    ".pdf": _pdf,
    ".gif": _animation,
    ".webp": _animation,
}
