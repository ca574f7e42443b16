"""The command line's subcommands. Each module has ``add_parser(subparsers)`` and
``run(args) -> int``; cli/main.py wires them up. Bad input raises PipeLabError, which
cli/main.py prints as one line on stderr with exit status 2."""
