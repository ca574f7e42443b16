"""Edits the app's shape editor makes to a pipeline-shape scenario (`ShapedScenario`), as
pure functions: the op count, per-op stage times (a cell, a pasted block, "make all
alike"), and the stages, units and pools (add, remove, rename, reorder, change). Each
returns a new, validated scenario or raises the engine's one-line `PipeLabError`.

Stages' units and pools' ends are indexes into the shape's stages and units, so renaming
a unit or a stage keeps every reference to it; moving a stage carries the pools' ends
with it (a pool that would then be given back before it is taken is refused).

No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.validation import duration, whole_number
from engine.model.scenario import MAX_NAME_CHARS, MAX_OPS, MAX_WORKERS
from engine.model.schedule import Pool
from engine.model.shape import MAX_STAGES, Shape
from engine.model.shape_file import ShapedScenario, shape_words
from gui.scenario_edits import op_count, pasted_size

FloatArray = npt.NDArray[np.float64]

#: The most pools the editor adds (a shape file may list up to 64).
MAX_POOLS = 64
#: The most characters of a stage's, a unit's or a pool's name.
MAX_NAME = MAX_NAME_CHARS


@dataclass(frozen=True)
class ShapeEdit:
    """One edit of the shape editor: ``what`` (a key of `EDITS`), the row it applies to
    (``index``; -1 where none) and its value (a name, a number, a stage's or unit's index,
    a step of -1 or 1 for "move_stage")."""

    what: str
    index: int = -1
    value: Any = None


def apply_edit(scenario: ShapedScenario, edit: ShapeEdit) -> ShapedScenario:
    """``scenario`` with ``edit`` made (validated by the engine anew)."""
    change = EDITS.get(edit.what)
    if change is None:
        raise PipeLabError(f"unknown shape edit {edit.what!r} (expected one of {sorted(EDITS)})")
    return change(scenario, edit.index, edit.value)


# -- names ---------------------------------------------------------------------------------


def clean_name(value: Any, kind: str) -> str:
    """A stage's, unit's or pool's name as typed: text, trimmed, not empty, not too long."""
    if not isinstance(value, str) or not value.strip():
        raise PipeLabError(f"a {kind} needs a name")
    name = " ".join(value.split())  # (no tabs or line breaks in a table's cell)
    if len(name) > MAX_NAME:
        raise PipeLabError(f"a {kind}'s name is {len(name):,} characters long: at most {MAX_NAME}")
    return name


def fresh_name(stem: str, taken: Sequence[str]) -> str:
    """``stem`` and the first number that makes it a new name: "stage 4"."""
    number = len(taken) + 1
    while f"{stem} {number}" in taken:
        number += 1
    return f"{stem} {number}"


def _row(index: int, rows: Sequence[object], kind: str) -> int:
    if not 0 <= index < len(rows):
        raise PipeLabError(f"no {kind} {index + 1} (there are {len(rows)})")
    return index


def _with(
    scenario: ShapedScenario, shape: Shape, times: FloatArray | None = None
) -> ShapedScenario:
    """``scenario`` on ``shape`` (and ``times``): checked by `Shape` and `ShapedScenario`."""
    return replace(scenario, shape=shape, times=scenario.times if times is None else times)


# -- ops and times ---------------------------------------------------------------------------


def set_ops(scenario: ShapedScenario, n: Any, max_ops: int = MAX_OPS) -> ShapedScenario:
    """``n`` ops, repeating the ops' times in order."""
    return scenario.with_ops(op_count(n, max_ops))


def set_times(
    scenario: ShapedScenario,
    first_op: int,
    first_stage: int,
    block: Sequence[Sequence[float]],
    max_ops: int = MAX_OPS,
) -> ShapedScenario:
    """Write ``block`` (rows of per-stage times) into the ops table from op ``first_op``,
    stage column ``first_stage``; rows past the last op add ops, which copy the last op's
    times where the block gives none (as the book's table does)."""
    stages = scenario.shape.stages
    n, _ = pasted_size(block, first_op, first_stage, stages, scenario.n_ops, max_ops)
    old = scenario.times
    times = np.concatenate([old, np.repeat(old[-1:], n - len(old), axis=0)])
    for r, row in enumerate(block):
        for c, value in enumerate(row):
            stage = first_stage + c
            times[first_op + r, stage] = duration(
                value, f"op {first_op + r + 1} {stages[stage]} time"
            )
    return replace(scenario, times=times)


def make_alike(scenario: ShapedScenario, op: int = 0) -> ShapedScenario:
    """Every op takes op ``op``'s times."""
    _row(op, range(scenario.n_ops), "op")
    return replace(scenario, times=np.repeat(scenario.times[op : op + 1], scenario.n_ops, axis=0))


def _stage_time(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """Stage ``index`` takes ``value`` seconds in every op (the others keep theirs)."""
    stage = scenario.shape.stages[_row(index, scenario.shape.stages, "stage")]
    times = scenario.times.copy()
    times[:, index] = duration(value, f"{stage} time")
    return replace(scenario, times=times)


# -- stages ----------------------------------------------------------------------------------


def _with_item(
    scenario: ShapedScenario, field: str, kind: str, index: int, value: Any
) -> ShapedScenario:
    """``scenario`` whose shape's ``field`` (a tuple, one item per ``kind``: stage, unit)
    has ``value`` at ``index``."""
    items = list(getattr(scenario.shape, field))
    items[_row(index, items, kind)] = value
    return _with(scenario, replace(scenario.shape, **{field: tuple(items)}))


def _rename_stage(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    return _with_item(scenario, "stages", "stage", index, clean_name(value, "stage"))


def _stage_unit(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    unit = _row(int(value), scenario.shape.units, "unit")
    return _with_item(scenario, "stage_units", "stage", index, unit)


def _add_stage(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """A stage after stage ``index`` (-1: after the last), on that stage's unit, taking
    ``value`` seconds (None: 1 s) in every op; pools spanning the gap span it too."""
    shape = scenario.shape
    if len(shape.stages) >= MAX_STAGES:
        raise PipeLabError(f"a pipeline has 1 to {MAX_STAGES} stages: remove one first")
    after = len(shape.stages) - 1 if index < 0 else _row(index, shape.stages, "stage")
    at = after + 1
    seconds = duration(1.0 if value is None else value, "the new stage's time")
    stages = list(shape.stages)
    stages.insert(at, fresh_name("stage", stages))
    units = list(shape.stage_units)
    units.insert(at, shape.stage_units[after])
    pools = tuple(
        replace(p, first=p.first + (p.first >= at), last=p.last + (p.last >= at))
        for p in shape.pools
    )
    times = np.insert(scenario.times, at, seconds, axis=1)
    new = replace(shape, stages=tuple(stages), stage_units=tuple(units), pools=pools)
    return _with(scenario, new, times)


def _remove_stage(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """Stage ``index`` goes; a pool taken or given back there must be changed first."""
    shape = scenario.shape
    name = shape.stages[_row(index, shape.stages, "stage")]
    if len(shape.stages) == 1:
        raise PipeLabError(f"a pipeline needs at least one stage: {name!r} is its last")
    for pool in shape.pools:
        if index in (pool.first, pool.last):
            end = "taken" if pool.first == index else "given back"
            raise PipeLabError(
                f"pool {pool.name!r} is {end} at stage {name!r}: "
                "remove the pool or move its ends first"
            )
    keep = [i for i in range(len(shape.stages)) if i != index]
    pools = tuple(
        replace(p, first=p.first - (p.first > index), last=p.last - (p.last > index))
        for p in shape.pools
    )
    return _stages_in(scenario, keep, pools)


def _stages_in(
    scenario: ShapedScenario, order: list[int], pools: tuple[Pool, ...]
) -> ShapedScenario:
    """``scenario`` with the stages (names, units, times) of ``order`` (old indices, in
    their new order) and ``pools`` (their ends already in the new indices)."""
    shape = scenario.shape
    new = replace(
        shape,
        stages=tuple(shape.stages[i] for i in order),
        stage_units=tuple(shape.stage_units[i] for i in order),
        pools=pools,
    )
    return _with(scenario, new, scenario.times[:, order])


def _move_stage(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """Stage ``index`` one row up (``value`` -1) or down (1): its times and the pools'
    ends go with it."""
    shape = scenario.shape
    _row(index, shape.stages, "stage")
    other = index + int(value)
    if value not in (-1, 1) or not 0 <= other < len(shape.stages):
        raise PipeLabError(f"stage {shape.stages[index]!r} cannot move further")
    order = list(range(len(shape.stages)))
    order[index], order[other] = other, index
    where = {old: new for new, old in enumerate(order)}  # old index → new index
    pools = tuple(replace(p, first=where[p.first], last=where[p.last]) for p in shape.pools)
    return _stages_in(scenario, order, pools)


# -- units -----------------------------------------------------------------------------------


def _rename_unit(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    return _with_item(scenario, "units", "unit", index, clean_name(value, "unit"))


def _unit_workers(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    name = scenario.shape.units[_row(index, scenario.shape.units, "unit")]
    workers = whole_number(value, f"unit {name!r}'s workers", 1, MAX_WORKERS)
    return _with_item(scenario, "workers", "unit", index, workers)


def _add_unit(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """A unit of one worker (it runs no stage until one is put on it)."""
    shape = scenario.shape
    if len(shape.units) >= MAX_STAGES:
        raise PipeLabError(f"at most {MAX_STAGES} units: as many as there may be stages")
    units = (*shape.units, fresh_name("unit", shape.units))
    return _with(scenario, replace(shape, units=units, workers=(*shape.workers, 1)))


def _remove_unit(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """Unit ``index`` goes, once no stage runs on it."""
    shape = scenario.shape
    name = shape.units[_row(index, shape.units, "unit")]
    for stage, unit in zip(shape.stages, shape.stage_units, strict=True):
        if unit == index:
            raise PipeLabError(
                f"stage {stage!r} runs on unit {name!r}: put it on another unit first"
            )
    keep = [i for i in range(len(shape.units)) if i != index]
    new = replace(
        shape,
        units=tuple(shape.units[i] for i in keep),
        workers=tuple(shape.workers[i] for i in keep),
        stage_units=tuple(u - (u > index) for u in shape.stage_units),
    )
    return _with(scenario, new)


def idle_units(shape: Shape) -> tuple[str, ...]:
    """Units no stage runs on (a shape file may not list them: saving leaves them out)."""
    return tuple(u for i, u in enumerate(shape.units) if i not in shape.stage_units)


def without_idle_units(scenario: ShapedScenario) -> ShapedScenario:
    """``scenario`` with the units no stage runs on left out (what its file can hold)."""
    shape = scenario.shape
    used = [i for i in range(len(shape.units)) if i in shape.stage_units]
    if len(used) == len(shape.units):
        return scenario
    new = replace(
        shape,
        units=tuple(shape.units[i] for i in used),
        workers=tuple(shape.workers[i] for i in used),
        stage_units=tuple(used.index(u) for u in shape.stage_units),
    )
    return _with(scenario, new)


# -- pools -----------------------------------------------------------------------------------


def _pool(scenario: ShapedScenario, index: int, **changes: Any) -> ShapedScenario:
    shape = scenario.shape
    pools = list(shape.pools)
    pools[_row(index, pools, "pool")] = replace(pools[index], **changes)
    return _with(scenario, replace(shape, pools=tuple(pools)))


def _rename_pool(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    return _pool(scenario, index, name=clean_name(value, "pool"))


def _pool_size(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    name = scenario.shape.pools[_row(index, scenario.shape.pools, "pool")].name
    return _pool(
        scenario,
        index,
        size=whole_number(value, f"pool {name!r}'s size (0: unlimited)", 0, MAX_OPS),
    )


def _pool_from(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    return _pool(scenario, index, first=_row(int(value), scenario.shape.stages, "stage"))


def _pool_to(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    return _pool(scenario, index, last=_row(int(value), scenario.shape.stages, "stage"))


def _add_pool(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    """A pool of 2 slots (double buffering) held from the first stage to the last."""
    shape = scenario.shape
    if len(shape.pools) >= MAX_POOLS:
        raise PipeLabError(f"at most {MAX_POOLS} pools")
    name = fresh_name("pool", [p.name for p in shape.pools])
    pool = Pool(name, 2, 0, len(shape.stages) - 1)
    return _with(scenario, replace(shape, pools=(*shape.pools, pool)))


def _remove_pool(scenario: ShapedScenario, index: int, value: Any) -> ShapedScenario:
    shape = scenario.shape
    _row(index, shape.pools, "pool")
    pools = shape.pools[:index] + shape.pools[index + 1 :]
    return _with(scenario, replace(shape, pools=pools))


EDITS: dict[str, Callable[[ShapedScenario, int, Any], ShapedScenario]] = {
    "stage_name": _rename_stage,
    "stage_unit": _stage_unit,
    "stage_time": _stage_time,
    "add_stage": _add_stage,
    "remove_stage": _remove_stage,
    "move_stage": _move_stage,
    "unit_name": _rename_unit,
    "unit_workers": _unit_workers,
    "add_unit": _add_unit,
    "remove_unit": _remove_unit,
    "pool_name": _rename_pool,
    "pool_size": _pool_size,
    "pool_from": _pool_from,
    "pool_to": _pool_to,
    "add_pool": _add_pool,
    "remove_pool": _remove_pool,
}


# -- naming ----------------------------------------------------------------------------------


def same_shape(a: ShapedScenario, b: ShapedScenario) -> bool:
    """Whether ``a`` and ``b`` run the same: one shape, the same times."""
    return (
        a.shape == b.shape and a.times.shape == b.times.shape and bool((a.times == b.times).all())
    )


def renamed_if_changed(original: ShapedScenario, changed: ShapedScenario) -> ShapedScenario:
    """``changed`` named for the file or preset it came from: its name and description
    when it runs as ``original`` does, else "… (edited)" and a sentence of its shape."""
    if same_shape(original, changed):
        return replace(changed, name=original.name, description=original.description)
    name = original.name.removesuffix(" (edited)")
    name = name if len(name) + 9 > MAX_NAME_CHARS else f"{name} (edited)"
    return replace(changed, name=name, description=shape_sentence(changed))


def shape_sentence(scenario: ShapedScenario) -> str:
    """A generated description: "12 ops: load on TMA, …; pools …"."""
    n = scenario.n_ops
    text = f"{n:,} op{'' if n == 1 else 's'}: {shape_words(scenario.shape)}."
    return text[:1000]


def save_shape(scenario: ShapedScenario, path: str | Path) -> None:
    """Write ``scenario`` as a shape file (TOML), atomically, without the units no stage
    runs on (a file may not list them); opening it gives the same runs."""
    from engine.base.atomic import write_atomic

    write_atomic(path, without_idle_units(scenario).to_toml().encode("utf-8"))
