"""The top level of the command line: --version, and parse errors said once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from engine.base.resources import version

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


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["simulate", "--read", "-1e-7"], "read must be 0 or more, not -1e-7"),
        (["simulate", "--compute", "-1E5"], "compute must be 0 or more, not -100000"),
        (["simulate", "--write", "-2.5e+3"], "write must be 0 or more, not -2500"),
        (["simulate", "--read", "-.5e1"], "read must be 0 or more, not -5"),
        (["simulate", "--read", "-inf"], "read must be a finite number, not -inf"),
        (["simulate", "--ops", "-1_000"], "--ops: must be between 1 and 10,000,000, not -1,000"),
        (["export", "--out", "t.png", "--time", "-1e-3"], "--time -0.001 is outside the run"),
        (
            ["warps", "--latency", "-1e3"],
            "argument --latency: must be between 0 and 1,000,000, not -1000",
        ),
        (["bench", "--time-limit", "-1e-7"], "--time-limit must be a number of seconds above 0"),
    ],
)
def test_negative_numbers_in_any_form_are_values(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse took -1e-7 for an option ("expected one argument"); every subcommand now
    reads it as the value it is, and says what is wrong with it."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err


def test_negative_zero_in_exponent_form_is_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--read", "-0e0", "--format", "json"]) == 0
    assert '"makespan": 4' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[defaults]\ncount = 10000000\n", "the app shows at most 1,000,000 ops, not 10,000,000"),
        (f'name = "{"N" * 300}"\n[defaults]\ncount = 3\n', "name is 300 characters long"),
    ],
)
def test_the_app_refuses_a_file_it_cannot_show_before_asking_for_a_window(
    tmp_path: Path, text: str, expected: str
) -> None:
    """`pipelab --scenario FILE` checks the file as File → Open does (the app's cap of
    10^6 ops included), before any window system is asked for: no display is needed to be
    told, in one line."""
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "xcb"  # would abort without a display, were a window asked for
    result = subprocess.run(
        [sys.executable, "main.py", "--scenario", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and expected in result.stderr


def test_the_app_without_a_display_is_one_line_not_qts_abort() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    result = subprocess.run(
        [sys.executable, "main.py"], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("pipelab: no display") and result.stderr.count("\n") == 1


def test_a_dash_means_standard_input_and_output() -> None:
    """`--scenario -` reads standard input, `--out -` writes standard output (the text
    commands; export says it needs a file's name), `-V` is `--version`."""
    run = lambda *argv, stdin="": subprocess.run(  # noqa: E731
        [sys.executable, "main.py", *argv],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    read = run(
        "simulate",
        "--scenario",
        "-",
        "--out",
        "-",
        "--format",
        "json",
        stdin="[defaults]\ncount = 4\n",
    )
    assert read.returncode == 0, read.stderr
    assert '"ops": 4' in read.stdout and not Path(ROOT, "-").exists()
    bad = run("simulate", "--scenario", "-", stdin="\xff")
    assert bad.returncode == 2 and bad.stderr.startswith("pipelab: standard input: not valid TOML")
    image = run("export", "--preset", "book", "--out", "-")
    assert image.returncode == 2 and "give the file's name" in image.stderr
    assert run("-V").stdout == f"pipelab {version()}\n"
