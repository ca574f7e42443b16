"""Scenario validation and the TOML format (round trip, errors naming key and line)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.base.errors import PipeLabError
from engine.base.validation import MAX_DURATION, MIN_DURATION
from engine.model.scenario import MAX_OPS, Scenario, load_preset, preset_names, repeated_to

EXPECTED_PRESETS = {
    "book",
    "double-buffering",
    "memory-bound",
    "compute-bound",
    "uneven-ops",
    "two-load-units",
    "many-ops",
}


def test_presets_exist_with_descriptions() -> None:
    assert set(preset_names()) >= EXPECTED_PRESETS
    assert preset_names()[0] == "book"
    for name in preset_names():
        scenario = load_preset(name)
        assert scenario.name and scenario.description.endswith(".")
        assert "\n" not in scenario.description


def test_preset_character() -> None:
    assert load_preset("double-buffering").buffers == 2
    memory = load_preset("memory-bound")
    assert memory.read[0] > memory.compute[0]
    compute = load_preset("compute-bound")
    assert compute.compute[0] > compute.read[0]
    assert len(set(load_preset("uneven-ops").read.tolist())) > 1
    assert load_preset("two-load-units").workers == (2, 1, 1)
    assert load_preset("many-ops").n_ops == 1000


def test_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(PipeLabError, match=r"unknown preset 'nope'.*book"):
        load_preset("nope")


#: What a scenario accepts: 0, or a duration in [MIN_DURATION, MAX_DURATION].
durations = st.one_of(st.just(0.0), st.floats(MIN_DURATION, MAX_DURATION))


@settings(max_examples=100, deadline=None)
@given(
    st.booleans(),
    st.lists(st.tuples(*(durations for _ in range(3))), min_size=1, max_size=20),
    st.tuples(*(st.integers(1, 8) for _ in range(3))),
    st.integers(0, 50),
    st.sampled_from(["sequential", "pipelined"]),
    st.text(max_size=30),
)
def test_toml_round_trip_is_exact(uniform, rows, workers, buffers, policy, name) -> None:
    if uniform:
        scenario = Scenario.uniform_ops(
            len(rows), *rows[0], workers=workers, buffers=buffers, policy=policy, name=name
        )
    else:
        r, c, w = zip(*rows, strict=True)
        scenario = Scenario(r, c, w, workers=workers, buffers=buffers, policy=policy, name=name)
    text = scenario.to_toml()
    again = Scenario.from_toml(text)
    assert again.to_toml() == text
    assert np.array_equal(again.durations, scenario.durations)
    assert (again.workers, again.buffers, again.policy, again.name) == (
        scenario.workers,
        scenario.buffers,
        scenario.policy,
        scenario.name,
    )
    assert again.uniform == scenario.uniform


def test_save_and_load_file(tmp_path: Path) -> None:
    scenario = load_preset("uneven-ops")
    path = tmp_path / "s.toml"
    scenario.save(path)
    assert Scenario.load(path).to_toml() == scenario.to_toml()
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]


BAD_FILES = [
    ("[defaults]\ncount = 3\nraed = 1.0\n", "line 3: unknown key 'raed' in \\[defaults\\]"),
    ("name = 'x'\nbufers = 2\n", "line 2: unknown key 'bufers'"),
    ("[workers]\nload = 1\nstorage = 2\n", "line 3: unknown key 'storage' in \\[workers\\]"),
    (
        "[[ops]]\nread = 1.0\n[[ops]]\nread = 1\ncomptue = 2\n",
        "line 5: unknown key 'comptue' in op 2",
    ),
    ("[defaults]\nread = -1.0\n", "line 2: read duration must be 0 or more"),
    ("[defaults]\nread = nan\n", "line 2: read duration must be a finite number"),
    ("[defaults]\nread = inf\n", "line 2: read duration must be a finite number"),
    ("[defaults]\nread = 'fast'\n", "line 2: read duration must be a number"),
    ("[defaults]\ncount = 0\n", "line 2: count must be between 1"),
    (f"[defaults]\ncount = {MAX_OPS + 1}\n", "count must be between 1 and 10,000,000"),
    ("[workers]\ncompute = 0\n", "line 2: compute workers must be between 1"),
    ("buffers = -1\n", "line 1: buffers must be between 0"),
    ("policy = 'eager'\n", "line 1: policy must be sequential or pipelined"),
    ("name = \n", "not valid TOML"),
    ("ops = []\n", "\\[\\[ops\\]\\] must list at least one op"),
    ("", "no ops: give a \\[defaults\\] table"),
    ("name = 'only a name'\n", "no ops"),
    ("[[ops]]\nread = 1.0\ncompute = 1.0\n", "line 1: op 1 has no write time"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_bad_files_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(PipeLabError, match=message) as caught:
        Scenario.from_toml(text, source="bad.toml")
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("bad.toml")


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(PipeLabError, match="no such scenario file"):
        Scenario.load(tmp_path / "missing.toml")
    with pytest.raises(PipeLabError, match="is a folder"):
        Scenario.load(tmp_path)
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PipeLabError, match="not a text"):
        Scenario.load(binary)


def test_devices_pipes_and_huge_files_are_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/dev/zero would be read until the machine runs out of memory; a FIFO would block."""
    import os

    import engine.model.scenario

    with pytest.raises(PipeLabError, match="not a regular file"):
        Scenario.load("/dev/zero")
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(PipeLabError, match="not a regular file"):
        Scenario.load(fifo)
    big = tmp_path / "big.toml"
    big.write_text('name = "x"\n' + "# padding\n" * 20)
    monkeypatch.setattr(engine.model.scenario, "MAX_FILE_BYTES", 100)
    with pytest.raises(PipeLabError, match="too big for a scenario file"):
        Scenario.load(big)


@pytest.mark.parametrize("value", [-1.0, math.nan, math.inf, -math.inf])
def test_constructor_rejects_bad_durations(value: float) -> None:
    with pytest.raises(PipeLabError):
        Scenario([1.0, value], [1.0, 1.0], [1.0, 1.0])
    with pytest.raises(PipeLabError):
        Scenario.uniform_ops(2, compute=value)


@pytest.mark.parametrize("read", [[[1.0, 2.0], [3.0]], [1.0, "slow"], {"a": 1.0}, [[1.0], 2.0]])
def test_constructor_names_durations_that_are_not_numbers(read: object) -> None:
    """Ragged lists, text or a mapping as the read durations: one clear error, the
    same as for the other stages, not numpy's."""
    with pytest.raises(PipeLabError, match="read durations must be numbers"):
        Scenario(read, [1.0, 1.0], [1.0, 1.0])  # type: ignore[arg-type]
    with pytest.raises(PipeLabError, match="write durations must be numbers"):
        Scenario([1.0, 1.0], [1.0, 1.0], read)  # type: ignore[arg-type]


def test_constructor_rejects_bad_counts() -> None:
    with pytest.raises(PipeLabError, match="number of ops"):
        Scenario([], [], [])
    with pytest.raises(PipeLabError, match="load workers"):
        Scenario.uniform_ops(2, workers=(0, 1, 1))
    with pytest.raises(PipeLabError, match="one value per op"):
        Scenario([1.0, 1.0], [1.0], [1.0, 1.0])
    with pytest.raises(PipeLabError, match="whole number"):
        Scenario.uniform_ops(2, buffers=1.5)  # type: ignore[arg-type]


def test_with_changes_keeps_per_op_lists_when_only_the_count_changes() -> None:
    uneven = load_preset("uneven-ops")
    longer = uneven.with_changes(ops=7)
    assert longer.n_ops == 7 and not longer.uniform
    assert longer.read[5] == uneven.read[0]
    flat = uneven.with_changes(read=2.0)
    assert flat.uniform and flat.n_ops == uneven.n_ops and (flat.read == 2.0).all()
    assert flat.compute[0] == uneven.compute[0]


@given(st.lists(st.floats(0.5, 9.0), min_size=1, max_size=9), st.integers(1, 40))
def test_repeated_to_repeats_the_values_in_turn(values: list[float], count: int) -> None:
    """As numpy's own np.resize (the oracle) does it: the values end to end, cut."""
    repeated = repeated_to(np.array(values), count)
    assert np.array_equal(repeated, np.resize(np.array(values), count))
    assert [repeated[i] for i in range(count)] == [values[i % len(values)] for i in range(count)]


# -- the magnitude policy -------------------------------------------------------------------

OUTSIDE = [1e-320, 5e-324, 1e-7, 9.99e-7, 1.0000001e9, 1e308, 1.7976931348623157e308]


@pytest.mark.parametrize("value", OUTSIDE)
def test_durations_outside_the_policy_name_field_and_limit(value: float) -> None:
    for build in (
        lambda: Scenario.uniform_ops(2, read=value),
        lambda: Scenario([1.0, value], [1.0, 1.0], [1.0, 1.0]),
        lambda: load_preset("book").with_changes(compute=value),
        lambda: Scenario.from_toml(f"[defaults]\nwrite = {value!r}\n", source="f.toml"),
    ):
        with pytest.raises(PipeLabError, match=r"0 or between 1e-6 and 1e9") as caught:
            build()
        message = str(caught.value)
        assert "\n" not in message and any(s in message for s in ("read", "compute", "write"))


@pytest.mark.parametrize("value", [0.0, MIN_DURATION, 1.0, MAX_DURATION, 0, 10**9])
def test_durations_inside_the_policy_are_accepted(value: float) -> None:
    assert Scenario.uniform_ops(2, read=value, compute=value, write=value).read[0] == value


def test_the_largest_scenario_keeps_every_time_finite() -> None:
    """10^7 ops (the most) of MAX_DURATION each: sequential sums 3·10^16, far from overflow."""
    assert np.isfinite(MAX_OPS * 3 * MAX_DURATION) and MAX_OPS * 3 * MAX_DURATION < 1e17


def test_messages_quote_a_long_value_short() -> None:
    with pytest.raises(PipeLabError) as caught:
        Scenario.from_toml("[defaults]\nread = '" + "x" * 100_000 + "'\n", source="f.toml")
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[defaults]\ncount = 1" + "0" * 5000 + "\n", "a number with too many digits"),
        (
            "[defaults]\ncount = " + "9" * 40 + "\n",
            "count must be between 1 and 10,000,000, not a 40-digit number",
        ),
        ("[defaults]\nread = 1979-05-27\n", "read duration must be a number"),
        ("[defaults]\nread = [1, 2]\n", "read duration must be a number"),
        ("[defaults]\nread = true\n", "read duration must be a number"),
        ("[[ops]]\nread = 1\ncompute = 1\nwrite = {x = 1}\n", "op 1 write duration"),
        ("ops = [1, 2]\n", "op 1 must be a table"),
        ("ops = 'three'\n", "must list at least one op"),
        ("workers = 2\n[defaults]\n", "[workers] must be a table"),
        ("defaults = 3\n", "[defaults] must be a table"),
        ("name = 5\n[defaults]\n", "name must be text"),
    ],
)
def test_odd_values_are_one_line(text: str, message: str) -> None:
    with pytest.raises(PipeLabError) as caught:
        Scenario.from_toml(text, source="f.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


# -- TOML: the line of every key form, nesting, suggestions --------------------------------

KEY_LINES = [
    # dotted keys, at the top and inside a table
    ("defaults.count = 3\ndefaults.foo = 1\n", 2, "unknown key 'foo' in [defaults]"),
    ("[defaults]\ncount = 3\nsub.x = 1\n", 3, "unknown key 'sub' in [defaults]"),
    ("[workers]\nload = 1\n\n\ncompute.x = 2\n", 5, "compute workers must be a whole number"),
    # sub-tables
    ("[defaults]\ncount = 3\n[defaults.sub]\nx = 1\n", 3, "unknown key 'sub' in [defaults]"),
    ("[defaults]\ncount = 3\n\n[ defaults . 'sub' ]\n", 4, "unknown key 'sub'"),
    ("[workers.extra]\n[defaults]\n", 1, "unknown key 'extra' in [workers]"),
    # arrays of tables: the entry, not the first key of that name
    (
        "[[ops]]\nread = 1\ncompute = 1\nwrite = 1\n[[ops]]\nread = 1\ncomptue = 2\n",
        7,
        "unknown key 'comptue' in op 2; did you mean 'compute'?",
    ),
    (
        "[[ops]]\nread = 1\ncompute = 1\nwrite = 1\n[[ops]]\nread = -1\n",
        6,
        "op 2 read duration must be 0 or more",
    ),
    ("[[ops]]\nread = 1\ncompute = 1\nwrite = 1\n[[ops]]\nread = 1\n", 5, "op 2 has no compute"),
    ("[[ops]]\nread = 1\ncompute = 1\nwrite = 1\n[[ops.sub]]\n", 5, "unknown key 'sub' in op 1"),
    # inline tables and arrays of inline tables, over several lines
    (
        "ops = [\n  {read = 1, compute = 1, write = 1},\n  {read = 1, comptue = 1},\n]\n",
        3,
        "unknown key 'comptue' in op 2",
    ),
    ("workers = {load = 1, stroe = 2}\n[defaults]\n", 1, "did you mean 'store'?"),
    # keys that also appear in strings and comments before the real key
    ('name = "bufers = 2"\n# bufers = 3\nbufers = 2\n', 3, "unknown key 'bufers'"),
    (
        'description = """\n[defaults]\nraed = 1\n"""\n[defaults]\nraed = 2\n',
        6,
        "unknown key 'raed' in [defaults]; did you mean 'read'?",
    ),
    ("description = '''\nbuffers = -1\n'''\nbuffers = -1\n", 4, "buffers must be between 0"),
    ('name = "a \\" buffers = -1"\nbuffers = -1\n', 2, "buffers must be between 0"),
    # quoted keys
    ('"polcy" = "x"\n', 1, "did you mean 'policy'?"),
    ("[defaults]\n'read' = 1\n\"count\" = 0\n", 3, "count must be between 1"),
    # a top-level key in the wrong table
    ("[defaults]\ncount = 3\nbuffers = 2\n", 3, "'buffers' goes at the top of the file"),
    # CRLF line ends, comments and blank lines
    ("# a scenario\r\n\r\n[defaults]\r\ncount = 3 # three\r\nbufers = 1\r\n", 5, "bufers"),
]


@pytest.mark.parametrize(("text", "line", "message"), KEY_LINES)
def test_errors_name_the_exact_line(text: str, line: int, message: str) -> None:
    with pytest.raises(PipeLabError) as caught:
        Scenario.from_toml(text, source="f.toml")
    error = str(caught.value)
    assert error.startswith(f"f.toml, line {line}: "), error
    assert message in error and "\n" not in error


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100 + "]" * 100 + "\n",
        "a = " + "[" * 100_000 + "\n",  # not even valid: refused before the parser recurses
        "a = " + "{b = " * 50 + "1" + "}" * 50 + "\n",
        "x = 1\n\nops = [" + "[" * 40 + "\n",
    ],
)
def test_deep_nesting_is_one_line_before_parsing(text: str) -> None:
    with pytest.raises(PipeLabError, match=r"nested more than 32 levels deep") as caught:
        Scenario.from_toml(text, source="f.toml")
    assert "\n" not in str(caught.value) and "line " in str(caught.value)


def test_nesting_in_strings_and_comments_does_not_count() -> None:
    text = 'name = "' + "[" * 100 + '"\n# ' + "{" * 100 + "\n[defaults]\ncount = 2\n"
    assert Scenario.from_toml(text).n_ops == 2


def test_unknown_keys_without_a_close_match_list_the_choices() -> None:
    with pytest.raises(PipeLabError, match=r"unknown key 'zzz' \(expected one of: buffers"):
        Scenario.from_toml("zzz = 1\n")


def test_a_changed_scenario_shares_its_durations() -> None:
    """Changing the buffers, workers or name of a 10^6-op scenario copies no durations
    (24 MB each time); a caller's own array is copied (it could change it afterwards)."""
    from dataclasses import replace

    read = np.linspace(1.0, 2.0, 100)
    scenario = Scenario(read, read, read, buffers=3)
    assert scenario.read is not read and not scenario.read.flags.writeable
    read[0] = 5.0
    assert scenario.read[0] == 1.0
    changed = replace(scenario, buffers=4, workers=(2, 2, 2))
    assert changed.read is scenario.read and changed.write is scenario.write
    frozen_view = scenario.read[::2]  # read-only, but not a column of its own: copied
    assert Scenario(frozen_view, frozen_view, frozen_view).read is not frozen_view


@pytest.mark.parametrize(("what", "limit"), [("name", 200), ("description", 2000)])
def test_names_and_descriptions_have_a_length_limit(what: str, limit: int, tmp_path: Path) -> None:
    """A name heads every view: at the limit it is taken, beyond it the file is refused
    with one short line that says how long the text was (not the text)."""
    assert Scenario.uniform_ops(3, **{what: "x" * limit}).__dict__[what] == "x" * limit
    with pytest.raises(PipeLabError, match=rf"{what} is {limit + 1:,} characters long"):
        Scenario.uniform_ops(3, **{what: "x" * (limit + 1)})
    path = tmp_path / "long.toml"
    path.write_text(f'{what} = "{"x" * 1_000_000}"\n[defaults]\ncount = 3\n')
    with pytest.raises(PipeLabError) as refused:
        Scenario.load(path)
    message = str(refused.value)
    assert message.endswith(f"line 1: {what} is 1,000,000 characters long: at most {limit:,}")
    assert len(message) < 200 and "\n" not in message


def test_a_file_listing_more_ops_than_allowed_is_refused_before_it_is_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tomllib

    def never(text: str) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(tomllib, "loads", never)
    text = "[[ops]]\nread = 1\n" * 11 + "  [[ ops ]]\nread = 1\n"
    with pytest.raises(PipeLabError, match=r"^f\.toml: 12 \[\[ops\]\] tables: at most 10 ops"):
        Scenario.from_toml(text, source="f.toml", max_ops=10)


def test_white_space_that_ends_a_file_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """64 MiB of trailing spaces took tomllib 12-24 s to skip."""
    import tomllib

    parsed: list[str] = []
    loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: parsed.append(text) or loads(text))
    scenario = Scenario.from_toml("[defaults]\ncount = 2" + " " * 2**20 + "\n\n\t")
    assert scenario.n_ops == 2 and parsed == ["[defaults]\ncount = 2"]
