"""PipeLab's command line: no command opens the app; subcommands run headless.

    pipelab                             # the app, on the book example
    pipelab simulate --preset book --policy both
    pipelab export --preset book --out timeline.png
    pipelab bench --backend cpu
    pipelab warps --warps 8 --latency 40 --compute 10
    pipelab --version

`main` is the installed ``pipelab`` console script; in a checkout, ``uv run main.py`` calls
it too. Any bad argument or file: one line on stderr naming the problem, exit status 2.
"""

from __future__ import annotations

import sys
import warnings

from cli import bench, export, simulate, warps
from cli.console import use_ascii_fallback
from cli.parser import build_parser
from cli.stdout import silence_stdout
from engine.errors import PipeLabError

COMMANDS = {"simulate": simulate, "export": export, "bench": bench, "warps": warps}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    use_ascii_fallback(sys.stdout)  # a cp1252 console gets # for █, not a crash
    use_ascii_fallback(sys.stderr)
    try:
        parser = build_parser(COMMANDS)
        args = parser.parse_args(argv)
        if args.command is None:
            from gui.app import run_app  # imported only here: the CLI stays Qt-free

            return run_app(scenario_path=args.scenario, preset=args.preset)
        with warnings.catch_warnings():
            # Inputs are checked so that no arithmetic overflows; should one slip through,
            # the user gets a line, not numpy's three-line RuntimeWarning.
            warnings.simplefilter("error", RuntimeWarning)
            return int(COMMANDS[args.command].run(args))
    except RuntimeWarning as warning:
        return _fail(f"a number went out of range ({warning})")
    except PipeLabError as error:
        return _fail(str(error))
    except MemoryError:  # e.g. 10^7 ops as JSON: say so in a line, not a traceback
        return _fail(
            "out of memory: try a smaller run (fewer ops or cycles, less data, or --format table)"
        )
    except BrokenPipeError:
        # `… | head` took what it wanted and closed the pipe: the reader's choice, not an
        # error worth a message or a failing status.
        silence_stdout()
        return 0
    except KeyboardInterrupt:
        return 130


def _fail(message: str) -> int:
    """Say ``message`` in one line on stderr (when there is one); exit status 2. Whatever
    the message quotes, the line is escaped and at most a few rows (`message_line`)."""
    from engine.text import message_line  # (loaded already, by main's own imports)

    if sys.stderr is not None:  # print(file=None) would write to stdout
        print(message_line(f"pipelab: {message}"), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
