"""Strings from files and flags are hostile: a scenario's name, a bad value, a file name
reach the terminal escaped (no colour, title, cursor move or reversed text is obeyed) and
an error stays one line of at most `engine.base.text.MESSAGE_CHARS` characters, saying how long the
value it cut was."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.console import Progress
from cli.main import _fail
from engine.base.text import MESSAGE_CHARS as MAX_LINE
from main import main

ROOT = Path(__file__).resolve().parents[2]
#: ESC sequences (colour, window title), BEL, NUL, CSI as C1, a right-to-left override,
#: an isolate, a newline and a tab: all inside one name.
HOSTILE = "\x1b[31mRED\x1b]0;title\x07\x00\x9b31m\u202eevil\u2066x\u2069\nnext\tcol"
#: What no output of PipeLab may hold raw (its own newlines aside).
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
RAW_BYTES = re.compile(
    rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _toml(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _one_clean_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "", err[:300]
    assert err.count("\n") == 1 and err.endswith("\n"), err[:300]
    assert not RAW.search(err[:-1]), err
    assert len(err) - 1 <= MAX_LINE, len(err)
    return err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--policy", "both", "--ops", "5"],
        ["--format", "json"],
        ["--format", "trace"],
        ["--format", "json", "--policy", "both"],
    ],
)
def test_a_hostile_name_reaches_no_output_raw(capsys, tmp_path: Path, argv: list[str]) -> None:
    path = _toml(tmp_path, f"name = {json.dumps(HOSTILE)}\n[defaults]\ncount = 3\n")
    code, out, err = _run(capsys, "simulate", "--scenario", path, *argv)
    assert (code, err) == (0, "")
    assert not RAW.search(out), out[:300]
    if not argv:
        assert out.startswith("\\x1b[31mRED\\x1b]0;title\\x07\\x00\\x9b31m\\u202eevil")


def test_the_terminal_gets_no_raw_control_bytes(tmp_path: Path) -> None:
    """The bytes themselves, through a real process: the table and an error."""
    name = _toml(tmp_path, f"name = {json.dumps(HOSTILE)}\n[defaults]\ncount = 3\n")
    policy = _toml(tmp_path, f"policy = {json.dumps(HOSTILE)}\n", "p.toml")
    argv_hostile = HOSTILE.replace("\x00", "")  # (no NUL can be an argument)
    for argv in (["--scenario", name], ["--scenario", policy], ["--preset", argv_hostile]):
        result = subprocess.run(
            [sys.executable, "main.py", "simulate", *argv], cwd=ROOT, capture_output=True
        )
        assert not RAW_BYTES.search(result.stdout.replace(b"\n", b"") + result.stderr[:-1])
        assert result.stderr.count(b"\n") == (1 if result.returncode else 0)


@pytest.mark.parametrize(
    "toml",
    [
        f"policy = {json.dumps(HOSTILE)}\n",
        f"{json.dumps(HOSTILE)} = 1\n",
        f"buffers = {json.dumps(HOSTILE)}\n",
        f"description = [{json.dumps(HOSTILE)}]\n",
        f"[defaults]\nread = {json.dumps(HOSTILE)}\n",
        f"[defaults]\ncount = {json.dumps(HOSTILE)}\n",
        f"[workers]\nload = {json.dumps(HOSTILE)}\n",
    ],
)
def test_hostile_values_are_quoted_escaped(capsys, tmp_path: Path, toml: str) -> None:
    path = _toml(tmp_path, toml + ("[defaults]\ncount = 3\n" if "[defaults]" not in toml else ""))
    err = _one_clean_line(*_run(capsys, "simulate", "--scenario", path))
    assert "\\x1b[31mRED" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--scenario", "{tmp}/a\nb\x1b]0;x\x07.toml"],
        ["simulate", "--scenario", "{tmp}/bad name\n.toml", "--ops", "1"],
        ["simulate", "--preset", HOSTILE],
        ["simulate", "--format", HOSTILE],
        ["simulate", "--ops", HOSTILE],
        ["simulate", HOSTILE],
        ["simulate", "--out", "{tmp}/no\x1b[2Jdir/x.json"],
        ["export", "--out", "{tmp}/x.\x1b[31mpng"],
        ["warps", "--warps", HOSTILE],
    ],
)
def test_hostile_flags_and_file_names_are_one_escaped_line(
    capsys, tmp_path: Path, argv: list[str]
) -> None:
    """A file name with a newline once printed a two-line error."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if argv[-1] == "1":
        Path(argv[2]).write_text("[defaults]\ncount = 'x'\n")
    _one_clean_line(*_run(capsys, *argv))


@pytest.mark.parametrize(
    ("toml", "length"),
    [
        ('policy = "' + "x" * 1_000_000 + '"\n', "(1,000,000 characters)"),
        ("buffers = [" + ", ".join(["1"] * 100_000) + "]\n", "(100,000 items)"),
        ("description = [" + ", ".join(["1"] * 100_000) + "]\n", "(100,000 items)"),
        ('"' + "k" * 1_000_000 + '" = 1\n', "(1,000,000 characters)"),
        ("[defaults]\nread = '" + "r" * 1_000_000 + "'\n", "(1,000,000 characters)"),
    ],
)
def test_a_huge_value_is_quoted_short_with_its_length(
    capsys, tmp_path: Path, toml: str, length: str
) -> None:
    path = _toml(tmp_path, toml + ("[defaults]\ncount = 3\n" if "[defaults]" not in toml else ""))
    err = _one_clean_line(*_run(capsys, "simulate", "--scenario", path))
    assert length in err and len(err) < 300, err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--scenario", "{long}/s.toml"],
        ["simulate", "--out", "{long}/o.json"],
        ["export", "--out", "{long}/o.png"],
    ],
)
def test_a_long_path_is_shown_short_with_its_length_and_file_name(capsys, argv: list[str]) -> None:
    long = "/" + "/".join(["d" * 40] * 104)
    argv = [a.replace("{long}", long) for a in argv]
    err = _one_clean_line(*_run(capsys, *argv))
    name = Path(argv[-1]).name
    assert f"/{name} ({len(argv[-1]):,} characters)" in err and len(err) < 300, err


def test_the_error_line_is_escaped_and_capped_whatever_reaches_it(capsys) -> None:
    """The safety net under every message's own quoting (argparse quotes values whole)."""
    message = "head \x1b[31m " + "x" * 1_000_000 + " tail (choose from 'a', 'b')"
    assert _fail(message) == 2
    err = _one_clean_line(2, "", capsys.readouterr().err)
    assert err.startswith("pipelab: head \\x1b[31m x")
    assert f"({len('pipelab: ' + message):,} characters in all)" in err
    assert err.endswith("x tail (choose from 'a', 'b')\n")
    code, out, err = _run(capsys, "simulate", "--format", "f" * 100_000)
    assert err.endswith("(choose from 'table', 'json', 'trace')\n")
    _one_clean_line(code, out, err)


def test_the_progress_line_is_escaped() -> None:
    progress = Progress(width=200, clock=lambda: 100.0)
    progress.phase("reading \x1b]0;title\x07 \u202e")
    assert progress.line().startswith("pipelab: reading \\x1b]0;title\\x07 \\u202e (")


# -- one rule for whole numbers: flags as files ---------------------------------------------


@pytest.mark.parametrize(
    ("flags", "same_as"),
    [
        (["--ops", "3.0"], ["--ops", "3"]),
        (["--ops", "1e1"], ["--ops", "10"]),
        (["--buffers", "2.0"], ["--buffers", "2"]),
        (["--load-workers", "2.0", "--ops", "4"], ["--load-workers", "2", "--ops", "4"]),
    ],
)
def test_whole_numbers_written_as_floats_are_accepted_by_flags_as_by_files(
    capsys, flags: list[str], same_as: list[str]
) -> None:
    first = _run(capsys, "simulate", "--format", "json", *flags)
    second = _run(capsys, "simulate", "--format", "json", *same_as)
    assert first == second and first[0] == 0


def test_warps_flags_take_whole_floats_too(capsys) -> None:
    first = _run(capsys, "warps", "--warps", "4.0", "--cycles", "4e2", "--format", "json")
    assert first == _run(capsys, "warps", "--warps", "4", "--cycles", "400", "--format", "json")


@pytest.mark.parametrize(
    ("flag", "key"),
    [
        ("--ops", "[defaults]\ncount"),
        ("--buffers", "buffers"),
        ("--load-workers", "[workers]\nload"),
    ],
)
@pytest.mark.parametrize("value", ["3.5", "nan", "inf"])
def test_a_fraction_is_refused_in_the_same_words_as_in_a_file(
    capsys, tmp_path: Path, flag: str, key: str, value: str
) -> None:
    flag_err = _one_clean_line(*_run(capsys, "simulate", flag, value))
    path = _toml(tmp_path, f"{key} = {value}\n" + ("[defaults]\n" if "defaults" not in key else ""))
    file_err = _one_clean_line(*_run(capsys, "simulate", "--scenario", path))
    words = f"must be a whole number, not {value}"
    assert flag_err.endswith(f"argument {flag}: {words}\n") and file_err.endswith(f"{words}\n")


# -- the app's --preset and --scenario ------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--preset", "book", "--scenario", "x.toml"], "--scenario: not allowed with argument"),
        (["--scenario", "x.toml", "--preset", "book"], "--preset: not allowed with argument"),
        (["--preset", "many-ops", "simulate"], "--preset before a command is the app's"),
        (["--scenario", "x.toml", "export", "--out", "x.png"], "--scenario before a command"),
    ],
)
def test_the_apps_scenario_flags_conflict_as_under_simulate(
    capsys, argv: list[str], words: str
) -> None:
    """No app opens, and no command runs on another scenario than the one given."""
    err = _one_clean_line(*_run(capsys, *argv))
    assert words in err, err
