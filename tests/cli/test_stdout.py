"""Standard output that fails: a full disk (/dev/full), a closed stdout (``>&-``), a reader
that stops early (``| head``). Through the real entry point, in a subprocess with Python's
default buffering (so an error the buffer would meet only at exit is met too): a failure
is one line and exit status 2; a reader that stops early is no failure at all."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from main import main

ROOT = Path(__file__).resolve().parents[2]
FULL = "/dev/full"
NO_SPACE = "pipelab: cannot write to standard output: No space left on device\n"
BENCH = ["bench", "--backend", "cpu", "--size", "1", "--chunks", "4", "--repeats", "1",
         "--warmup", "0", "--intensity", "1"]  # fmt: skip
#: Every way a command writes to standard output.
WRITERS = [
    ["simulate"],
    ["simulate", "--format", "json"],
    ["simulate", "--format", "trace", "--policy", "both"],
    ["warps"],
    ["warps", "--format", "json"],
    BENCH,
    [*BENCH, "--format", "json"],
    ["--help"],
    ["simulate", "--help"],
    ["--version"],
]


def _env() -> dict[str, str]:
    """The user's shell: stdout buffered as Python buffers it by default."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _pipelab(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, str(ROOT / "main.py"), *argv],
        cwd=ROOT,
        env=_env(),
        stderr=subprocess.PIPE,
        timeout=300,
        **kwargs,
    )


@pytest.mark.skipif(not Path(FULL).exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("argv", WRITERS, ids=" ".join)
def test_a_full_disk_is_one_line(argv: list[str]) -> None:
    """`> /dev/full` was an OSError traceback, exit 1 (or, for --help, a silent exit 0)."""
    with open(FULL, "w") as full:
        result = _pipelab(argv, stdout=full)
    assert (result.returncode, result.stderr.decode()) == (1, NO_SPACE)  # a run-time failure


@pytest.mark.parametrize("argv", [["simulate"], ["warps", "--format", "json"], ["--help"]])
def test_a_closed_stdout_is_one_line(argv: list[str]) -> None:
    """`>&-`: Python starts with sys.stdout None (an AttributeError traceback once)."""
    result = _pipelab(argv, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert result.returncode == 1
    assert result.stderr.decode() == "pipelab: cannot write to standard output: it is closed\n"


@pytest.mark.parametrize(
    ("argv", "reads"),
    [
        (["simulate", "--ops", "200000", "--format", "json"], 1),
        (["warps", "--cycles", "1000000", "--format", "json"], 1),
        (["simulate", "--ops", "20000", "--format", "json", "--out", "/dev/stdout"], 1),
        (["simulate"], 0),  # gone before the first write: it all fails at the flush
        (["--help"], 0),
    ],
)
def test_a_reader_that_stops_early_is_no_error(argv: list[str], reads: int) -> None:
    """`… | head -1`: quiet, status 0, nothing from the interpreter's final flush."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *argv],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    for _ in range(reads):
        process.stdout.readline()
    process.stdout.close()  # the reader goes
    err = process.stderr.read().decode()
    assert (process.wait(timeout=300), err) == (0, "")


class FullStream(io.StringIO):
    """A stdout on a full disk, in-process."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize("argv", WRITERS[:5], ids=" ".join)
def test_in_process_a_failing_stdout_is_one_line(monkeypatch, capsys, argv: list[str]) -> None:
    monkeypatch.setattr(sys, "stdout", FullStream())
    assert main(argv) == 1
    assert capsys.readouterr().err == NO_SPACE
