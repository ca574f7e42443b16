"""The one error type PipeLab raises for bad input."""

from __future__ import annotations


class PipeLabError(ValueError):
    """A problem with the user's input, described in one line.

    The command line prints the message as it is (exit status 2); the app shows it in a
    dialog. Code that catches it never needs a traceback to explain the problem.
    """


class RunFailed(PipeLabError):
    """The input was fine, but the work failed while it ran: a full disk, standard output
    closed under it, no CUDA device for an experiment that needs one. Still one line; the
    command line exits with status 1 for these, 2 for bad input (as ruff and pip do)."""
