"""The top level of the command line: --version, and parse errors said once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from engine.resources import version

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"pipelab {version()}\n"
    assert version()[0].isdigit() and version().count(".") >= 2


def test_main_py_is_the_same_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "main.py", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"pipelab {version()}\n"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--bogus"], "pipelab: unrecognized arguments: --bogus\n"),
        (["nope"], "pipelab: argument command: invalid choice: 'nope'"),
        (["simulate", "--policy", "x"], "pipelab: simulate: argument --policy: invalid choice"),
        (["warps", "--warps"], "pipelab: warps: argument --warps: expected one argument\n"),
    ],
)
def test_a_parse_error_is_one_line_with_one_prefix(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(expected) and err.count("\n") == 1, err
    assert "pipelab: pipelab:" not in err
