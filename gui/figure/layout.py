"""ONE layout of a Gantt figure, computed without painting: every bar, hatch, label,
title, tick, makespan mark, legend entry, caption and cursor, in points.

PNG, PDF, SVG, animation frames and the export dialog's preview all draw the `Figure` this
builds (`gui.figure.painter`, `gui.figure.svg`), so no format can lose what another shows.
Physical sizes: a column (3.5 in), a page (7 in) or a slide (13.33 in) wide, height from
the content; text never below 7 pt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.analysis.derived import Derived
from engine.analysis.metrics import speedup
from engine.analysis.stats import comparison
from engine.base.errors import PipeLabError
from engine.base.text import TimeScale, axis_scale, axis_title, tick_text
from engine.model.schedule import Schedule
from engine.reasons.pool_waits import slot_words
from gui.colours import LIGHT, Theme
from gui.export_formats import SIZES
from gui.figure.cursor import lay_out_cursor
from gui.figure.fonts import cap_height, one_line, text_width, wrapped
from gui.figure.frame import Frame
from gui.figure.legend import MIN_TEXT, lay_out_legend, legend_entries
from gui.figure.model import Embed, Figure, Group, Item, Line, Text, texts_of
from gui.figure.row_labels import nice_step, row_labels, row_pitch
from gui.figure.rows import check_rows, derived_list
from gui.figure.run_group import RunLayout, figure_time, lay_out_run

#: The body text size (points) of each physical width (`gui.export_formats.SIZES`, inches).
SIZE_TEXT: dict[str, float] = {"column": 7.0, "page": 8.0, "slide": 12.0}
#: A PNG given in pixels is laid out at 96 pixels per inch with this text size (12 px).
PIXEL_TEXT = 9.0
POINTS_PER_INCH = 72.0


@dataclass(frozen=True)
class FigureOptions:
    """What a figure shows and how big it is (``width`` and ``text`` in points)."""

    width: float = SIZES["page"] * POINTS_PER_INCH
    text: float = SIZE_TEXT["page"]
    rows: str = "workers"
    theme: Theme = LIGHT
    time: float | None = None
    caption: bool = True
    #: The caption's words when the caller has them (a warp run's headline numbers);
    #: else two runs' comparison (`caption_text`).
    note: str = ""
    legend: bool = True
    title: str = ""
    #: Each run's heading, in order (`heading.run_title` for a run without one): the app
    #: names a pinned run and the run it is compared with by how they differ.
    run_titles: tuple[str, ...] = ()
    transparent: bool = False
    #: Device pixels per point: where bars turn into density, and the density's columns.
    resolution: float = 2.0
    #: Points of height kept for the assembly line above the Gantt (0: none).
    assembly_height: float = 0.0

    @classmethod
    def for_size(cls, size: str, **changes: object) -> FigureOptions:
        if size not in SIZES:
            raise PipeLabError(f"size must be one of {', '.join(SIZES)}, not {size!r}")
        options = cls(width=SIZES[size] * POINTS_PER_INCH, text=SIZE_TEXT[size])
        return replace(options, **changes)  # type: ignore[arg-type]


def caption_text(schedules: Sequence[Schedule]) -> str:
    """The headline when two runs are shown: "sequential 9 s → pipelined 5 s, 1.8×"; none
    where the stats compare nothing (`engine.analysis.stats.comparison`: two devices of a trace)."""
    if len(schedules) != 2 or comparison(list(schedules)) is None:
        return ""
    a, b = schedules
    factor = speedup(a, b)
    return (
        f"{a.label or a.policy} {figure_time(a.makespan, a.time_unit)} → "
        f"{b.label or b.policy} {figure_time(b.makespan, b.time_unit)}, {factor:.3g}×"
    )


def time_scale_of(schedules: Sequence[Schedule]) -> TimeScale:
    """The time axis's scale: the SI prefix of the longest makespan ("time (ms)")."""
    unit = schedules[0].time_unit if schedules else "s"
    return axis_scale(max((s.makespan for s in schedules), default=0.0), unit)


def time_label(schedules: Sequence[Schedule]) -> str:
    return axis_title(time_scale_of(schedules))


def ticks(t1: float, width: float, size: float, scale: TimeScale | None = None) -> list[float]:
    """Round tick values from 0 to ``t1``: the finest 1-2-5 step whose labels (in
    ``scale``) keep at least four text heights (and two between labels) apart over
    ``width`` points."""
    if t1 <= 0:
        return [0.0]
    scale = scale or axis_scale(t1)
    step = nice_step(t1 / 40)
    for _ in range(40):
        values = [k * step for k in range(math.floor(t1 / step * (1 + 1e-9)) + 1)]
        widest = max(text_width(tick_text(v, step, scale), size) for v in values)
        if width * step / t1 >= max(widest + 2.2 * size, 4.0 * size) or len(values) <= 2:
            return values
        step = nice_step(step * 1.5)
    return values


def build_figure(
    schedules: Sequence[Schedule],
    options: FigureOptions,
    derived: Sequence[Derived] | None = None,
) -> Figure:
    """Lay out ``schedules`` (top to bottom, one time scale) as ``options`` say;
    ``derived``: each one's `Derived` (its run's; else one made for this figure)."""
    check_rows(options.rows)
    shown = derived_list(schedules, derived)
    theme, f = options.theme, options.text
    size = max(MIN_TEXT, f)
    margin = 0.9 * f
    width = options.width
    items: list[Item] = []
    y = margin
    header: list[Item] = []
    # The title and the caption wrap onto a second line before anything is cut.
    if options.title:
        big = max(MIN_TEXT, 1.3 * f)
        lines = wrapped(options.title, big, width - 2 * margin, bold=True)
        for k, line in enumerate(lines):
            baseline = y + cap_height(big) + k * 1.25 * big
            header.append(Text(margin, baseline, line, big, theme.text, bold=True, cls="title"))
        y += 1.75 * f + (len(lines) - 1) * 1.25 * big
    caption = (options.note or caption_text(schedules)) if options.caption else ""
    if caption:
        lines = wrapped(caption, size, width - 2 * margin)
        for k, line in enumerate(lines):
            baseline = y + cap_height(size) + k * 1.25 * size
            header.append(Text(margin, baseline, line, size, theme.muted, cls="caption"))
        y += 1.45 * f + (len(lines) - 1) * 1.25 * size
    if header:
        items.append(Group(tuple(header), id="heading"))
        y += 0.35 * f
    if options.assembly_height > 0:
        items.append(Embed(margin, y, width - 2 * margin, options.assembly_height, "assembly"))
        y += options.assembly_height + 0.5 * f

    t1 = max((s.makespan for s in schedules), default=0.0) or 1.0
    probe = Frame(0.0, 1.0, 0.0, t1, f, theme, options.rows, options.resolution)
    gutter = 0.0
    for s in schedules:
        for _, words in row_labels(s, probe, row_pitch(s, probe)):
            gutter = max(gutter, text_width(words, size))
    plot_left = margin + gutter + 0.5 * f
    tick_size = size
    scale = time_scale_of(schedules)
    right_pad = max(0.6 * f, text_width(tick_text(t1, t1, scale), tick_size) / 2)
    plot_right = width - margin - right_pad
    if plot_right - plot_left < 4 * f:
        raise PipeLabError(f"the figure is too narrow ({width:.0f} pt) for its row labels")
    frame = Frame(plot_left, plot_right, 0.0, t1, f, theme, options.rows, options.resolution)

    cursor_line_y = None
    if options.time is not None:
        cursor_line_y = y + cap_height(size)
        y += 1.4 * f
    plot_top = y
    runs: list[Item] = []
    density = False
    reasons: set[str] = set()
    laid: list[RunLayout] = []
    spans: list[tuple[float, float]] = []
    for index, one in enumerate(shown):
        named = options.run_titles[index] if index < len(options.run_titles) else ""
        run = lay_out_run(one, index, frame, y, named)
        runs.append(run.group)
        spans.append((run.rows_top, run.rows_bottom))
        density |= run.density
        reasons |= run.reasons
        laid.append(run)
        y = run.rows_bottom + 0.9 * f
    plot_bottom = y - 0.9 * f + 0.35 * f
    values = ticks(t1, plot_right - plot_left, tick_size, scale)
    grid = tuple(
        Line(
            frame.x(v),
            plot_top,
            frame.x(v),
            plot_bottom,
            theme.grid,
            max(0.3, 0.05 * f),
            cls="grid",
        )
        for v in values
    )
    items.append(Group(grid, id="grid"))
    items.extend(runs)
    axis, y = _axis(schedules, frame, values, plot_bottom, tick_size)
    items.append(axis)
    if options.time is not None and cursor_line_y is not None:
        unit = schedules[0].time_unit if schedules else "s"
        labels = [t for run in laid for t in texts_of((run.group,), "task-label")]
        cursor = lay_out_cursor(frame, options.time, spans, cursor_line_y, size, unit, labels)
        items.append(cursor)
    if options.legend:
        entries = legend_entries(
            reasons, options.rows, density, **legend_extras(laid), slot=slot_words(*schedules)
        )
        legend, y = lay_out_legend(
            entries,
            left=margin,
            top=y + 0.5 * f,
            right=width - margin,
            text=f,
            theme=theme,
            rows=options.rows,
            wait_title=all(run.kind.wait_title for run in laid),
        )
        if legend.items:
            items.append(legend)
    height = y + margin
    return Figure(
        width=width,
        height=height,
        background="" if options.transparent else theme.background,
        items=tuple(items),
        plot_left=plot_left,
        plot_right=plot_right,
        plot_top=plot_top,
        plot_bottom=plot_bottom,
        t0=0.0,
        scale=frame.scale,
        time_unit=schedules[0].time_unit if schedules else "s",
        cursor_label_y=cursor_line_y or 0.0,
        runs=tuple(spans),
        meta={"title": one_line(options.title) or "PipeLab timeline", "caption": caption},
    )


def legend_extras(runs: Sequence[RunLayout]) -> dict[str, Any]:
    """What the runs add to the legend (`legend_entries`' keywords): the op colours'
    words where bars do not say their op, the neutral stages drawn, and what a stage's
    initial stands for where bars are too short for its name ("c = compute")."""
    colours = next((run.kind.colour_words for run in runs if run.coloured), "")
    neutral: dict[str, str] = {}
    for run in runs:
        for stage in run.kind.neutral:
            if stage.stage in run.neutral:
                neutral.setdefault(stage.fill, stage.words)
    names = [name for run in runs for name in run.initials]
    notes = ", ".join(f"{name[:1]} = {name}" for name in dict.fromkeys(names))
    return {
        "colours": colours,
        "neutral": tuple(neutral.items()),
        "notes": (notes,) if notes else (),
    }


def _axis(
    schedules: Sequence[Schedule], frame: Frame, values: list[float], top: float, size: float
) -> tuple[Group, float]:
    """The time axis under the last run: a line, ticks, their values and the unit."""
    f, theme = frame.text, frame.theme
    stroke = max(0.5, 0.08 * f)
    items: list[Item] = [
        Line(frame.plot_left, top, frame.plot_right, top, theme.muted, stroke, cls="axis-line")
    ]
    label_y = top + 0.45 * f + cap_height(size)
    scale = time_scale_of(schedules)
    step = values[1] - values[0] if len(values) > 1 else 1.0
    for v in values:
        x = frame.x(v)
        words = tick_text(v, step, scale)
        items.append(Line(x, top, x, top + 0.35 * f, theme.muted, stroke, cls="tick"))
        items.append(Text(x, label_y, words, size, theme.text, anchor="middle", cls="tick-label"))
    title_y = label_y + 1.55 * f
    middle = (frame.plot_left + frame.plot_right) / 2
    words = time_label(schedules)
    items.append(Text(middle, title_y, words, size, theme.muted, anchor="middle", cls="axis-title"))
    return Group(tuple(items), id="time-axis"), title_y + 0.35 * f


def cursor_group(
    figure: Figure, options: FigureOptions, time: float, schedules: Sequence[Schedule]
) -> Group:
    """The cursor at ``time`` over a figure laid out with a cursor line kept (animation
    frames draw it on a copy of the finished figure)."""
    t1 = figure.t0 + (figure.plot_right - figure.plot_left) / figure.scale
    frame = Frame(
        figure.plot_left,
        figure.plot_right,
        figure.t0,
        t1,
        options.text,
        options.theme,
        options.rows,
        options.resolution,
    )
    size = max(MIN_TEXT, options.text)
    unit = schedules[0].time_unit if schedules else "s"
    labels = figure.texts("task-label")
    return lay_out_cursor(frame, time, figure.runs, figure.cursor_label_y, size, unit, labels)
