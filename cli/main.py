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

from cli import bench, export, simulate, warps
from cli.parser import build_parser
from engine.errors import PipeLabError

COMMANDS = {"simulate": simulate, "export": export, "bench": bench, "warps": warps}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser(COMMANDS)
        args = parser.parse_args(argv)
        if args.command is None:
            from gui.app import run_app  # imported only here: the CLI stays Qt-free

            return run_app(scenario_path=args.scenario, preset=args.preset)
        return int(COMMANDS[args.command].run(args))
    except PipeLabError as error:
        print(f"pipelab: {error}", file=sys.stderr)
        return 2
    except MemoryError:  # e.g. 10^7 ops as JSON: say so in a line, not a traceback
        print(
            "pipelab: out of memory: try a smaller run (fewer ops or cycles, less data, "
            "or --format table)",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # `… | head` closed the pipe: not an error worth a traceback
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
