"""The magnitude policy and the size limits through `main(argv)`: a value outside them is
one line naming the field and the limit (never numpy's RuntimeWarning), a run too big is
refused up front with its estimate, and every value inside them prints."""

from __future__ import annotations

import numpy as np
import pytest

import cli.simulate
from main import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2 and out == "", err
    assert err.startswith("pipelab: ") and err.count("\n") == 1, err
    assert "Warning" not in err and "Traceback" not in err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("flag", ["--read", "--compute", "--write"])
@pytest.mark.parametrize("value", ["1e308", "1.7976931348623157e308", "1e-320", "5e-324", "2e9"])
def test_durations_outside_the_policy_are_one_line(capsys, flag: str, value: str) -> None:
    code, out, err = _run(capsys, "simulate", flag, value)
    _refused(code, out, err, flag.removeprefix("--"), "0 or between 1e-6 and 1e9")


def test_a_file_outside_the_policy_names_the_line(capsys, tmp_path) -> None:
    path = tmp_path / "big.toml"
    path.write_text("[defaults]\ncount = 3\n\nread = 1e308\n")
    code, out, err = _run(capsys, "simulate", "--scenario", str(path))
    _refused(code, out, err, "line 4", "read duration", "1e9")


@pytest.mark.parametrize(
    "argv",
    [
        ["--read", "1e-6", "--compute", "1e9", "--write", "0"],
        ["--read", "1e9", "--compute", "1e9", "--write", "1e9", "--ops", "5000"],
        ["--read", "1e-6", "--compute", "1e-6", "--write", "1e-6"],
        ["--read", "0", "--compute", "0", "--write", "0"],
        ["--read", "1e-6", "--compute", "1e9", "--load-workers", "3", "--buffers", "2"],
    ],
)
@pytest.mark.parametrize("output", ["table", "json", "trace"])
def test_every_accepted_extreme_prints(capsys, argv: list[str], output: str) -> None:
    code, out, err = _run(
        capsys, "simulate", *argv, "--policy", "both", "--format", output, "--width", "60"
    )
    assert (code, err) == (0, ""), err
    assert "nan" not in out and "inf" not in out.replace("info", "")
    if output == "table":
        assert "load unit" in out and "makespan" in out


def test_numpy_warnings_become_one_line(capsys, monkeypatch) -> None:
    """Should an overflow slip past the checks, the user reads a line, not a warning."""
    real = cli.simulate.simulated

    def overflowing(scenario, policy):
        np.float64(1e308) * np.float64(10.0)
        return real(scenario, policy)

    monkeypatch.setattr(cli.simulate, "simulated", overflowing)
    code, out, err = _run(capsys, "simulate")
    _refused(code, out, err, "out of range")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["simulate", "--ops", "10000000", "--policy", "both"], ["GB", "at most about"]),
        (["simulate", "--ops", "10000000", "--load-workers", "2", "--format", "json"], ["min"]),
        (["export", "--ops", "10000000", "--out", "x.png"], ["GB", "ops"]),
        (["export", "--ops", "5000000", "--out", "x.json"], ["GB"]),
        (["warps", "--compute", "1", "--cycles", "9000000"], ["bursts", "1,000,000"]),
    ],
)
def test_runs_too_big_are_refused_up_front_with_the_estimate(capsys, tmp_path, argv, words):
    argv = [a.replace("x.", str(tmp_path / "x.")) for a in argv]
    code, out, err = _run(capsys, *argv)
    _refused(code, out, err, *words)
    assert list(tmp_path.iterdir()) == []


def test_the_largest_accepted_runs_are_within_the_limits() -> None:
    """10^7 ops, one policy, one worker per unit: the command line's documented maximum."""
    from types import SimpleNamespace

    from cli.limits import MEMORY_LIMIT, TIME_LIMIT, check_simulation
    from engine.model.scenario import MAX_OPS

    largest = SimpleNamespace(n_ops=MAX_OPS, workers=(1, 1, 1))  # its size is all that counts
    estimate = check_simulation(largest, 1, "table")  # type: ignore[arg-type]
    assert estimate.bytes <= MEMORY_LIMIT and estimate.seconds <= TIME_LIMIT


@pytest.mark.parametrize(
    ("starts", "ends"),
    [
        ([[0, 1e-320, 2e-320]], [[1e-320, 2e-320, 3e-320]]),  # subnormal: an IndexError once
        ([[0, 1e300, 2e300]], [[1e300, 2e300, 1.7e308]]),
        ([[0, 1e-6, 2e-6], [1e-6, 1e9, 2e9]], [[1e-6, 1e9, 2e9], [1e9, 2e9, 3e9]]),
        ([[0, 0, 0]], [[0, 0, 0]]),
    ],
)
def test_the_text_gantt_draws_any_finite_schedule(starts, ends) -> None:
    """Measured runs are not checked against the policy: the drawing must cope anyway."""
    from cli.table import text_gantt
    from engine.model.schedule import Schedule

    schedule = Schedule.from_stage_matrices(starts, ends, workers=(1, 1, 1))
    lines = text_gantt(schedule, 60).splitlines()
    assert len(lines) == 4
    assert all(len(line) == len(lines[1]) for line in lines[1:])
