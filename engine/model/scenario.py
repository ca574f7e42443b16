"""Scenarios: what to schedule. Validated on construction; read from and written to TOML."""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.resources import asset
from engine.base.text import elided_middle
from engine.base.toml_lines import MAX_NESTING, deepest_nesting, key_lines, line_of
from engine.base.validation import (
    SHOWN,
    check_durations,
    duration,
    path_text,
    shown,
    whole_number,
)
from engine.model.columns import frozen
from engine.model.schedule import STAGES, UNITS

#: The most ops a scenario may have: 10^7 ops are 3·10^7 tasks, about 1.4 GB of columns.
MAX_OPS = 10_000_000
#: The most workers a unit may have, and the most buffer slots (beyond is "unlimited").
MAX_WORKERS = 1024
POLICIES = ("sequential", "pipelined")
#: The longest name and description a scenario may have (characters): a file's megabyte
#: name is refused rather than laid out in every view, title bar and figure.
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 2000
TEXT_LIMITS = {"name": MAX_NAME_CHARS, "description": MAX_DESCRIPTION_CHARS}
#: Largest scenario file read: 10^5 [[ops]] are about 5 MB; far beyond, parsing takes minutes.
MAX_FILE_BYTES = 64 * 2**20
#: The file name that means standard input (or output), as in every Unix tool.
STDIN = "-"

#: The shipped presets: book-shaped and pipeline shapes (`engine.model.shape_file`).
PRESETS_DIR = asset("presets")
SHAPES_DIR = asset("shapes")

#: A line that opens an [[ops]] table (counted before a file is parsed).
_OPS_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*ops[ \t]*\]\]", re.MULTILINE)
_TOP_KEYS = {"name", "description", "policy", "buffers", "workers", "defaults", "ops"}
_DEFAULT_KEYS = {"count", *STAGES}


def _durations(values: Any, what: str, n: int | None) -> npt.NDArray[np.float64]:
    """``values`` as a checked, read-only float64 column of ``n`` durations (None: any)."""
    try:
        # Another Scenario's column (an edit of the buffers or workers keeps the durations)
        # is shared, not copied (24 MB at 10^6 ops).
        array: npt.NDArray[np.float64] = frozen(values, np.float64)
    except (TypeError, ValueError, OverflowError):
        raise PipeLabError(f"{what} durations must be numbers, not {shown(values)}") from None
    if n is not None and len(array) != n:
        raise PipeLabError(f"{what} durations need one value per op ({n}), got {len(array)}")
    check_durations(array, what)
    return array


def all_alike(scenario: Scenario) -> bool:
    """Whether every op has the same durations."""
    return all(bool((getattr(scenario, s) == getattr(scenario, s)[0]).all()) for s in STAGES)


def repeated_to(values: npt.NDArray[np.float64], count: int) -> npt.NDArray[np.float64]:
    """``values`` repeated end to end, cut to ``count`` long: np.resize, without its
    one-by-one joins (30x slower for 8 durations repeated to 10^6)."""
    return np.tile(values, -(-count // len(values)))[:count]


@dataclass(frozen=True, eq=False)
class Scenario:
    """N ops of three stages (per-op duration arrays), workers per unit, buffer slots and
    the policy. ``uniform``: given as one set of defaults for every op (a TOML file
    round-trips to the form it was read from)."""

    read: npt.NDArray[np.float64]
    compute: npt.NDArray[np.float64]
    write: npt.NDArray[np.float64]
    workers: tuple[int, int, int] = (1, 1, 1)
    buffers: int = 0
    policy: str = "pipelined"
    name: str = "Untitled"
    description: str = ""
    uniform: bool = False

    def __post_init__(self) -> None:
        for what in TEXT_LIMITS:
            text_field(getattr(self, what), what)
        read = _durations(self.read, "read", None)  # (as many ops as read durations)
        n = whole_number(len(read), "the number of ops", 1, MAX_OPS)
        object.__setattr__(self, "read", read)
        for stage in STAGES[1:]:
            object.__setattr__(self, stage, _durations(getattr(self, stage), stage, n))
        if len(tuple(self.workers)) != len(UNITS):
            raise PipeLabError("workers need one count for each of load, compute, store")
        counts = tuple(
            whole_number(k, f"{unit} workers", 1, MAX_WORKERS)
            for unit, k in zip(UNITS, self.workers, strict=True)
        )
        object.__setattr__(self, "workers", counts)
        object.__setattr__(self, "buffers", whole_number(self.buffers, "buffers", 0, MAX_OPS))
        policy_field(self.policy)
        if self.uniform and not all_alike(self):
            object.__setattr__(self, "uniform", False)

    @classmethod
    def uniform_ops(
        cls,
        count: int,
        read: float = 1.0,
        compute: float = 1.0,
        write: float = 1.0,
        **kwargs: Any,
    ) -> Scenario:
        """``count`` identical ops (the common case and the textbook's)."""
        n = whole_number(count, "the number of ops", 1, MAX_OPS)
        values = [duration(v, s) for v, s in zip((read, compute, write), STAGES, strict=True)]
        r, c, w = (np.full(n, v) for v in values)
        return cls(r, c, w, uniform=True, **kwargs)

    @property
    def n_ops(self) -> int:
        return len(self.read)

    @property
    def durations(self) -> npt.NDArray[np.float64]:
        """Shape (n_ops, 3): read, compute and write time of every op."""
        return np.stack([self.read, self.compute, self.write], axis=1)

    def with_changes(
        self,
        *,
        ops: int | None = None,
        read: float | None = None,
        compute: float | None = None,
        write: float | None = None,
        **kwargs: Any,
    ) -> Scenario:
        """A copy with overrides (the command line's and the app's): a duration or the op
        count makes ops uniform, unset durations taken from op 1."""
        given = {"read": read, "compute": compute, "write": write}
        if all(value is None for value in given.values()):
            if ops is None:
                return replace(self, **kwargs)
            if not self.uniform:  # keep per-op durations, repeated to the new count
                n = whole_number(ops, "the number of ops", 1, MAX_OPS)
                arrays: dict[str, Any] = {s: repeated_to(getattr(self, s), n) for s in STAGES}
                return replace(self, **arrays, uniform=False, **kwargs)
        values = {s: getattr(self, s)[0] if v is None else v for s, v in given.items()}
        kept = ("workers", "buffers", "policy", "name", "description")
        fields: dict[str, Any] = {key: getattr(self, key) for key in kept} | kwargs
        return Scenario.uniform_ops(self.n_ops if ops is None else ops, **values, **fields)

    # -- TOML -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The scenario in the TOML file's shape."""
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "policy": self.policy,
            "buffers": self.buffers,
            "workers": dict(zip(UNITS, self.workers, strict=True)),
        }
        if self.uniform:
            data["defaults"] = {"count": self.n_ops} | {
                s: float(getattr(self, s)[0]) for s in STAGES
            }
        else:
            data["ops"] = [
                {s: float(v) for s, v in zip(STAGES, row, strict=True)}
                for row in self.durations.tolist()
            ]
        return data

    def to_toml(self) -> str:
        # Imported here: the GPU check runs engine/ on a machine with numpy alone.
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    def save(self, path: str | Path) -> None:
        """Write the scenario as TOML, atomically (a failure leaves no partial file)."""
        from engine.base.atomic import write_atomic

        write_atomic(path, self.to_toml().encode("utf-8"))

    @classmethod
    def from_toml(cls, text: str, source: str = "scenario", max_ops: int = MAX_OPS) -> Scenario:
        """Parse and validate a scenario file's text; errors begin with ``source`` and name
        the key and its line."""
        data, text = toml_document(text, source, max_ops)
        return cls.from_dict(data, source=source, text=text)

    @classmethod
    def load(cls, path: str | Path, max_ops: int = MAX_OPS) -> Scenario:
        """Read a scenario file (`file_text`: "-" is standard input)."""
        text, source = file_text(path)
        return cls.from_toml(text, source=source, max_ops=max_ops)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], source: str = "scenario", text: str = ""
    ) -> Scenario:
        """Validate a parsed scenario file; ``text``, the TOML it came from, gives errors
        their key's line."""
        keys = FileKeys(source, text, _TOP_KEYS)
        where, check_keys, field = keys.where, keys.check, keys.field
        if "stages" in data:
            raise PipeLabError(
                f"{where('stages')}: a pipeline-shape file ([[stages]]), not a book-shaped scenario"
            )
        check_keys(data, _TOP_KEYS, ())
        workers_table = keys.table(data, "workers", UNITS)
        workers = tuple(
            field(
                ("workers", u),
                lambda u=u: whole_number(workers_table.get(u, 1), f"{u} workers", 1, MAX_WORKERS),
            )
            for u in UNITS
        )
        common: dict[str, Any] = {
            **keys.texts(data),
            "buffers": field(
                ("buffers",), lambda: whole_number(data.get("buffers", 0), "buffers", 0, MAX_OPS)
            ),
            "workers": workers,
        }
        defaults = keys.table(data, "defaults", _DEFAULT_KEYS)
        base = {
            s: field(("defaults", s), lambda s=s: duration(defaults.get(s, 1.0), f"{s} duration"))
            for s in STAGES
        }
        ops = data.get("ops")
        if ops is None and "defaults" not in data:
            raise PipeLabError(
                f"{source}: no ops: give a [defaults] table (count, read, compute, write) "
                "or a list of [[ops]]"
            )
        if ops is None:
            count = field(
                ("defaults", "count"),
                lambda: whole_number(defaults.get("count", 3), "count", 1, MAX_OPS),
            )
            return cls.uniform_ops(count, **base, **common)
        if not isinstance(ops, Sequence) or isinstance(ops, str) or not ops:
            raise PipeLabError(f"{where('ops')}: [[ops]] must list at least one op")
        if "count" in defaults:
            raise PipeLabError(
                f"{where('defaults', 'count')}: give either [defaults] count or a list of "
                "[[ops]], not both"
            )
        field(("ops",), lambda: whole_number(len(ops), "the number of ops", 1, MAX_OPS))
        columns: dict[str, list[float]] = {s: [] for s in STAGES}
        for index, op in enumerate(ops):  # typos first: they explain missing values
            if not isinstance(op, Mapping):
                raise PipeLabError(f"{where('ops', index)}: op {index + 1} must be a table")
            check_keys(op, STAGES, ("ops", index))
        for index, op in enumerate(ops):
            for s in STAGES:
                if s in op:
                    value = field(
                        ("ops", index, s),
                        lambda s=s, op=op, index=index: duration(
                            op[s], f"op {index + 1} {s} duration"
                        ),
                    )
                elif s in defaults:
                    value = base[s]  # the [defaults] table gives the stage for every op
                else:
                    raise PipeLabError(
                        f"{where('ops', index)}: op {index + 1} has no {s} time "
                        f"(give it, or a {s} in [defaults])"
                    )
                columns[s].append(value)
        r, c, w = (np.array(columns[s], dtype=np.float64) for s in STAGES)
        return cls(r, c, w, **common)


def toml_document(text: str, source: str, max_ops: int = MAX_OPS) -> tuple[dict[str, Any], str]:
    """A scenario file's ``text`` parsed: (its tables, the text parsed), or one line that
    begins with ``source``. A byte-order mark and trailing white space are dropped; more
    than ``max_ops`` [[ops]] are refused unparsed (a million take a minute)."""
    text = text.removeprefix("\ufeff").rstrip()
    listed = len(_OPS_HEADER.findall(text))
    if listed > max_ops:
        raise PipeLabError(
            f"{source}: {listed:,} [[ops]] tables: at most {max_ops:,} ops can be read"
        )
    depth, line = deepest_nesting(text)
    if depth > MAX_NESTING:
        raise PipeLabError(
            f"{source}, line {line}: arrays or tables nested more than {MAX_NESTING} "
            "levels deep (a scenario file needs two)"
        )
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        # tomllib quotes keys whole ("Cannot declare ('xxx…',) twice"): cut to a line
        problem = elided_middle(str(error), 2 * SHOWN)
        raise PipeLabError(f"{source}: not valid TOML: {problem}") from None
    except ValueError:  # tomllib's int(): more than 4,300 digits
        raise PipeLabError(f"{source}: not valid TOML: a number with too many digits") from None
    except RecursionError:  # guarded above; kept so no traceback can ever escape
        raise PipeLabError(f"{source}: not valid TOML: nested too deeply") from None


def file_text(path: str | Path) -> tuple[str, str]:
    """(the text of the scenario file at ``path``, its escaped name); "-" reads standard
    input. At most `MAX_FILE_BYTES`; a one-line PipeLabError when unreadable as text."""
    if str(path) == STDIN:
        raw, source = _read_stdin(), "standard input"
    else:
        path = Path(path)
        source = path_text(path)  # a file name is hostile text: escaped, cut to a line
        try:
            if path.exists() and not path.is_dir() and not path.is_file():
                # /dev/zero, a pipe: reading would never end (or never stop growing)
                raise PipeLabError(f"{source}: not a regular file, so not a scenario file")
            if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
                raise PipeLabError(
                    f"{source}: {path.stat().st_size:,} bytes is too big for a scenario "
                    f"file (at most {MAX_FILE_BYTES:,})"
                )
            raw = path.read_bytes()
        except FileNotFoundError:
            raise PipeLabError(f"{source}: no such scenario file") from None
        except IsADirectoryError:
            raise PipeLabError(f"{source}: is a folder, not a scenario file") from None
        except OSError as error:
            raise PipeLabError(f"{source}: cannot read: {error.strerror}") from None
    try:
        return raw.decode("utf-8-sig"), source  # UTF-8, with or without a byte-order mark
    except UnicodeDecodeError:
        raise PipeLabError(f"{source}: not a text (UTF-8) file") from None


class FileKeys:
    """Errors about a parsed file's keys, each beginning with the file and the key's line
    (from ``text``, if any); ``top``: the keys a misplaced one is pointed to."""

    def __init__(self, source: str, text: str, top: Iterable[str]) -> None:
        self.source = source
        self.lines = key_lines(text) if text else {}
        self.top = sorted(top)

    def where(self, *path: str | int) -> str:
        line = line_of(self.lines, path)
        return f"{self.source}, line {line}" if line else self.source

    def check(
        self, table: Mapping[str, Any], allowed: Iterable[str], path: tuple[str | int, ...]
    ) -> None:
        """Refuse the first key of ``table`` not ``allowed``, with what it was meant to be."""
        for key in table:
            if key not in allowed:
                hint = _suggestion(str(key), allowed, path, self.top)
                raise PipeLabError(
                    f"{self.where(*path, key)}: unknown key {shown(key)}{_context(path)}{hint}"
                )

    def table(self, data: Mapping[str, Any], key: str, allowed: Iterable[str]) -> Mapping[str, Any]:
        """The table ``[key]`` of ``data`` (none: empty), holding only ``allowed`` keys."""
        table = data.get(key, {})
        if not isinstance(table, Mapping):
            raise PipeLabError(f"{self.where(key)}: [{key}] must be a table")
        self.check(table, allowed, (key,))
        return table

    def field(self, path: tuple[str | int, ...], convert: Any) -> Any:
        """``convert()``, its error prefixed with where ``path`` is."""
        try:
            return convert()
        except PipeLabError as error:
            raise PipeLabError(f"{self.where(*path)}: {error}") from None

    def texts(self, data: Mapping[str, Any]) -> dict[str, str]:
        """The file's name, description and policy, each checked where it is."""
        return {
            "name": self.field(("name",), lambda: text_field(data.get("name", "Untitled"), "name")),
            "description": self.field(
                ("description",), lambda: text_field(data.get("description", ""), "description")
            ),
            "policy": self.field(
                ("policy",), lambda: policy_field(data.get("policy", "pipelined"))
            ),
        }


def _suggestion(
    key: str, allowed: Iterable[str], path: tuple[str | int, ...], top: list[str]
) -> str:
    """ "; did you mean 'buffers'?", a hint that a key belongs at the top, or the list."""
    import difflib  # (a bad file's words only: not at the app's start-up)

    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    if path:
        close = difflib.get_close_matches(key, top, n=1, cutoff=0.75)
        if close:
            return f"; {close[0]!r} goes at the top of the file, above every [table]"
    return f" (expected one of: {', '.join(sorted(allowed))})"


def _context(path: tuple[str | int, ...]) -> str:
    """Where an unknown key was found, in the file's own words."""
    if not path:
        return ""
    if len(path) == 2 and isinstance(path[1], int):  # [[ops]], [[stages]], [[pools]]
        return f" in {str(path[0]).removesuffix('s')} {path[1] + 1}"
    return f" in [{'.'.join(str(p) for p in path)}]"


def text_field(value: Any, what: str) -> str:
    """A scenario's ``what`` ("name", "description"): text within its `TEXT_LIMITS`."""
    if not isinstance(value, str):
        raise PipeLabError(f"{what} must be text, not {shown(value)}")
    limit = TEXT_LIMITS[what]
    if len(value) > limit:
        raise PipeLabError(f"{what} is {len(value):,} characters long: at most {limit:,}")
    return value


def policy_field(value: Any) -> str:
    if value not in POLICIES:
        raise PipeLabError(f"policy must be sequential or pipelined, not {shown(value)}")
    return str(value)


def preset_names(shapes: bool = False) -> list[str]:
    """The shipped book-shaped presets' names, "book" first; with ``shapes``, the pipeline
    shapes' after them."""
    names = sorted((p.stem for p in PRESETS_DIR.glob("*.toml")), key=lambda n: (n != "book", n))
    if shapes:
        names += sorted(p.stem for p in SHAPES_DIR.glob("*.toml"))
    return names


def _close_preset(name: str) -> list[str]:
    """The preset ``name`` was probably meant to be, whatever its case ("BOOK" → "book")."""
    names = preset_names(shapes=True)
    by_fold = {known.casefold(): known for known in names}
    folded = name.strip().casefold().removesuffix(".toml")
    if folded in by_fold:
        return [by_fold[folded]]
    import difflib  # (a bad name's words only: not at the app's start-up)

    close = difflib.get_close_matches(folded, list(by_fold), n=1)
    return [by_fold[c] for c in close]


def _read_stdin() -> bytes:
    """Standard input, to its end: at most `MAX_FILE_BYTES` (PipeLabError beyond)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise PipeLabError("standard input is closed: give a scenario file's name")
    try:
        raw: bytes = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise PipeLabError(f"standard input: cannot read: {error.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise PipeLabError(
            f"standard input: more than {MAX_FILE_BYTES:,} bytes is too big for a scenario"
        )
    return raw


def load_preset(name: str) -> Scenario:
    """The shipped preset ``name`` (a file stem in assets/presets; nothing else)."""
    path = PRESETS_DIR / f"{name}.toml"
    if name not in preset_names():
        known = ", ".join(preset_names(shapes=True))
        close = _close_preset(name)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise PipeLabError(f"unknown preset {shown(name)}{hint} (known: {known})")
    return Scenario.load(path)
