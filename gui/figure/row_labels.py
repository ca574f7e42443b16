"""How tall a run's rows are and which of them get a label.

Rows are tall enough for a label each up to `OPS_ROWS_TALL` rows per op, or the kind of
run's `worker_rows_tall` rows per worker (a warp run: 20, for 64 warps); beyond, they thin
out to keep the run that tall, and labels go to each unit's first row ("warp 1", "issue
unit"; one row per op: "op 1") and to rows at a round step between ("op 250", "op 500",
"warp 10"), never closer than 1.2 text heights (1.5 for a unit's last row).
"""

from __future__ import annotations

import bisect

import numpy as np

from engine.model.schedule import Schedule
from gui.figure.frame import Frame
from gui.figure.kinds import kind_of
from gui.figure.legend import MIN_TEXT
from gui.figure.rows import row_count, row_label

#: At most this many rows' height per run, one row per op; beyond, rows get thinner.
OPS_ROWS_TALL = 12
#: A row's height, in body text sizes, while rows are tall.
TALL_ROW = 1.9


def row_pitch(schedule: Schedule, frame: Frame) -> float:
    """Height of one row in points."""
    tall = TALL_ROW * frame.text
    n = row_count(schedule, frame.rows)
    limit = OPS_ROWS_TALL if frame.rows == "ops" else kind_of(schedule).worker_rows_tall
    return tall * limit / n if limit is not None and n > limit else tall


def sparse(frame: Frame, pitch: float) -> bool:
    """Whether rows are too thin for a label each."""
    return pitch < 1.05 * max(MIN_TEXT, frame.text)


def row_labels(schedule: Schedule, frame: Frame, pitch: float) -> list[tuple[int, str]]:
    """(row, words) for the rows that get a label, top to bottom (see the module doc)."""
    n = row_count(schedule, frame.rows)
    if not sparse(frame, pitch):
        return [(r, row_label(schedule, frame.rows, r)) for r in range(n)]
    size = max(MIN_TEXT, frame.text)
    step = int(nice_step(1.5 * size / pitch))
    if frame.rows == "ops":
        groups = [(0, n)]
    else:
        offsets = schedule.worker_offsets.tolist()
        groups = list(zip(offsets, schedule.workers, strict=True))
    kept = sorted({first for first, _ in groups})  # each unit's first row, always
    for first, count in groups:
        for k in [*range(step - 1, count, step), count - 1]:
            row = first + k
            if k <= 0 or row in kept:
                continue
            # A unit's last row keeps more room: it sits where the next unit or the axis is.
            gap = (1.5 if k == count - 1 else 1.2) * size / pitch
            at = bisect.bisect_left(kept, row)
            near = [kept[i] for i in (at - 1, at) if 0 <= i < len(kept)]
            if all(abs(row - other) >= gap for other in near):
                kept.insert(at, row)
    return [(r, row_label(schedule, frame.rows, r)) for r in kept]


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is at least ``raw``."""
    if raw <= 0:
        return 1.0
    power = 10 ** np.floor(np.log10(raw))
    for mult in (1, 2, 5, 10):
        if mult * power >= raw * (1 - 1e-9):
            return float(mult * power)
    return float(10 * power)
