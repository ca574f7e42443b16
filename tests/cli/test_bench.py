"""`bench` end to end in a subprocess on the CPU backend at a small size: the table, valid
JSON, and one-line errors with exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--backend", "cpu", "--size", "2", "--chunks", "8", "--repeats", "2", "--intensity", "2"]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_table_shows_measured_and_model() -> None:
    result = bench(*SMALL, "--width", "90")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for label in (
        "sequential (measured)",
        "pipelined (measured)",
        "pipelined (model)",
        "overlap efficiency",
        "values against numpy: all correct",
        "pipelined on CPU threads",
        "model: pipelined",
    ):
        assert label in out, label
    assert "2 MiB float32 in 8 chunks, 3 staging buffers" in out
    assert result.stderr == ""


def test_json_is_valid_and_complete() -> None:
    result = bench(*SMALL, "--format", "json", "--streams", "2")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    streams = data["streams"]
    assert streams["backend"] == "cpu" and streams["streams"] == 2 and streams["intensity"] == 2
    assert streams["sequential"]["source"] == "measured"
    assert streams["pipelined"]["buffers"] == 2
    assert streams["predicted"]["source"] == "simulated"
    assert len(streams["pipelined"]["tasks"]) == 3 * 8
    assert streams["pipelined"]["workers"] == {
        "read thread": 1,
        "compute thread": 1,
        "write thread": 1,
    }
    assert streams["speedup"] == pytest.approx(
        streams["sequential_makespan"] / streams["pipelined_makespan"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chunks", "x"], "--chunks: must be a whole number, not 'x'"),
        (["--chunks", "4.0", "--size", "-1"], "--size must be"),  # 4.0 is whole, as in files
        (["--chunks", "0"], "--chunks: must be between 1 and 4,096, not 0"),
        (["--size", "-1"], "--size must be more than 0"),
        (["--intensity", "lots"], "--intensity must be a whole number from 0 to 1,000,000 or auto"),
        (["--intensity", "1.5"], "or auto, not '1.5'"),
        (["--repeats", "0"], "--repeats: must be between 1 and 1,000, not 0"),
        (["--backend", "tpu"], "invalid choice"),
        (["--experiment", "tiles"], "experiment 2 (tiles) needs the cupy backend"),
        (["--intensities", "a,b"], "--intensities must be whole numbers from 0 to 1,000,000"),
        (["--intensities", ""], "separated by commas, not ''"),
        (["--intensities", "1,,2"], "not '1,,2'"),
        (["--intensities", "1,2"], "--intensities is experiment 2's sweep (tiles)"),
        # Checked before the calibration that would refuse --intensity 1000000.
        (["--intensity", "1000000", "--intensities", "x"], "--intensities must be"),
        (["--size", "1e12"], "at most 1,048,576 MiB, not 1e12"),
        (["--size", "1.0000001", "--chunks", "0"], "--chunks: must be between"),
        (["--time-limit", "-1e-7"], "--time-limit must be a number of seconds above 0, not -1e-7"),
    ],
)
def test_bad_flags_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = bench("--backend", "cpu", *args) if "--backend" not in args else bench(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_json_carries_the_spread_and_why_the_efficiency_is_what_it_is() -> None:
    result = bench(*SMALL, "--format", "json", "--repeats", "3")
    assert result.returncode == 0, result.stderr
    streams = json.loads(result.stdout)["streams"]
    for key in ("sequential_spread", "pipelined_spread"):
        spread = streams[key]
        assert spread["runs"] == 3 and spread["min"] <= spread["median"] <= spread["max"]
    assert streams["sequential_spread"]["median"] == streams["sequential_makespan"]
    why = streams["efficiency_explanation"]
    assert len(why["stage_ms_alone"]) == len(why["stage_ms_side_by_side"]) == 3
    assert why["text"] and why["predicted_from_side_by_side_makespan"] > 0
    # The measured sequential run is a full Schedule, for the app to draw.
    assert streams["sequential"]["source"] == "measured"
    assert len(streams["sequential"]["tasks"]) == 3 * 8


def test_table_shows_the_spread() -> None:
    result = bench(*SMALL, "--width", "90")
    rows = dict(
        line.strip().split("  ", 1) for line in result.stdout.splitlines() if "spread" in line
    )
    assert set(rows) == {"sequential spread", "pipelined spread"}
    assert all("over 2 runs" in text and text.strip().startswith("min") for text in rows.values())


def test_an_over_long_run_is_refused_in_one_line() -> None:
    """Issue 10: `bench --backend cpu --intensity 1000000` ran for minutes, silently. A short
    calibration now estimates it and refuses in one line, exit 2."""
    result = bench("--backend", "cpu", "--intensity", "1000000")
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pipelab: this run would take about ")
    assert "calibrated with time.perf_counter" in lines[0]
    assert lines[0].endswith("over the limit of 3 min: use a lower intensity, a smaller size "
                             "or fewer repeats, or raise --time-limit")  # fmt: skip


def test_the_time_limit_can_be_raised_and_must_be_positive() -> None:
    refused = bench(*SMALL, "--intensity", "3000", "--time-limit", "0.001")
    assert refused.returncode == 2 and "over the limit of 1 ms" in refused.stderr
    for bad in ("0", "-5", "nan"):
        result = bench(*SMALL, "--time-limit", bad)
        assert result.returncode == 2 and "--time-limit must be" in result.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_after_two_seconds() -> None:
    """bench reports a fraction and a message; the one progress line (cli.console) shows
    them after its delay, cut to the terminal's width, and erases itself at the end."""
    from cli.console import Progress

    now = [0.0]
    terminal = Terminal()
    with Progress(terminal, clock=lambda: now[0], width=40, interval=0.1) as progress:
        progress.update("calibrating", 0.1)
        assert terminal.getvalue() == ""  # short work stays quiet
        now[0] = 2.5
        progress.update("sequential run 2: chunk 3 of 16, and a long tail of words", 0.4)
        now[0] = 2.55
        progress.update("too soon after the last line", 0.45)
        shown = terminal.getvalue()
        assert shown == "\rpipelab: sequential run 2: chunk 3 of 1"  # 39 columns
    assert terminal.getvalue() == shown + "\r" + " " * 39 + "\r"


def test_no_progress_where_stderr_is_not_a_terminal() -> None:
    from cli.console import Progress

    quiet = io.StringIO()
    with Progress(quiet, clock=lambda: 100.0, delay=0.0) as progress:
        progress.update("half", 0.5)
    assert quiet.getvalue() == ""


def test_bench_feeds_its_progress_to_the_terminal(monkeypatch, capsys) -> None:
    """The real command, in-process, with a terminal for stderr and a clock that runs fast."""
    import cli.console
    from main import main

    monkeypatch.setattr(cli.console, "DELAY", 0.0)
    monkeypatch.setattr(cli.console, "INTERVAL", 0.0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["bench", *SMALL, "--format", "json"]) == 0
    shown = terminal.getvalue()
    assert "\rpipelab: " in shown and "%" in shown and "chunk" in shown
    assert shown.endswith("\r")  # erased before the results
    assert json.loads(capsys.readouterr().out)["streams"]["chunks"] == 8


def test_cupy_backend_without_cupy_is_one_line() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import cupy"], capture_output=True, text=True, timeout=60
    )
    if probe.returncode == 0:
        pytest.skip("CuPy is installed here; this checks the message where it is not")
    result = bench("--backend", "cupy", "--size", "1")
    assert result.returncode == 1  # the flags are fine; the machine cannot run it
    assert result.stderr.strip() == (
        "pipelab: the cupy backend cannot run: CuPy is not installed (add the gpu extra, or "
        "gpu-cuda13 for CUDA 13: pip install 'pipelab[gpu]', uv tool install '.[gpu]' or, "
        "in a checkout, uv sync --extra gpu)"
    )
