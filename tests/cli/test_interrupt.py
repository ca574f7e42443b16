"""Ctrl-C at any moment of a real command: exit status 130 at once, the old file as it was,
no temporary file, never a crash or a traceback, never ignored (cli.interrupt).

Each export format is run once uninterrupted to measure how long it takes here and now
(a busy machine is slower), then interrupted at moments spread over that span: start-up and
imports (numpy, PySide), simulating, drawing, encoding, writing.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(),
    reason="needs Linux's /proc to see when a process handles Ctrl-C (on Windows, a console event)",
)

ROOT = Path(__file__).resolve().parents[2]
OLD = b"the old content, which an interrupted export must leave as it was\n"
#: What a crash or an escaped KeyboardInterrupt leaves on stderr.
BROKEN = ("Traceback", "Fatal Python error", "Segmentation", "QPaintDevice", "Error calling")
#: Seconds any run may take before the test gives up on it (a safety net, not a limit).
SAFETY = 300

#: Small, quick exports of every format; the animations with the assembly line.
EXPORTS = {
    ".png": ["--preset", "book", "--width", "400"],
    ".svg": ["--preset", "book"],
    ".pdf": ["--preset", "book", "--assembly"],
    ".gif": ["--preset", "book", "--width", "400", "--fps", "2"],
    ".webp": ["--preset", "book", "--width", "400", "--fps", "2"],
    ".json": ["--ops", "20000"],
}
#: Moments per format: one in each equal slice of the measured span, at random within it.
MOMENTS = 3


def start(*argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "main.py", *argv],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def handling(process: subprocess.Popen[bytes]) -> float:
    """Wait until ``process`` handles Ctrl-C itself, and return when that was (monotonic).

    Before PipeLab's first line runs, the interpreter starts up (site, the editable
    install's finder): a Ctrl-C there gets Python's own handling, out of PipeLab's reach,
    and on a busy machine start-up takes as long as it takes. The handling starts a watcher
    thread before anything else, the process's first thread beside the main one: /proc
    shows it."""
    tasks = Path(f"/proc/{process.pid}/task")
    while process.poll() is None:
        try:
            if len(list(tasks.iterdir())) >= 2:
                break
        except OSError:  # it has just ended
            break
        time.sleep(0.002)
    return time.monotonic()


def interrupt(
    process: subprocess.Popen[bytes], delay: float, written: Callable[[], bool]
) -> tuple[bool, str]:
    """Ctrl-C ``process`` ``delay`` seconds after it began handling Ctrl-C. Returns whether
    its work was done as the signal went (it had ended, or ``written()``: the new file was
    in place, looked at just after sending: the rename may fall between a look before and
    the signal), and its stderr once it has ended."""
    handling(process)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    done = process.poll() is not None or written()
    try:
        _, err = process.communicate(timeout=SAFETY)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return done, err.decode("utf-8", "replace")


def complete(data: bytes, reference: bytes, suffix: str) -> bool:
    """``data`` is the whole file an uninterrupted export writes (a PDF's dates differ)."""
    if suffix == ".pdf":
        return len(data) == len(reference) and data.rstrip().endswith(b"%%EOF")
    return data == reference


@pytest.mark.parametrize("suffix", list(EXPORTS))
def test_ctrl_c_at_any_moment_of_an_export_leaves_the_old_file(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"out{suffix}"
    argv = ("export", *EXPORTS[suffix], "--out", str(target))
    target.write_bytes(OLD)
    process = start(*argv)
    began = handling(process)
    _, err = process.communicate(timeout=SAFETY)
    span = time.monotonic() - began  # from the handling's start to the end: imports and all
    assert process.returncode == 0, err
    new = target.read_bytes()

    seed = random.randrange(2**32)
    moments = random.Random(seed)
    for slice_ in range(MOMENTS):
        delay = span * (slice_ + moments.random()) / MOMENTS
        target.write_bytes(OLD)
        process = start(*argv)
        done, err = interrupt(process, delay, lambda: complete(target.read_bytes(), new, suffix))
        trial = f"{suffix} Ctrl-C at {delay:.2f} s of {span:.2f} s (seed {seed}): {err[-2000:]}"
        assert not any(word in err for word in BROKEN), trial
        data = target.read_bytes()
        if done:  # only its exit was left: it may end either way, with the new file
            assert process.returncode in (0, 130) and complete(data, new, suffix), trial
        else:  # once the new file is in place it stays (complete); before, the old one
            assert process.returncode == 130, trial
            assert data == OLD or complete(data, new, suffix), trial
        assert [p.name for p in tmp_path.iterdir()] == [target.name], trial


def test_ctrl_c_ends_a_big_simulation_while_it_simulates_and_while_it_writes(
    tmp_path: Path,
) -> None:
    """A million ops as JSON take half a minute to write; Ctrl-C ends the run at once."""
    target = tmp_path / "run.json"
    argv = ("simulate", "--ops", "1000000", "--format", "json", "--out", str(target))
    target.write_bytes(OLD)
    for moment in ("simulating", "writing"):
        process = start(*argv)
        delay = 1.0
        if moment == "writing":
            delay = 0.0
            while not any(p.stat().st_size for p in tmp_path.glob(".run.json.*.part")):
                assert process.poll() is None, "it ended before it wrote"
                time.sleep(0.02)
        done, err = interrupt(process, delay, lambda: target.read_bytes() != OLD)
        assert not done, moment
        assert process.returncode == 130, f"{moment}: {err}"
        assert not any(word in err for word in BROKEN), f"{moment}: {err}"
        assert target.read_bytes() == OLD
        assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_main_called_with_arguments_puts_the_signals_back(tmp_path: Path) -> None:
    """A caller in a longer process (this test run) keeps its own Ctrl-C after `main`."""
    from main import main

    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    out = tmp_path / "run.json"
    assert main(["simulate", "--preset", "book", "--format", "json", "--out", str(out)]) == 0
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == before
    assert signal.set_wakeup_fd(-1) == -1
