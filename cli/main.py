"""PipeLab's command line: no command opens the app; subcommands run headless.

    pipelab                             # the app, on the book example
    pipelab simulate --preset book --policy both
    pipelab export --preset book --out timeline.png
    pipelab bench --backend cpu
    pipelab warps --warps 8 --latency 40 --compute 10
    pipelab import trace.json.gz
    pipelab --profile trace.json.gz     # the app, on a recorded profile
    pipelab --version

`main` is the installed ``pipelab`` console script; in a checkout, ``uv run main.py`` calls
it too. Any bad argument or file: one line on stderr naming the problem, exit status 2; a
run that fails as it runs (a full disk, no CUDA device): one line, exit status 1.
Ctrl-C ends any command at once, exit status 130, leaving no partial file (cli.interrupt).

Only the signal handling loads with this module: the commands, numpy and Qt load inside
`main`, once a Ctrl-C during their imports is handled too.
"""

from __future__ import annotations

import contextlib
import os
import sys
from types import ModuleType
from typing import NoReturn

from cli.interrupt import ending_on_signals


def commands() -> dict[str, ModuleType]:
    """The subcommands by name: each module has ``add_parser`` and ``run``."""
    from cli import bench, export, profile, simulate, warps

    return {
        "simulate": simulate,
        "export": export,
        "bench": bench,
        "warps": warps,
        "import": profile,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` and return its exit status.

    Without ``argv``, the process is the command (``sys.argv[1:]``): Ctrl-C ends it at once
    until it exits, and once a headless command is done the process ends (`_end_process`)
    instead of returning. With ``argv`` (a test, a script) the signals are handled only
    while ``main`` runs, and it always returns.
    """
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    with ending_on_signals(keep=own_process):
        status, opened_app = _run(argv)
        if own_process and not opened_app:
            _end_process(status)
        return status


def _end_process(status: int) -> NoReturn:
    """End the process with ``status`` once its output is flushed, skipping the
    interpreter's teardown: after an export, PySide's and Qt's take up to a second, during
    which Python has already given Ctrl-C back to the default action."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):  # commands flush as they go
                stream.flush()
    os._exit(status)


def _run(argv: list[str]) -> tuple[int, bool]:
    """The exit status of the command line ``argv``, and whether it opened the app."""
    import warnings

    from cli.console import use_ascii_fallback
    from cli.parser import build_parser
    from cli.stdout import silence_stdout
    from engine.base.errors import PipeLabError, RunFailed

    use_ascii_fallback(sys.stdout)  # a cp1252 console gets # for █, not a crash
    use_ascii_fallback(sys.stderr)
    found = commands()
    try:
        args = build_parser(found).parse_args(argv)
        if args.command is None:
            from gui.app import run_app  # imported only here: the CLI stays Qt-free

            opened = run_app(scenario_path=args.scenario, preset=args.preset, profile=args.profile)
            return opened, True
        with warnings.catch_warnings():
            # Inputs are checked so that no arithmetic overflows; should one slip through,
            # the user gets a line, not numpy's three-line RuntimeWarning.
            warnings.simplefilter("error", RuntimeWarning)
            return int(found[args.command].run(args)), False
    except RuntimeWarning as warning:
        return _fail(f"a number went out of range ({warning})"), False
    except RunFailed as error:  # the input was fine; the run failed: status 1
        return _fail(str(error), RUN_FAILED), False
    except PipeLabError as error:
        return _fail(str(error)), False
    except MemoryError:  # e.g. 10^7 ops as JSON: say so in a line, not a traceback
        return _fail(
            "out of memory: try a smaller run (fewer ops or cycles, less data, or --format table)",
            RUN_FAILED,
        ), False
    except BrokenPipeError:
        # `… | head` took what it wanted and closed the pipe: the reader's choice, not an
        # error worth a message or a failing status.
        silence_stdout()
        return 0, False


#: Exit statuses: bad input or usage (argparse's too), and a run that failed as it ran.
BAD_INPUT = 2
RUN_FAILED = 1


def _fail(message: str, status: int = BAD_INPUT) -> int:
    """Say ``message`` in one line on stderr (when there is one); return ``status``.
    Whatever the message quotes, the line is escaped and at most a few rows
    (`message_line`)."""
    from engine.base.text import message_line  # (loaded already, by main's own imports)

    if sys.stderr is not None:  # print(file=None) would write to stdout
        print(message_line(f"pipelab: {message}"), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
