"""The `warps` command: table, JSON contract, files, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.latency.warp_stream import summarize
from engine.latency.warps import WarpConfig
from main import main

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["warps", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_has_the_contract_tasks_and_the_model(capsys):
    code, out, err = _run(
        capsys, "--warps", "4", "--latency", "40", "--compute", "10", "--cycles", "400",
        "--format", "json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["source"] == "simulated" and data["time_unit"] == "cycles"
    assert data["workers"] == {"warp": 4, "issue": 1}
    assert data["utilization"]["issue"] == pytest.approx(0.8)
    assert data["issue_utilization"] == pytest.approx(0.8)
    assert data["analytic_utilization"] == pytest.approx(0.8)
    assert data["steady_state_utilization"] == pytest.approx(0.8)
    assert data["knee_warps"] == 5
    assert data["stall_cycles"] == [0, 10, 20, 30]
    task = data["tasks"][0]
    assert set(task) == {"op", "stage", "unit", "worker", "start", "end"}
    issue = [t for t in data["tasks"] if t["unit"] == "issue"]
    assert [t["op"] for t in issue[:5]] == [0, 1, 2, 3, 0]
    assert [t["start"] for t in issue[:5]] == [0, 10, 20, 30, 50]
    loads = [t for t in data["tasks"] if t["stage"] == "memory"]
    assert all(t["end"] - t["start"] == 40 for t in loads if t["end"] < 400)


def test_above_the_knee_the_issue_unit_is_always_busy(capsys):
    code, out, _ = _run(capsys, "--warps", "8", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["issue_utilization"] == 1 and data["analytic_utilization"] == 1


def test_table_shows_lanes_and_simulated_beside_model(capsys):
    code, out, err = _run(capsys, "--warps", "2", "--latency", "30", "--width", "80")
    assert (code, err) == (0, "")
    assert "warp 1" in out and "warp 2" in out and "issue unit" in out
    assert "░" in out and "█" in out
    assert "50.0% busy over the run" in out
    assert "min(1, W·C / (C + L)) = 50.0%" in out
    assert "W = (C + L) / C = 4 warps" in out and "2 is below the knee" in out


def test_many_warps_summarize_instead_of_drawing(capsys):
    code, out, _ = _run(capsys, "--warps", "100", "--cycles", "5000")
    assert code == 0
    assert "timeline not drawn" in out
    assert "warp 100" not in out and "most" in out


def test_out_writes_the_file(capsys, tmp_path):
    target = tmp_path / "run.json"
    code, out, _ = _run(capsys, "--format", "json", "--out", str(target))
    assert (code, out) == (0, "")
    assert json.loads(target.read_text())["warps"] == 4
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--warps", "0"], "--warps: must be between 1 and 1,024, not 0"),
        (["--compute", "0"], "--compute: must be between 1"),
        (["--latency", "-5"], "--latency: must be between 0"),
        (["--cycles", "0"], "--cycles: must be between 1"),
        (["--warps", "two"], "--warps: must be a whole number of warps, not 'two'"),
        (["--format", "xml"], "invalid choice: 'xml'"),
        (["--compute", "1", "--cycles", "9000000"], "more than 1,000,000"),
        (["--out", "/no/such/folder/x.json"], "does not exist"),
    ],
)
def test_bad_values_are_one_line_and_exit_2(capsys, argv, message):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err
    assert err.count("\n") == 1 and err.startswith("pipelab: ")


def test_help_names_the_defaults():
    result = subprocess.run(
        [sys.executable, "main.py", "warps", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    help_text = " ".join(result.stdout.split())
    for flag in ("--warps W", "--latency L", "--compute C", "--cycles T", "--format"):
        assert flag in help_text
    assert "(default: 4)" in help_text and "(default: 40)" in help_text


def _pipelab(*argv: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    import os

    return subprocess.run(
        [sys.executable, "main.py", *argv],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["warps", "--warps", "4", "--width", "80"],
        ["simulate", "--policy", "both", "--width", "80"],
        ["warps", "--help"],
        ["bench", "--help"],
    ],
)
@pytest.mark.parametrize("encoding", ["cp1252", "ascii", "latin-1"])
def test_a_console_without_block_characters_gets_ascii(argv, encoding):
    """A Windows cp1252 console once crashed `warps` with UnicodeEncodeError (exit 1)."""
    result = _pipelab(*argv, PYTHONIOENCODING=encoding)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert result.stderr == b""
    text = result.stdout.decode(encoding)
    assert "█" not in text and "?" * 3 not in text
    if argv[0] == "warps" and "--help" not in argv:
        assert "#" in text and ":" in text and "# computing  : waiting for memory" in text


def test_json_is_streamed_from_the_model_not_from_a_schedule(capsys, monkeypatch):
    """The JSON is written chunk by chunk: the whole Schedule is never built."""
    import engine.latency.warps

    def refuse(config):
        raise AssertionError("the CLI built the whole run")

    monkeypatch.setattr(engine.latency.warps, "simulate_warps", refuse)
    code, out, err = _run(capsys, "--warps", "3", "--cycles", "50000", "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert len(data["tasks"]) == summarize(WarpConfig(3, 10, 40, 50_000)).tasks > 5_000
    starts = [(t["start"], t["unit"] == "issue", t["worker"]) for t in data["tasks"]]
    assert starts == sorted(starts)


def test_progress_shows_on_a_terminal(capsys, monkeypatch):
    """Work longer than the delay shows a progress line on stderr, erased at the end; with
    stderr not a terminal (every other test) nothing is written."""
    import io

    import cli.console

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(cli.console, "DELAY", 0.0)
    monkeypatch.setattr(cli.console, "INTERVAL", 0.001)
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["warps", "--warps", "3", "--cycles", "300000", "--format", "json",
                 "--out", "/dev/null"])  # fmt: skip
    assert code == 0
    shown = terminal.getvalue()
    assert "pipelab: " in shown and "%" in shown
    assert shown.endswith("\r")  # erased: the terminal is left clean
