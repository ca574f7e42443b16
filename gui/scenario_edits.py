"""Edits the app makes to a Scenario, as pure functions (no Qt): one form field, a block of
per-op durations (a table cell or a pasted spreadsheet range), "make all alike". Each
returns a new, validated Scenario (its ops `uniform` again when they are all alike), or
raises a one-line `PipeLabError`. The app model names it for how it differs from the
scenario it opened (`engine.model.naming.renamed_if_changed`, as the command line does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.validation import duration, whole_number
from engine.model.scenario import MAX_OPS, Scenario, all_alike
from engine.model.schedule import STAGES, UNITS
from engine.model.shape_file import AnyScenario, ShapedScenario, read_scenario

FloatArray = npt.NDArray[np.float64]

#: Form fields: the op count, one stage's duration for every op, the buffers, and
#: "<unit>_workers" for each unit.
FIELDS = ("ops", *STAGES, "buffers", *(f"{unit}_workers" for unit in UNITS))


def _with_columns(scenario: Scenario, columns: dict[str, FloatArray]) -> Scenario:
    """``scenario`` with some stages' per-op durations replaced (validated anew)."""
    read, compute, write = (columns.get(s, getattr(scenario, s)) for s in STAGES)
    return replace(scenario, read=read, compute=compute, write=write)


def _settled(scenario: Scenario) -> Scenario:
    """``scenario`` with ops that are all alike saved as one [defaults] block again."""
    return replace(scenario, uniform=all_alike(scenario))


S = TypeVar("S", bound=AnyScenario)

#: The app refuses scenarios beyond this many ops (the command line takes any size).
GUI_MAX_OPS = 1_000_000


def check_app_size(scenario: S) -> S:
    """``scenario``, if the app can show it (at most `GUI_MAX_OPS` ops; a pipeline shape,
    at most as many tasks as that many ops of the book's three stages): every way a
    scenario enters the app (its command line, File → Open, the last session's, an edit)
    checks this one cap."""
    if isinstance(scenario, ShapedScenario):
        stages = len(scenario.shape.stages)
        tasks = scenario.n_ops * stages
        if tasks > 3 * GUI_MAX_OPS:
            raise PipeLabError(
                f"the app shows at most {3 * GUI_MAX_OPS:,} tasks, not {tasks:,} "
                f"({scenario.n_ops:,} ops of {stages} stages; the simulate command takes any "
                "size)"
            )
        return scenario
    op_count(scenario.n_ops, GUI_MAX_OPS)
    return scenario


def load_for_app(path: str | Path) -> AnyScenario:
    """The scenario file at ``path``, book-shaped or a pipeline shape, if the app can show
    it (at most `GUI_MAX_OPS` ops; a file that lists more is refused before it is
    parsed)."""
    return check_app_size(read_scenario(path, max_ops=GUI_MAX_OPS))


def op_count(value: Any, max_ops: int = MAX_OPS) -> int:
    """``value`` as a number of ops; beyond ``max_ops`` (the app's cap) the message says
    that the command line takes more."""
    n = whole_number(value, "the number of ops", 1, MAX_OPS)
    if n > max_ops:
        raise PipeLabError(
            f"the app shows at most {max_ops:,} ops, not {n:,} (the simulate command takes "
            "any size)"
        )
    return n


def edit_field(scenario: Scenario, field: str, value: Any, max_ops: int = MAX_OPS) -> Scenario:
    """The scenario with one form field changed. A stage's duration sets that stage for
    every op and keeps the other stages' per-op values; the op count repeats the ops'
    durations (identical ops stay identical)."""
    if field == "ops":
        n = op_count(value, max_ops)
        reps = np.resize(np.arange(scenario.n_ops), n)
        changed = _with_columns(scenario, {s: getattr(scenario, s)[reps] for s in STAGES})
    elif field in STAGES:
        seconds = duration(value, f"{field} duration")
        changed = _with_columns(scenario, {field: np.full(scenario.n_ops, seconds)})
    elif field == "buffers":
        changed = replace(scenario, buffers=value)
    elif field.endswith("_workers") and field.removesuffix("_workers") in UNITS:
        workers = list(scenario.workers)
        workers[UNITS.index(field.removesuffix("_workers"))] = value
        changed = replace(scenario, workers=(workers[0], workers[1], workers[2]))
    else:
        raise PipeLabError(f"unknown scenario field {field!r} (expected one of {FIELDS})")
    return _settled(changed)


def pasted_size(
    block: Sequence[Sequence[float]],
    first_op: int,
    first_stage: int,
    stages: Sequence[str],
    n_ops: int,
    max_ops: int,
) -> tuple[int, int]:
    """The ops a table of ``n_ops`` ops and a column per stage has once ``block`` is pasted
    at op ``first_op``, column ``first_stage``, and the block's width; a line if it does
    not fit (nothing in it, columns past the last stage, an op past the end, too many)."""
    if not block or not any(block):
        raise PipeLabError("nothing to paste: no values")
    width = max(len(row) for row in block)
    if first_stage < 0 or first_stage + width > len(stages):
        raise PipeLabError(
            f"the ops table has {len(stages)} columns ({', '.join(stages)}); "
            f"{width} values from column {first_stage + 1} do not fit"
        )
    if not 0 <= first_op <= n_ops:
        raise PipeLabError(f"no op {first_op + 1} (the scenario has {n_ops:,})")
    return op_count(max(n_ops, first_op + len(block)), max_ops), width


def set_durations(
    scenario: Scenario,
    first_op: int,
    first_stage: int,
    block: Sequence[Sequence[float]],
    max_ops: int = MAX_OPS,
) -> Scenario:
    """Write ``block`` (rows of per-stage durations) into the ops table from op
    ``first_op``, stage column ``first_stage``. Rows past the last op add ops, which
    copy the last op's durations for the columns the block does not give."""
    n, width = pasted_size(block, first_op, first_stage, STAGES, scenario.n_ops, max_ops)
    columns: dict[str, FloatArray] = {}
    for index, stage in enumerate(STAGES):
        values = getattr(scenario, stage)
        column = np.concatenate([values, np.full(n - len(values), values[-1])])
        if first_stage <= index < first_stage + width:
            for r, row in enumerate(block):
                c = index - first_stage
                if c < len(row):
                    what = f"op {first_op + r + 1} {stage} duration"
                    column[first_op + r] = duration(row[c], what)
        columns[stage] = column
    return _settled(_with_columns(scenario, columns))


def make_alike(scenario: Scenario, op: int = 0) -> Scenario:
    """Every op takes op ``op``'s durations."""
    if not 0 <= op < scenario.n_ops:
        raise PipeLabError(f"no op {op + 1} (the scenario has {scenario.n_ops:,})")
    arrays = {s: np.full(scenario.n_ops, float(getattr(scenario, s)[op])) for s in STAGES}
    return _settled(_with_columns(scenario, arrays))


def parse_block(text: str) -> list[list[float]]:
    """Cells copied from a spreadsheet: rows on lines, columns split by tabs. A cell may
    end in " s". Blank trailing lines are ignored; a cell that is not a number is an error
    naming its row and column."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    block: list[list[float]] = []
    for r, line in enumerate(lines):
        row = []
        for c, cell in enumerate(line.split("\t")):
            word = cell.strip().removesuffix("s").strip().replace("\u2009", "")
            try:
                number = float(word)
            except ValueError:
                shown = cell.strip()[:20]
                raise PipeLabError(
                    f"pasted row {r + 1}, column {c + 1}: {shown!r} is not a number of seconds"
                ) from None
            row.append(number)
        block.append(row)
    if not block:
        raise PipeLabError("nothing to paste: the clipboard has no values")
    return block
