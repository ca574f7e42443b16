"""The one compiled piece: the scheduler's event loop (engine/_fastsched.c), optional.

Everything else is configured in pyproject.toml. ``optional=True``: where the extension
cannot be compiled (no C compiler, no Python headers) setuptools warns and installs the
project without it; engine.fast_scheduler then runs the identical loop in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("engine._fastsched", ["engine/_fastsched.c"], optional=True)])
