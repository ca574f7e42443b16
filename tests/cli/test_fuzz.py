"""Fuzzing the command line in-process: random bad (and good) scenario files and random flag
values go through `main(argv)`. Whatever comes in, the answer is success, or exit status 2
with exactly one line on stderr and nothing on stdout: never a traceback, a warning or
another exit status.

CI runs a fixed set of examples (tests/conftest.py loads hypothesis' derandomized "ci"
profile when CI is set). At a desk, run longer with new examples each time:

    PIPELAB_FUZZ_EXAMPLES=5000 uv run pytest -q tests/cli/test_fuzz.py \
        --hypothesis-show-statistics
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.model.scenario import PRESETS_DIR
from main import main

EXAMPLES = int(os.environ.get("PIPELAB_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


class FullStdout(io.StringIO):
    """Standard output on a full disk (``> /dev/full``): every write fails."""

    written = False

    def write(self, text: str) -> int:
        self.written = True
        raise OSError(28, "No space left on device")


#: Where standard output goes: a terminal or pipe, a full disk, or nowhere (``>&-``: Python
#: then has sys.stdout None).
STDOUTS = ("open", "full", "closed")


def _run(argv: list[str], stdout: str = "open") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    target = {"open": out, "full": FullStdout(), "closed": None}[stdout]
    with contextlib.redirect_stdout(target), contextlib.redirect_stderr(err):  # type: ignore[type-var]
        code = main(argv)
    if isinstance(target, FullStdout) and target.written:
        assert code in (1, 2), (argv, "a failed write to stdout passed for success")
    if stdout == "closed" and "--out" not in argv:
        assert code in (1, 2), (argv, "nothing could be printed, yet it succeeded")
    return code, out.getvalue(), err.getvalue()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check(argv: list[str], stdout: str = "open") -> int:
    code, out, err = _run(argv, stdout)
    if code == 0:
        assert err == "", (argv, err)
    else:
        assert code == 2 or (code == 1 and stdout != "open"), (argv, code, err)
        assert out == "", (argv, out[:200])
        assert err.startswith("pipelab: ") and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err and "Warning" not in err, (argv, err)
        missing = re.search(r"argument (--[\w-]+): expected one argument", err)
        if missing:  # only a flag with no value, never one given a number (-1e-7)
            flag = missing.group(1)
            places = [i for i, item in enumerate(argv) if item == flag]
            assert any(i + 1 == len(argv) or not _is_number(argv[i + 1]) for i in places), (
                argv,
                err,
            )
    return code


# -- scenario files -----------------------------------------------------------------------

KEYS = [
    "name", "description", "policy", "buffers", "workers", "defaults", "ops", "count",
    "read", "compute", "write", "load", "store", "bufers", "raed", "wrkers", "x",
    "defaults.count", "defaults.read", "defaults.foo", "workers.load", "workers.stroe",
    '"read"', "'ops'", '"a.b"', "ops.read",
]  # fmt: skip
VALUES = [
    "1", "0", "-1", "3", "1.5", "0.000001", "1e-7", "1e9", "1.5e9", "1e308", "1e-320",
    "5e-324", "nan", "-nan", "inf", "-inf", "1e400", "10000001", "999999999999999999999",
    "0x10", "0b11", "1_000", "true", "false", "'text'", '"x"', '""', "1979-05-27",
    "1979-05-27T07:32:00Z", "07:32:00", "[]", "[1, 2]", "[[1]]", "{}", "{read = 1}",
    "{read = 1, compute = -1, write = 2}", "[{read = 1, compute = 1, write = 1}]",
    "[{read = 1}, 2]", "'sequential'", "'pipelined'", "'eager'", '"""\nmulti\nline"""',
    "'''\n[[ops]]\n'''", '"\\u00e9"', "1" + "0" * 5000, "[" * 40 + "]" * 40, "{a = " * 40,
    "[" * 3000 + "]" * 3000, "{a = " * 2000 + "1" + "}" * 2000, "[" * 100_000,
]  # fmt: skip
LINES = [
    "[defaults]", "[workers]", "[[ops]]", "[defaults.sub]", "[[ops.sub]]", "[ops]",
    "[[defaults]]", "", "# a comment", "[", "]]", "= 1", "a b = 1", "[workers]\nload = 1",
    "[defaults]\ncount = 2", "[[ops]]\nread = 1\ncompute = 1\nwrite = 1", "\x00", "\ufeff",
]  # fmt: skip

_value = st.one_of(
    st.sampled_from(VALUES),
    st.integers(-5, 60).map(str),
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False).map(repr),
)
_line = st.one_of(
    st.tuples(st.sampled_from(KEYS), _value).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.sampled_from(LINES),
)
_structured = st.lists(_line, max_size=14).map("\n".join)
#: Nearly valid files: the right shape, a random value in each place.
_shaped = st.one_of(
    st.tuples(_value, _value, _value, _value, _value).map(
        lambda v: (
            f"buffers = {v[0]}\n[defaults]\ncount = {v[1]}\nread = {v[2]}\n"
            f"compute = {v[3]}\nwrite = {v[4]}\n"
        )
    ),
    st.tuples(_value, _value, _value, _value).map(
        lambda v: (
            f"[workers]\nload = {v[0]}\ncompute = {v[1]}\n[[ops]]\nread = {v[2]}\n"
            f"compute = 1\nwrite = {v[3]}\n[[ops]]\nread = 1\ncompute = 1\nwrite = 1\n"
        )
    ),
    st.tuples(st.sampled_from(KEYS), _value, st.sampled_from(KEYS), _value).map(
        lambda v: f'name = "{v[0]} = {v[1]}"\n[defaults]\ncount = 2\n{v[2]} = {v[3]}\n'
    ),
)
_PRESETS = sorted(p.read_text() for p in PRESETS_DIR.glob("*.toml") if "many" not in p.name)


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    """A preset with a few characters deleted, inserted or a line doubled."""
    text = draw(st.sampled_from(_PRESETS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "double"]))
        if action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 5)) :]
        elif action == "insert":
            text = text[:at] + draw(st.sampled_from(list("[]{}\"'=#\n.,-0e \\"))) + text[at:]
        else:
            lines = text.splitlines()
            if lines:
                row = draw(st.integers(0, len(lines) - 1))
                lines.insert(row, lines[row])
            text = "\n".join(lines)
    return text


_bytes = st.one_of(
    st.binary(max_size=60),
    st.sampled_from([b"\xff\xfe[defaults]\n", b"[defaults]\ncount = 2\n\x00", b"\xef\xbb\xbf"]),
)


@FUZZ
@given(
    st.sampled_from(_PRESETS),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "\n", "\n# the end\n", "   \n"]),
)
def test_valid_files_stay_valid_in_any_dress(text: str, bom: bool, newline: str, tail: str) -> None:
    """A byte-order mark (Notepad), CRLF line ends, a trailing comment or blank: the same
    scenario, read without complaint."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dressed.toml"
        body = (text + tail).replace("\n", newline).encode("utf-8")
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body)
        assert _check(["simulate", "--scenario", str(path), "--width", "50"]) == 0


@FUZZ
@given(st.one_of(_structured, _shaped, _mutated(), _bytes))
def test_random_scenario_files_succeed_or_fail_in_one_line(content: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.toml"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
        _check(["simulate", "--scenario", str(path), "--width", "50"])


# -- flag values ------------------------------------------------------------------------

NUMBERS = [
    "0", "-0", "1", "-1", "2", "1.5", "1e-6", "9e-7", "1e9", "1000000001", "1e308", "1e-320",
    "nan", "inf", "-inf", "", " ", "abc", "1,5", "١٢", "0x10", "1_000", "10000001", "1024",
    "1025", "4294967296", "9" * 30, "1e3", "+3", "3.0", "--", "-", "None",
    "-1e-7", "-1e5", "-0e0", "-1E+3", "-.5e1", "-5.", "-1_0", "-nan", "-Infinity", "9.0000001",
]  # fmt: skip
_number = st.one_of(
    st.sampled_from(NUMBERS),
    st.integers(-3, 300).map(str),
    st.floats(min_value=-1e10, max_value=1e10).map(repr),
    st.floats(allow_nan=False).map(lambda x: f"{x:e}"),  # every exponent form, negatives too
    st.text(max_size=6),
)
_name = st.one_of(
    st.sampled_from(["book", "many-ops", "boook", "", " ", "../book", "nope", "uneven-ops"]),
    st.text(max_size=8),
)
SIMULATE_FLAGS = {
    "--ops": _number, "--read": _number, "--compute": _number, "--write": _number,
    "--buffers": _number, "--load-workers": _number, "--compute-workers": _number,
    "--store-workers": _number, "--width": _number, "--preset": _name,
    "--policy": st.sampled_from(["sequential", "pipelined", "both", "eager", ""]),
    "--format": st.sampled_from(["table", "json", "trace", "xml", ""]),
}  # fmt: skip
WARPS_FLAGS = {
    "--warps": _number, "--compute": _number, "--latency": _number, "--cycles": _number,
    "--width": _number, "--format": st.sampled_from(["table", "json", "xml"]),
}  # fmt: skip
EXPORT_FLAGS = {
    **{k: v for k, v in SIMULATE_FLAGS.items() if k not in ("--format", "--width")},
    "--time": _number, "--policy": st.sampled_from(["sequential", "pipelined", "both", "x"]),
}  # fmt: skip

#: Valid values that are accepted but would make one example take minutes (10^7 ops is
#: allowed and takes tens of seconds): fuzzing is about bad values, so these are replaced.
_SLOW = {"10000000", "1e7", "9999999"}


@st.composite
def _argv(draw: st.DrawFn, flags: dict[str, st.SearchStrategy[str]]) -> list[str]:
    chosen = draw(st.lists(st.sampled_from(sorted(flags)), max_size=6))
    argv: list[str] = []
    for flag in chosen:
        value = draw(flags[flag])
        argv += [flag, "3" if value.strip() in _SLOW else value]
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:
        argv.append(draw(st.sampled_from(["--nope", "extra", "-x", "--ops"])))
    return argv


def _bounded(argv: list[str]) -> bool:
    """Keep examples quick: at most 5,000 ops and 200,000 warp cycles."""
    for flag, limit in (("--ops", 5_000), ("--cycles", 200_000)):
        for index, item in enumerate(argv[:-1]):
            if item == flag:
                try:
                    if float(argv[index + 1]) > limit and float(argv[index + 1]) < 1e7 + 1:
                        return False
                except ValueError:
                    pass
    return True


@FUZZ
@given(_argv(SIMULATE_FLAGS).filter(_bounded), st.sampled_from(STDOUTS))
def test_random_simulate_flags(argv: list[str], stdout: str) -> None:
    _check(["simulate", *argv], stdout)


@FUZZ
@given(_argv(WARPS_FLAGS).filter(_bounded), st.sampled_from(STDOUTS))
def test_random_warps_flags(argv: list[str], stdout: str) -> None:
    _check(["warps", *argv], stdout)


@FUZZ
@given(
    _argv(EXPORT_FLAGS).filter(_bounded),
    st.sampled_from(["t.json", "t.txt", "t", "sub/", "missing/t.json", "", "t.JSON"]),
)
def test_random_export_flags(argv: list[str], out: str) -> None:
    """Export to a trace (.json) or a bad target; image formats start Qt and are tested
    in tests/cli/test_export.py."""
    with tempfile.TemporaryDirectory() as folder:
        target = str(Path(folder) / out) if out else ""
        if out.endswith("/"):
            target += "/"
        _check(["export", *argv, "--out", target])
        if target.endswith("t.json"):
            assert not [p for p in Path(folder).iterdir() if p.name.endswith(".part")]
