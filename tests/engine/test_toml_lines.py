"""engine.base.toml_lines: the line of every key path in any TOML document tomli_w writes (random
nesting, arrays of tables, inline tables in arrays, keys that need quotes, strings that
look like keys), and the nesting guard on text that is not even valid."""

from __future__ import annotations

import re
import tomllib

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.base.toml_lines import deepest_nesting, key_lines, line_of

# Unique keys across a document pin each key to one line; some need quotes, some hold
# dots, spaces, "=" or brackets (which a text search would confuse with structure).
_names = st.text(alphabet=st.sampled_from("abcxyz_-09. =[]{}'\"#é"), min_size=1, max_size=6).map(
    lambda s: s.replace("\\", "")
)
_scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from("ab =[]{}\"'#\n.x"), max_size=12),
)


@st.composite
def documents(draw: st.DrawFn) -> dict:
    used: set[str] = set()

    def key() -> str:
        name = draw(_names.filter(lambda k: k not in used))
        used.add(name)
        return name

    def table(depth: int) -> dict:
        result: dict = {}
        for _ in range(draw(st.integers(0 if depth else 1, 4))):
            kind = draw(st.sampled_from(["scalar", "scalar", "table", "tables", "list"]))
            if depth >= 3:
                kind = "scalar"
            if kind == "scalar":
                result[key()] = draw(_scalars)
            elif kind == "table":
                result[key()] = table(depth + 1)
            elif kind == "tables":
                result[key()] = [table(depth + 1) for _ in range(draw(st.integers(1, 3)))]
            else:
                result[key()] = draw(st.lists(_scalars, max_size=3))
        return result

    return table(0)


def _key_paths(data: object, path: tuple = ()) -> list[tuple]:
    """Every path that ends in a key (not an index), depth first."""
    found: list[tuple] = []
    if isinstance(data, dict):
        for k, v in data.items():
            found.append((*path, k))
            found += _key_paths(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += _key_paths(v, (*path, i))
    return found


def _written(key: str) -> str:
    """How tomli_w writes a key: bare when it can, else a basic string."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return key
    return tomli_w.dumps({key: 1}).split(" = ")[0]


@settings(max_examples=150, deadline=None)
@given(documents())
def test_every_key_path_finds_the_line_that_defines_it(data: dict) -> None:
    text = tomli_w.dumps(data)
    assert tomllib.loads(text) == data
    lines = key_lines(text)
    rows = text.splitlines()
    for path in _key_paths(data):
        line = line_of(lines, path)
        assert line is not None, (path, text)
        row = rows[line - 1]
        written = _written(path[-1])
        assert written in row, (path, line, text)
        stripped = row.strip()
        is_header = stripped.startswith("[")
        assert is_header or re.search(rf"(^|[{{,]\s*){re.escape(written)}\s*=", stripped), (
            path,
            row,
        )


def test_array_of_tables_entries_have_their_own_lines() -> None:
    text = "[[ops]]\nread = 1\n\n[[ops]]\nread = 2\n[ops.extra]\nx = 1\n[[ops]]\n"
    lines = key_lines(text)
    assert [lines[("ops", i)] for i in range(3)] == [1, 4, 8]
    assert lines[("ops", 1, "read")] == 5
    assert lines[("ops", 1, "extra", "x")] == 7


def test_deepest_nesting_skips_strings_and_comments() -> None:
    assert deepest_nesting("a = [[1], [2]]\n") == (2, 1)
    assert deepest_nesting('a = "[[[["\n# {{{{\nb = [\n[\n1]]\n') == (2, 4)
    assert deepest_nesting("s = '''\n[[[[\n'''\n") == (0, 1)
    assert deepest_nesting('s = "unclosed [[[[\nt = [1]\n') == (1, 2)
