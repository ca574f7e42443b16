"""The command line's subcommands. Each module has ``add_parser(subparsers)`` and
``run(args) -> int``; main.py wires them up. Bad input raises PipeLabError, which main.py
prints as one line on stderr with exit status 2."""
