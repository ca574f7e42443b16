"""Runs the app's heavy jobs (an edit's simulation and everything derived from it) on a
worker thread, the latest submitted job winning.

The shape is superqt's GeneratorWorker: a job is a generator function that yields between
steps; the worker drops a job that became stale at its next yield, so an edit typed while
another runs costs at most the step in progress. The GUI thread never joins: `cancel` and
`shutdown` only set flags, and the thread ends by itself when nothing is left to do.

The worker is a plain `threading.Thread` (like the GPU panel's): Python knows it, and the
test suite's leaked-thread check sees it end. Results travel to the GUI thread through
queued signals, each with the token the job was submitted with, so the receiver can also
drop anything stale.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Generator
from typing import Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance

from engine.base.errors import PipeLabError

log = logging.getLogger(__name__)

Job = Callable[[], Generator[object, None, object]]


class Runner(Protocol):
    """What the app model needs from a runner (tests pass one they drive by hand)."""

    landed: SignalInstance  # (token, result)
    failed: SignalInstance  # (token, one-line message)

    def submit(self, token: int, job: Job) -> None: ...

    def cancel(self) -> None: ...

    def shutdown(self) -> None: ...


def run_job(job: Job, stale: Callable[[], bool]) -> tuple[bool, object]:
    """Drive ``job`` to its end, stopping at a yield once ``stale()`` is true.

    Returns (finished, value): (True, result) or (False, None) when dropped. A
    PipeLabError propagates; so does anything else (the caller decides how to report)."""
    steps = job()
    try:
        while True:
            if stale():
                return False, None
            next(steps)
    except StopIteration as stop:
        return True, stop.value
    finally:
        steps.close()


def failure_message(error: BaseException) -> str:
    """One line for the user: the PipeLabError's own words, else what went wrong (the
    traceback goes to the log)."""
    if isinstance(error, PipeLabError):
        return str(error).splitlines()[0] if str(error) else "the input was refused"
    if isinstance(error, MemoryError):
        return "out of memory: this run is too big for this machine (use fewer ops)"
    return f"the run failed ({type(error).__name__}: {error}); details are in the log"


class ThreadRunner(QObject):
    """Runs one job at a time on a worker thread; a newer submission makes older ones stale.

    ``landed(token, result)`` and ``failed(token, message)`` arrive on the thread this
    object lives on. A stale job emits nothing.
    """

    landed = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, parent: QObject | None = None, name: str = "pipelab-run") -> None:
        super().__init__(parent)
        self._name = name
        self._lock = threading.Lock()
        self._pending: tuple[int, Job] | None = None
        self._latest = -1
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, token: int, job: Job) -> None:
        """Run ``job`` after the current one (which becomes stale); replaces any job still
        waiting to start."""
        with self._lock:
            if self._closed:
                return
            self._latest = token
            self._pending = (token, job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()

    def cancel(self) -> None:
        """Drop the waiting job and make the running one stale (no join)."""
        with self._lock:
            self._pending = None
            self._latest = -1

    def shutdown(self) -> None:
        """Cancel, and accept no more jobs (the window is closing)."""
        with self._lock:
            self._closed = True
            self._pending = None
            self._latest = -1

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive (it ends once nothing is left to run)."""
        with self._lock:
            return self._thread is not None

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._pending is None or self._closed:
                    self._thread = None
                    return
                token, job = self._pending
                self._pending = None
            self._run(token, job)

    def _run(self, token: int, job: Job) -> None:
        def stale() -> bool:
            return self._closed or self._latest != token

        try:
            finished, result = run_job(job, stale)
        except Exception as error:  # reported as one line; the app stays up
            if not isinstance(error, PipeLabError | MemoryError):
                log.exception("a background run failed")
            if not stale():
                self._emit(self.failed, token, failure_message(error))
            return
        if finished and not stale():
            self._emit(self.landed, token, result)

    @staticmethod
    def _emit(signal: SignalInstance, token: int, value: object) -> None:
        with contextlib.suppress(RuntimeError):  # the receiver is gone (the window closed)
            signal.emit(token, value)
