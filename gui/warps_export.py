"""The Warps tab's export: a warp run's timeline as a figure you can put in a paper.

It is the pipeline exports' own layout (`gui.export`, `gui.figure`): a row label per warp
and for the issue unit, the run's title, a time axis in cycles, the makespan, a legend for
what the fills mean (a warp's compute bursts in its colour, its loads in flight, its
stalls, the issue unit idle) and the run's headline numbers as the caption, at physical
sizes and in either theme, as PNG, SVG or PDF. The view's widgets (its spin boxes, the SM
panel, the utilization-against-W plot) are not grabbed: the plot's numbers for this run
(busy share, model, knee) are in the caption.
"""

from __future__ import annotations

from pathlib import Path

from engine.base.errors import PipeLabError
from engine.base.validation import path_text, shown
from engine.latency.warps import WarpRun
from gui.colours import Theme
from gui.export_formats import BY_SUFFIX, WARPS_SUFFIXES, words_list

#: What the Warps tab exports to (`ExportFormat.warps`). Animations are the pipeline's
#: assembly line over its Gantt; a warp run has no assembly line, and its own animation
#: is the tab itself.
EXPORT_SUFFIXES = WARPS_SUFFIXES
FIGURE_TITLE = "Warp latency hiding on one SM"


def export_warps(
    run: WarpRun,
    path: str | Path,
    *,
    width: int | None = None,
    size: str | None = None,
    scale: float = 1.0,
    theme: Theme | str = "light",
    time: float | None = None,
    transparent: bool = False,
    title: str = FIGURE_TITLE,
) -> None:
    """Write ``run``'s timeline to ``path`` (.png, .svg or .pdf), atomically.

    ``width`` (px) and ``scale`` apply to PNG; ``size`` (column, page, slide) lays the
    figure out at a physical width (SVG and PDF: a page by default). The cursor is drawn
    only when ``time`` (in cycles) is given."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise PipeLabError(
            f"{path_text(target.name)}: export as {words_list(EXPORT_SUFFIXES, 'or')}, not "
            f"{shown(suffix) if suffix else 'nothing'}"
        )
    from gui.export import export  # Qt's painting and PDF writer: only when exporting

    raster = BY_SUFFIX[suffix].raster

    export(
        [run.schedule],
        target,
        width=width if raster else None,
        size=size,
        scale=scale if raster else 1.0,
        theme=theme,
        time=time,
        title=title,
        note=run.headline,
        transparent=transparent,
    )
