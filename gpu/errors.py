"""Errors of the measurement layer: one line each, like every PipeLabError."""

from __future__ import annotations

from engine.base.errors import RunFailed


class GpuError(RunFailed):
    """An experiment could not run or finish: no backend, out of memory, a kernel that does
    not compile, a wrong result. The message says which and what to do."""


class Cancelled(GpuError):
    """The user cancelled a run; what it had allocated is freed."""

    def __init__(self, message: str = "run cancelled: nothing was measured") -> None:
        super().__init__(message)
