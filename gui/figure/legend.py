"""The legend of a Gantt: what its fills mean, laid out as figure primitives.

One layout for every figure's legend and for the app's legend line under its Gantt (which
paints it with the figure painter): "Idle: [hatch] waiting for input [hatch] waiting for a
buffer slot [hatch] no work left", then the density's ramp when drawn and the makespan's
mark. Op colours label themselves (op numbers in the bars) and get no entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gui.colours import IDLE_STYLES, OP_COLOURS, WAIT_TITLES, Theme, density_colours
from gui.figure.fonts import cap_height, text_width, wrapped
from gui.figure.model import Figure, FloatArray, Group, Hatch, Item, Line, Rects, Text

#: Text is never smaller than this (points).
MIN_TEXT = 7.0


def hatch_spacing(text: float) -> float:
    """Distance between hatch lines for body text of ``text`` points."""
    return 0.55 * text


def hatch_width(text: float) -> float:
    """Width of hatch lines for body text of ``text`` points."""
    return max(0.35, 0.07 * text)


@dataclass(frozen=True)
class Entry:
    """One legend entry: ``kind`` (a wait reason, "density", "makespan", "colours" for the
    op colours, "neutral" for a stage in the theme's ``fill``, or "note": words alone)
    and its words."""

    kind: str
    words: str
    fill: str = ""


def legend_entries(
    reasons: Iterable[str],
    rows: str = "workers",
    density: bool = False,
    makespan: bool = True,
    *,
    colours: str = "",
    neutral: Iterable[tuple[str, str]] = (),
    notes: Iterable[str] = (),
    slot: str = "",
) -> list[Entry]:
    """The entries: the op ``colours``' words when bars do not label them, each
    ``neutral`` stage's (fill, words), the wait ``reasons`` shown (in `IDLE_STYLES`
    order), the density's ramp when ``density`` (its pale end is idle, which shows alone
    on a row whose waits are all too thin to hatch), the makespan's mark when
    ``makespan``, and ``notes`` (words alone: "c = compute"). ``slot``: the slot wait's
    words when the runs name their pools (`engine.reasons.pool_waits.slot_words`)."""
    shown = set(reasons)
    entries = [Entry("colours", colours)] if colours else []
    entries += [Entry("neutral", words, fill) for fill, words in neutral]
    labels = {r: style.label for r, style in IDLE_STYLES.items()} | ({"slot": slot} if slot else {})
    entries += [Entry(r, labels[r]) for r in IDLE_STYLES if r in shown]
    if density:
        words = (
            "busy share per pixel, pale = idle (bars too thin to draw)"
            if rows == "workers"
            else "share of the workers busy with these ops"
        )
        entries.append(Entry("density", words))
    if makespan:
        entries.append(Entry("makespan", "makespan"))
    entries += [Entry("note", words) for words in notes]
    return entries


def lay_out_legend(
    entries: list[Entry],
    *,
    left: float,
    top: float,
    right: float,
    text: float,
    theme: Theme,
    rows: str = "workers",
    wait_title: bool = True,
) -> tuple[Group, float]:
    """``entries`` from (``left``, ``top``), wrapping at ``right``, the wait reasons after
    the row mode's title ("Idle:", "Ops wait:") when ``wait_title``; returns the group
    and its bottom."""
    f = text
    size = max(MIN_TEXT, f)
    swatch_w, swatch_h, line_h = 1.8 * f, 0.9 * f, 1.5 * f
    x, y = left, top
    items: list[Item] = []
    waits = [e for e in entries if e.kind in IDLE_STYLES]
    if waits and wait_title:
        title = WAIT_TITLES.get(rows, WAIT_TITLES["workers"])
        baseline = y + line_h / 2 - 0.2 * f + cap_height(size) / 2
        items.append(Text(x, baseline, title, size, theme.text, bold=True, cls="legend-title"))
        x += text_width(title, size, bold=True) + 0.6 * f
    for entry in entries:
        swatch = 0.0 if entry.kind == "note" else swatch_w + 0.4 * f
        room = right - left - swatch - 1.2 * f
        lines = [entry.words]
        if text_width(entry.words, size) > room:  # (a shape's pools by name, at column width)
            lines = wrapped(entry.words, size, room)
        need = swatch + max(text_width(line, size) for line in lines) + 1.2 * f
        if x > left and x + need > right:
            x, y = left, y + line_h
        sy = y + (line_h - swatch_h) / 2 - 0.2 * f
        items.extend(_swatch(entry, x, sy, swatch_w, swatch_h, f, theme, rows))
        baseline = sy + swatch_h / 2 + cap_height(size) / 2
        for k, line in enumerate(lines):
            label = Text(x + swatch, baseline + k * line_h, line, size, theme.text)
            items.append(_with_class(label, f"legend-label legend-{entry.kind}"))
        x += need
        if len(lines) > 1:  # its last line is full: the next entry starts under it
            x, y = right, y + (len(lines) - 1) * line_h
    return Group(tuple(items), id="legend"), y + line_h


def legend_figure(
    entries: list[Entry], width: float, text: float, theme: Theme, rows: str = "workers"
) -> Figure:
    """The legend alone, ``width`` points wide, on a transparent background (the app's
    legend line draws this with the figure painter)."""
    margin = 0.5 * text
    group, bottom = lay_out_legend(
        entries,
        left=margin,
        top=0.3 * text,
        right=width - margin,
        text=text,
        theme=theme,
        rows=rows,
    )
    return Figure(width=width, height=bottom + 0.1 * text, background="", items=(group,))


def _with_class(text: Text, cls: str) -> Text:
    return Text(text.x, text.y, text.text, text.size, text.colour, text.anchor, text.bold, cls)


def _swatch(
    entry: Entry, x: float, y: float, w: float, h: float, f: float, theme: Theme, rows: str
) -> list[Item]:
    kind = entry.kind

    def box(
        left: float, width: float, pad: float = 0.0
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        one = [np.array([v], dtype=np.float64) for v in (left - pad, y - pad, width, h + 2 * pad)]
        return one[0], one[1], one[2], one[3]

    if kind in IDLE_STYLES:
        style = IDLE_STYLES[kind]
        tint = getattr(theme, style.tint)
        items: list[Item] = [Rects(*box(x, w), fill=tint, cls=f"legend-swatch idle-{kind}")]
        if style.angles:
            hatch = Hatch(
                *box(x, w),
                reason=kind,
                angles=style.angles,
                spacing=hatch_spacing(f),
                colour=theme.idle_hatch,
                width=hatch_width(f),
                cls=f"legend-swatch idle-{kind}",
            )
            items.append(hatch)
        return items
    if kind == "note":
        return []
    if kind == "neutral":
        return [Rects(*box(x, w), fill=getattr(theme, entry.fill), cls="legend-swatch neutral")]
    if kind in ("density", "colours"):
        if kind == "density":  # from its pale end (idle) to fully busy
            ramp = density_colours(theme, "idle" if rows == "workers" else "background")
            steps = 6
            fills = [ramp[round(k * (len(ramp) - 1) / (steps - 1))].name() for k in range(steps)]
        else:
            fills = list(OP_COLOURS[:4])
        step_w = w / len(fills)
        ramp_items: list[Item] = [
            Rects(*box(x + k * step_w, step_w + 0.01), fill=fill, cls=f"legend-swatch {kind}")
            for k, fill in enumerate(fills)
        ]
        if kind == "density":  # a frame: its pale end is the background's colour
            edge = max(0.3, 0.05 * f)
            frame = Rects(
                *box(x, w + 2 * edge, edge),
                fill=theme.grid,
                cls="legend-swatch density-frame",
            )
            ramp_items.insert(0, frame)
        return ramp_items
    middle = x + w / 2
    return [
        Line(
            middle,
            y - 0.1 * f,
            middle,
            y + h + 0.1 * f,
            theme.text,
            max(0.6, 0.11 * f),
            dash=(0.45 * f, 0.3 * f),
            cls="legend-swatch makespan",
        )
    ]
