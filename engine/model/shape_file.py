"""Pipeline-shape scenarios: a `Shape` and its ops' stage times, read from and written to
the TOML form of docs/model.md ("Pipeline shapes"):

.. code-block:: toml

    name = "Hopper warp-specialized GEMM, ping-pong"
    ops = 12                       # or as many as the time lists give

    [[stages]]                     # 1 to 8, in order
    name = "load"
    unit = "TMA"
    time = 1.0                     # every op; or a list, one value per op

    [units]                        # each unit's workers
    "TMA" = 1

    [[pools]]                      # slots held from one stage's start to another's end
    name = "smem stages"
    size = 4                       # 0: unlimited
    from = "load"
    to = "mma"

Every error names the key and its line, in one line. A file in the book's form (``read``,
``compute``, ``write``…) is a `Scenario`; `read_scenario` reads either.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.validation import check_durations, duration, shown, whole_number
from engine.model.scenario import (
    MAX_OPS,
    MAX_WORKERS,
    PRESETS_DIR,
    SHAPES_DIR,
    FileKeys,
    Scenario,
    file_text,
    load_preset,
    policy_field,
    preset_names,
    text_field,
    toml_document,
)
from engine.model.schedule import Pool, Schedule
from engine.model.shape import ALONE, MAX_STAGES, Shape, simulate_shape

FloatArray = npt.NDArray[np.float64]

_TOP_KEYS = {"name", "description", "policy", "ops", "stages", "units", "pools"}
_STAGE_KEYS = {"name", "unit", "time"}
_POOL_KEYS = {"name", "size", "from", "to"}
#: Ops when the file gives neither ``ops`` nor a list of times (the book's default).
DEFAULT_OPS = 3


@dataclass(frozen=True, eq=False)
class ShapedScenario:
    """Ops through a pipeline `Shape`: ``times`` (n_ops, stages), read-only, and the policy
    ("sequential": one op in flight at a time)."""

    shape: Shape
    times: FloatArray
    name: str = "Untitled"
    description: str = ""
    policy: str = "pipelined"

    def __post_init__(self) -> None:
        for what in ("name", "description"):
            text_field(getattr(self, what), what)
        times = np.array(self.times, dtype=np.float64, ndmin=2, copy=True)
        stages = len(self.shape.stages)
        if times.ndim != 2 or times.shape[1] != stages:
            raise PipeLabError(f"times need one column per stage ({stages})")
        whole_number(len(times), "the number of ops", 1, MAX_OPS)
        for column, stage in enumerate(self.shape.stages):
            check_durations(np.ascontiguousarray(times[:, column]), stage)
        times.flags.writeable = False
        object.__setattr__(self, "times", times)
        policy_field(self.policy)

    @property
    def n_ops(self) -> int:
        return len(self.times)

    def with_ops(self, n: int) -> ShapedScenario:
        """``n`` ops, repeating the ops' times in order (the command line's ``--ops``)."""
        n = whole_number(n, "the number of ops", 1, MAX_OPS)
        return replace(self, times=self.times[np.arange(n) % self.n_ops])

    def simulate(self, policy: str | None = None) -> Schedule:
        """The Schedule under ``policy`` (default: the scenario's); "sequential" holds one
        slot from the first stage to the last."""
        policy = policy_field(policy or self.policy)
        shape = self.shape
        if policy == "sequential":
            alone = Pool(ALONE, 1, 0, len(shape.stages) - 1)
            shape = replace(shape, pools=(alone,))
        return simulate_shape(shape, self.times, label=policy, policy=policy)

    # -- TOML -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The scenario in its file's form (a stage's time one number where all ops agree)."""
        shape = self.shape
        stages = []
        for column, (stage, unit) in enumerate(zip(shape.stages, shape.stage_units, strict=True)):
            values = self.times[:, column]
            same = bool((values == values[0]).all())
            time: Any = float(values[0]) if same else values.tolist()
            stages.append({"name": stage, "unit": shape.units[unit], "time": time})
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "policy": self.policy,
            "ops": self.n_ops,
            "stages": stages,
            "units": dict(zip(shape.units, shape.workers, strict=True)),
        }
        if shape.pools:
            data["pools"] = [
                {
                    "name": pool.name,
                    "size": pool.size,
                    "from": shape.stages[pool.first],
                    "to": shape.stages[pool.last],
                }
                for pool in shape.pools
            ]
        return data

    def to_toml(self) -> str:
        import tomli_w  # (as Scenario.to_toml: numpy alone on the GPU check's machine)

        return tomli_w.dumps(self.to_dict())

    @classmethod
    def from_toml(
        cls, text: str, source: str = "scenario", max_ops: int = MAX_OPS
    ) -> ShapedScenario:
        data, text = toml_document(text, source, max_ops)
        return cls.from_dict(data, source, text, max_ops)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        source: str = "scenario",
        text: str = "",
        max_ops: int = MAX_OPS,
    ) -> ShapedScenario:
        """Validate a parsed shape file; every error names its key and line."""
        return _Reader(FileKeys(source, text, _TOP_KEYS), max_ops).scenario(data)


def read_scenario(path: str | Path, max_ops: int = MAX_OPS) -> Scenario | ShapedScenario:
    """The scenario file at ``path`` ("-": standard input) in either form ([[stages]]: a
    pipeline shape)."""
    text, source = file_text(path)
    data, text = toml_document(text, source, max_ops)
    if "stages" in data:
        return ShapedScenario.from_dict(data, source, text, max_ops)
    return Scenario.from_dict(data, source=source, text=text)


class _Reader:
    """One shape file's tables into a `ShapedScenario`, checking each key where it is."""

    def __init__(self, keys: FileKeys, max_ops: int) -> None:
        self.keys = keys
        self.max_ops = max_ops

    def fail(self, path: tuple[str | int, ...], problem: str) -> PipeLabError:
        return PipeLabError(f"{self.keys.where(*path)}: {problem}")

    def tables(self, data: Mapping[str, Any], key: str, most: int) -> list[Mapping[str, Any]]:
        """The array of tables ``[[key]]`` (none: an empty list), each a table."""
        items = data.get(key, [])
        if not isinstance(items, Sequence) or isinstance(items, str):
            raise self.fail((key,), f"{key} must be a list of [[{key}]] tables")
        if len(items) > most:
            raise self.fail((key,), f"{len(items):,} [[{key}]]: at most {most}")
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise self.fail((key, index), f"[[{key}]] {index + 1} must be a table")
        return list(items)

    def name(self, table: Mapping[str, Any], path: tuple[str | int, ...], kind: str) -> str:
        if "name" not in table:
            raise self.fail(path, f"[[{path[0]}]] {int(path[-1]) + 1} needs a name")
        value = table["name"]
        if not isinstance(value, str) or not value.strip():
            raise self.fail((*path, "name"), f"a {kind}'s name must be text, not {shown(value)}")
        return value

    def named(
        self, value: Any, names: Sequence[str], path: tuple[str | int, ...], what: str
    ) -> int:
        """The index of the stage or unit ``value`` names (``what``: "stage", "unit")."""
        if isinstance(value, str) and value in names:
            return names.index(value)
        import difflib  # (a bad file's words only: not at the app's start-up)

        close = difflib.get_close_matches(str(value), list(names), n=1)
        hint = (
            f"; did you mean {close[0]!r}?"
            if close
            else f" (there are {', '.join(map(repr, names))})"
        )
        raise self.fail(path, f"no {what} is named {shown(value)}{hint}")

    def scenario(self, data: Mapping[str, Any]) -> ShapedScenario:
        keys = self.keys
        keys.check(data, _TOP_KEYS, ())
        stages = self.tables(data, "stages", MAX_STAGES)
        if not stages:
            raise self.fail(("stages",), "a pipeline needs at least one [[stages]] table")
        units_table = data.get("units", {})
        if not isinstance(units_table, Mapping) or not units_table:
            raise self.fail(("units",), "[units] must be a table of each unit's workers")
        units = list(units_table)
        workers = [
            keys.field(
                ("units", unit),
                lambda unit=unit: whole_number(
                    units_table[unit], f"unit {unit!r}'s workers", 1, MAX_WORKERS
                ),
            )
            for unit in units
        ]
        names: list[str] = []
        stage_units: list[int] = []
        columns: list[Any] = []
        for index, stage in enumerate(stages):
            path = ("stages", index)
            keys.check(stage, _STAGE_KEYS, path)
            name = self.name(stage, path, "stage")
            if name in names:
                raise self.fail((*path, "name"), f"two stages are named {name!r}")
            names.append(name)
            if "unit" not in stage:
                raise self.fail(path, f"stage {name!r} needs a unit")
            stage_units.append(self.named(stage["unit"], units, (*path, "unit"), "unit"))
            columns.append(self.time(stage, path, name))
        for unit, name in enumerate(units):
            if unit not in stage_units:
                raise self.fail(("units", name), f"unit {name!r} runs no stage")
        n = self.ops(data, columns, names)
        times = np.empty((n, len(names)))
        for column, value in enumerate(columns):
            times[:, column] = value
        shape = Shape(
            tuple(names), tuple(stage_units), tuple(units), tuple(workers), self.pools(data, names)
        )
        return ShapedScenario(shape, times, **keys.texts(data))

    def time(self, stage: Mapping[str, Any], path: tuple[str | int, ...], name: str) -> Any:
        """A stage's time: a duration, or a list of them (one per op)."""
        if "time" not in stage:
            raise self.fail(path, f"stage {name!r} needs a time (seconds, or a list per op)")
        value = stage["time"]
        where = (*path, "time")
        if isinstance(value, Sequence) and not isinstance(value, str):
            if not value:
                raise self.fail(where, f"stage {name!r}'s time list is empty")
            return np.array(
                [
                    self.keys.field(
                        where, lambda v=v, i=i: duration(v, f"{name} time of op {i + 1}")
                    )
                    for i, v in enumerate(value)
                ]
            )
        return self.keys.field(where, lambda: duration(value, f"{name} time"))

    def ops(self, data: Mapping[str, Any], columns: list[Any], names: list[str]) -> int:
        """The number of ops: ``ops``, else the time lists' length; lists must agree."""
        lists = [(name, len(c)) for name, c in zip(names, columns, strict=True) if np.ndim(c)]
        if "ops" in data:
            n: int = self.keys.field(
                ("ops",), lambda: whole_number(data["ops"], "ops", 1, self.max_ops)
            )
        else:
            n = lists[0][1] if lists else DEFAULT_OPS
            if n > self.max_ops:
                raise self.fail(("stages",), f"{n:,} ops: at most {self.max_ops:,} can be read")
        for name, length in lists:
            if length != n:
                stage = names.index(name)
                given = "ops" if "ops" in data else f"stage {lists[0][0]!r}'s list"
                raise self.fail(
                    ("stages", stage, "time"),
                    f"stage {name!r} lists {length:,} times but {given} gives {n:,} ops "
                    "(one time per op, or one number for every op)",
                )
        return n

    def pools(self, data: Mapping[str, Any], stages: list[str]) -> tuple[Pool, ...]:
        pools: list[Pool] = []
        for index, pool in enumerate(self.tables(data, "pools", 64)):
            path = ("pools", index)
            self.keys.check(pool, _POOL_KEYS, path)
            name = self.name(pool, path, "pool")
            if any(p.name == name for p in pools):
                raise self.fail((*path, "name"), f"two pools are named {name!r}")
            for key in ("size", "from", "to"):
                if key not in pool:
                    raise self.fail(path, f"pool {name!r} needs {key!r}")
            size = self.keys.field(
                (*path, "size"),
                lambda pool=pool, name=name: whole_number(
                    pool["size"], f"pool {name!r}'s size (0: unlimited)", 0, MAX_OPS
                ),
            )
            first = self.named(pool["from"], stages, (*path, "from"), "stage")
            last = self.named(pool["to"], stages, (*path, "to"), "stage")
            if first > last:
                raise self.fail(
                    (*path, "to"),
                    f"pool {name!r} is taken at {stages[first]!r} but given back at "
                    f"{stages[last]!r}, an earlier stage",
                )
            pools.append(Pool(name, size, first, last))
        return tuple(pools)


def load_any_preset(name: str) -> Scenario | ShapedScenario:
    """The shipped preset ``name``: a pipeline shape (assets/shapes), else the book's
    (`load_preset`, whose error names every preset)."""
    if name in preset_names(shapes=True) and name not in preset_names():
        return ShapedScenario.from_toml(*file_text(SHAPES_DIR / f"{name}.toml"))
    return load_preset(name)


def preset_titles() -> list[tuple[str, str, str]]:
    """(name, title, description) of every shipped preset in `preset_names` order, read
    without building a scenario (the preset menu at start-up: 2 ms where loading took 10;
    tests load each file whole)."""
    books = set(preset_names())
    titles = []
    for name in preset_names(shapes=True):
        folder = PRESETS_DIR if name in books else SHAPES_DIR
        data = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
        title = text_field(data.get("name", "Untitled"), "name")
        titles.append((name, title, text_field(data.get("description", ""), "description")))
    return titles


#: A scenario in either form.
AnyScenario = Scenario | ShapedScenario


def simulated(scenario: AnyScenario, policy: str | None = None) -> Schedule:
    """``scenario``'s Schedule under ``policy`` (default: its own), in either form."""
    if isinstance(scenario, ShapedScenario):
        return scenario.simulate(policy)
    from engine.model.scheduler import simulate

    return simulate(scenario, policy)


def shape_words(shape: Shape) -> str:
    """A shape in a line: "load on TMA, epilogue on consumers (2 workers); pools smem
    stages 4 (load → mma)"."""
    stages = []
    for stage, unit in zip(shape.stages, shape.stage_units, strict=True):
        k = shape.workers[unit]
        stages.append(f"{stage} on {shape.units[unit]}" + (f" ({k} workers)" if k > 1 else ""))
    text = ", ".join(stages)
    if shape.pools:
        pools = ", ".join(
            f"{p.name} {p.size or 'unlimited'} ({shape.stages[p.first]} → {shape.stages[p.last]})"
            for p in shape.pools
        )
        text += f"; pools {pools}"
    return text
