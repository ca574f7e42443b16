"""`uv run main.py [command] …` in a checkout: the same as the installed ``pipelab``.

The command line lives in cli/main.py (the console script needs no file outside the
packages); this file only calls it.
"""

from __future__ import annotations

import sys

from cli.main import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
