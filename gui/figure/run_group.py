"""One run (Schedule) of a figure: its title and makespan, its rows with their labels, the
pale idle rows with hatched idle spans, density where bars are thinner than a pixel, and
the bars in op colours with their op numbers (or stage names, one row per op)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtGui import QColor

from engine.analysis.derived import Derived
from engine.base.text import time_text
from gui.colours import OP_COLOURS, density_colours, idle_style, ink_on
from gui.figure.bars import BAR_HEIGHT, THIN_PIXELS, BarPlan, DensityRuns, plan_bars
from gui.figure.fonts import cap_height, descent, text_width
from gui.figure.frame import Frame
from gui.figure.heading import lay_out_heading, makespan_line
from gui.figure.kinds import RunKind, kind_of
from gui.figure.legend import MIN_TEXT
from gui.figure.model import FloatArray, Group, Hatch, Item, Rects, Text
from gui.figure.row_labels import row_labels, row_pitch, sparse
from gui.figure.rows import idle_spans_in, row_count, task_rows

#: Bars get an outline when at least this many device pixels wide (and not too many).
OUTLINE_PIXELS = 4.0
OUTLINE_LIMIT = 20_000
#: At most this many bars get a text label.
LABEL_LIMIT = 2_000
#: Rows get their own SVG group up to this many rows per run.
ROW_GROUP_LIMIT = 200


#: A time on a figure: the one formatter, `engine.base.text.time_text` ("2.5 s", "723 ms",
#: "3,000,000 s").
figure_time = time_text


@dataclass(frozen=True)
class RunLayout:
    """What `lay_out_run` made: the run's group, where its rows are, and what its legend
    needs (density drawn, idle reasons hatched, the kind of run and its neutral stages
    drawn, stage names shortened to their initial in bars)."""

    group: Group
    rows_top: float
    rows_bottom: float
    density: bool
    reasons: frozenset[str]
    kind: RunKind
    neutral: frozenset[int] = frozenset()
    initials: tuple[str, ...] = ()  # in stage order
    coloured: bool = False  # bars drawn in op colours


def lay_out_run(
    derived: Derived, index: int, frame: Frame, top: float, title: str = ""
) -> RunLayout:
    """Lay out ``derived``'s Schedule (the ``index``-th run) from ``top`` down, headed
    ``title`` (its `run_title` when not given)."""
    return _Run(derived, index, frame, top, title).lay_out()


class _Run:
    def __init__(
        self, derived: Derived, index: int, frame: Frame, top: float, title: str = ""
    ) -> None:
        schedule = derived.schedule
        self.derived = derived
        self.s = schedule
        self.index = index
        self.frame = frame
        self.f = frame.text
        self.size = max(MIN_TEXT, frame.text)
        self.top = top
        self.heading = lay_out_heading(schedule, frame, top, title)
        self.rows_top = top + self.heading.height
        self.pitch = row_pitch(schedule, frame)
        self.n = row_count(schedule, frame.rows)
        self.rows_bottom = self.rows_top + self.n * self.pitch
        self.bar_h = BAR_HEIGHT * self.pitch
        self.rows = task_rows(schedule, frame.rows)
        self.per_row: dict[int, list[Item]] = {}
        self.flat: list[Item] = []
        self.kind = kind_of(schedule)
        self.kind.check_rows(frame.rows)
        self.neutral: set[int] = set()  # neutral stages drawn
        self.initials: set[str] = set()  # stage names shown by their initial
        self.coloured = False

    def y(self, row: float) -> float:
        return self.rows_top + (row + 0.5) * self.pitch

    def ys(self, rows: FloatArray) -> FloatArray:
        return np.asarray(self.rows_top + (rows + 0.5) * self.pitch, dtype=np.float64)

    def put(self, row: int, item: Item) -> None:
        (self.per_row[row] if self.per_row else self.flat).append(item)

    def lay_out(self) -> RunLayout:
        frame, s = self.frame, self.s
        plan = plan_bars(
            s.start,
            s.end,
            self.rows,
            n_rows=self.n,
            t0=frame.t0,
            t1=frame.t1,
            pixels=(frame.plot_right - frame.plot_left) * frame.resolution,
            row_pixels=self.pitch * frame.resolution,
            capacity=s.n_workers if frame.rows == "ops" else None,
        )
        if self.n <= ROW_GROUP_LIMIT and not plan.banded:
            self.per_row = {r: [] for r in range(self.n)}
        self.row_labels()
        self.idle_rows()
        reasons = self.hatch_idle(plan)
        density = plan.density is not None and len(plan.density) > 0
        if plan.density is not None and density:
            self.density(plan.density, "idle" if frame.rows == "workers" else "background")
        if len(plan.wide):
            self.bars(plan)
        heading = self.heading
        items: list[Item] = [heading.title]
        if self.per_row:
            for row in range(self.n):
                items.append(
                    Group(
                        tuple(self.per_row[row]),
                        id=f"run-{self.index + 1}-row-{row + 1}",
                        cls=f"row {self.row_class(row)}",
                    )
                )
        else:
            items.extend(self.flat)
        line = makespan_line(s, frame, self.rows_top, self.rows_bottom)
        items.extend(item for item in (line, heading.makespan) if item is not None)
        cls = f"run {self.kind.name} {css(s.policy)}"
        group = Group(tuple(items), id=f"run-{self.index + 1}", cls=cls)
        return RunLayout(
            group,
            self.rows_top,
            self.rows_bottom,
            density,
            frozenset(reasons),
            self.kind,
            frozenset(self.neutral),
            tuple(name for name in s.stage_names if name in self.initials),
            self.coloured,
        )

    def row_class(self, row: int) -> str:
        if self.frame.rows == "ops":
            return f"op-row op-{row + 1}"
        unit = int(np.searchsorted(self.s.worker_offsets, row, side="right") - 1)
        return f"unit-{css(self.s.unit_names[unit])}"

    def row_labels(self) -> None:
        """A label per row, centred on it; where rows are too thin for one each, the
        labels stay within the run's rows (the last one sat on the time axis)."""
        thin = sparse(self.frame, self.pitch)
        for row, words in row_labels(self.s, self.frame, self.pitch):
            x = self.frame.plot_left - 0.5 * self.f
            y = self.y(row) + cap_height(self.size) / 2
            if thin:
                low = self.rows_top + cap_height(self.size)
                y = min(max(y, low), self.rows_bottom - descent(self.size))
            text = Text(
                x, y, words, self.size, self.frame.theme.text, anchor="end", cls="row-label"
            )
            self.put(row, text)

    def idle_rows(self) -> None:
        """Each worker's row is pale from 0 to the run's makespan: idle unless a bar or the
        density covers it."""
        frame, span = self.frame, self.s.makespan
        if frame.rows != "workers" or span <= 0:
            return
        width = frame.x(min(span, frame.t1)) - frame.plot_left
        for row in range(self.n):
            y = self.y(row) - self.bar_h / 2
            rect = Rects(
                *_one(frame.plot_left, y, width, self.bar_h), fill=frame.theme.idle, cls="row-idle"
            )
            self.put(row, rect)

    def hatch_idle(self, plan: BarPlan) -> set[str]:
        """Hatch waits at least `THIN_PIXELS` wide (thinner ones show in the density's
        shade) in their reason's style: its tint where it differs from what lies under
        (the pale idle row; one row per op: the background), then its lines. Returns the
        reasons drawn."""
        if plan.banded or not plan.gaps:
            return set()
        frame = self.frame
        # A span must be so long to show so wide after clipping to the frame (a hair
        # shorter: the test below rounds its own way).
        per_second = frame.scale * frame.resolution
        shortest = THIN_PIXELS / per_second * (1 - 1e-9) if per_second > 0 else np.inf
        spans = idle_spans_in(self.derived, frame.rows, frame.t0, frame.t1, None, shortest)
        if not len(spans):
            return set()
        a = np.maximum(spans.start, frame.t0)
        b = np.minimum(spans.end, frame.t1)
        wide = (b - a) * frame.scale * frame.resolution >= THIN_PIXELS
        under = frame.theme.idle if frame.rows == "workers" else frame.theme.background
        drawn: set[str] = set()
        for code, reason in enumerate(spans.reasons):
            mask = wide & (spans.code == code)
            if not mask.any():
                continue
            drawn.add(reason)
            style = idle_style(reason)
            tint = getattr(frame.theme, style.tint)
            rows, x0, x1 = spans.row[mask], frame.xs(a[mask]), frame.xs(b[mask])
            for row in np.unique(rows).tolist():
                here = rows == row
                count = int(here.sum())
                x, w = x0[here], x1[here] - x0[here]
                y, h = np.full(count, self.y(row) - self.bar_h / 2), np.full(count, self.bar_h)
                if tint != under:
                    self.put(row, Rects(x, y, w, h, fill=tint, cls=f"idle-tint idle-{reason}"))
                if style.angles:
                    hatch = Hatch(
                        x,
                        y,
                        w,
                        h,
                        reason=reason,
                        angles=style.angles,
                        spacing=frame.hatch_spacing(),
                        colour=frame.theme.idle_hatch,
                        width=frame.hatch_width(),
                        cls=f"idle idle-{reason}",
                    )
                    self.put(row, hatch)
        return drawn

    def density(self, runs: DensityRuns, base: str) -> None:
        """Density runs as rectangles, one batch per shade (and per row when rows are
        grouped)."""
        colours = density_colours(self.frame.theme, base)
        x0 = self.frame.xs(runs.t)
        x1 = self.frame.xs(runs.t + runs.length)
        top, bottom = self.ys(runs.top), self.ys(runs.bottom)
        row_of = np.rint((runs.top + runs.bottom) / 2).astype(np.int64)
        levels = len(colours)
        keys = row_of * levels + runs.level if self.per_row else runs.level
        for key in np.unique(keys).tolist():
            mask = keys == key
            rects = Rects(
                x0[mask],
                top[mask],
                x1[mask] - x0[mask],
                bottom[mask] - top[mask],
                fill=colours[key % levels].name(),
                cls="density",
            )
            self.put(key // levels if self.per_row else 0, rects)

    def bars(self, plan: BarPlan) -> None:
        """Wide tasks as bars in op colours (a neutral stage in its fill), outlined when
        wide, one batch per row and fill, with labels where they fit."""
        frame, s, wide = self.frame, self.s, plan.wide
        ops = s.op[wide]
        x0 = frame.xs(np.maximum(s.start[wide], frame.t0))
        x1 = frame.xs(np.minimum(s.end[wide], frame.t1))
        task_row = self.rows[wide]
        centre = self.ys(task_row.astype(np.float64))
        colours = len(OP_COLOURS)
        fills = [QColor(c) for c in OP_COLOURS]
        fill_of = self.kind.colour_keys(s, wide) % colours
        stages = s.stage[wide]
        for k, neutral in enumerate(self.kind.neutral):
            fills.append(frame.theme.colour(neutral.fill))
            here = stages == neutral.stage
            fill_of = np.where(here, colours + k, fill_of)
            if here.any():
                self.neutral.add(neutral.stage)
        outline = (
            len(wide) <= OUTLINE_LIMIT
            and float(np.median(x1 - x0)) * frame.resolution >= OUTLINE_PIXELS
        )
        keys = task_row * len(fills) + fill_of
        for key in np.unique(keys).tolist():
            mask = keys == key
            index = key % len(fills)
            colour = fills[index]
            if index < colours:
                name = f"colour-{index + 1}"
            else:
                name = f"stage-{css(s.stage_names[self.kind.neutral[index - colours].stage])}"
            edged = outline and index < colours  # a neutral stage is a state, not a task
            rects = Rects(
                x0[mask],
                centre[mask] - self.bar_h / 2,
                x1[mask] - x0[mask],
                np.full(int(mask.sum()), self.bar_h),
                fill=colour.name(),
                stroke=colour.darker(135).name() if edged else "",
                stroke_width=max(0.3, 0.06 * self.f) if edged else 0.0,
                cls=f"task {name}",
                ops=ops[mask],
            )
            self.put(key // len(fills), rects)
        labelled = fill_of < colours
        self.coloured = bool(labelled.any())
        if self.kind.labelled_units is not None:
            labelled &= np.isin(s.unit[wide], self.kind.labelled_units)
        self.bar_labels(np.flatnonzero(labelled), wide, x0, x1, centre, task_row)

    def bar_labels(
        self,
        chosen: np.ndarray,
        wide: np.ndarray,
        x0: FloatArray,
        x1: FloatArray,
        centre: FloatArray,
        task_row: np.ndarray,
    ) -> None:
        """ "op 12" (or "12"; one row per op: the stage's name, or its initial) in the
        ``chosen`` bars (indexes into ``wide``) wide enough for it."""
        size = max(MIN_TEXT, min(0.85 * self.f, 0.75 * self.bar_h))
        if self.bar_h < size * 0.95:
            return
        width = x1 - x0
        candidates = chosen[width[chosen] >= text_width("8", size) + 0.4 * size]
        if len(candidates) > LABEL_LIMIT:
            return
        names, stages, ops = self.s.stage_names, self.s.stage[wide], self.s.op[wide]
        for i in candidates.tolist():
            op = int(ops[i])
            if self.frame.rows == "ops":
                name = names[int(stages[i])]
                words = [name, name[:1]]
            else:
                words = self.kind.bar_words(self.s, op)
            text = next((w for w in words if text_width(w, size) + 0.4 * size <= width[i]), "")
            if not text:
                continue
            if self.frame.rows == "ops" and text != words[0]:
                self.initials.add(words[0])
            colour = int(self.kind.colour_keys(self.s, wide[i : i + 1])[0])
            ink = ink_on(QColor(OP_COLOURS[colour % len(OP_COLOURS)])).name()
            x = float(x0[i] + x1[i]) / 2
            y = float(centre[i]) + cap_height(size) / 2
            self.put(
                int(task_row[i]), Text(x, y, text, size, ink, anchor="middle", cls="task-label")
            )


def css(words: str) -> str:
    """``words`` as a CSS class name."""
    return "".join(c if c.isalnum() else "-" for c in words.lower()).strip("-") or "run"


def _one(
    x: float, y: float, w: float, h: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """One rectangle as the four one-element columns `Rects` takes."""
    column = [np.array([v], dtype=np.float64) for v in (x, y, w, h)]
    return column[0], column[1], column[2], column[3]
