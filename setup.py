"""The one compiled piece, optional: the scheduler's event loop and the critical path's walk
(engine/_fastsched.c), the idle spans' pass (engine/_idle_pass.c) and rows put in time
order (engine/_row_order.c), one module.

Everything else is configured in pyproject.toml. ``optional=True``: where the extension
cannot be compiled (no C compiler, no Python headers) setuptools warns and installs the
project without it; the engine then runs the identical loops in Python.
"""

from setuptools import Extension, setup

SOURCES = ["engine/_fastsched.c", "engine/_idle_pass.c", "engine/_row_order.c"]

#: The one header the sources share (how a function takes an array argument).
DEPENDS = ["engine/_buffers.h"]

setup(ext_modules=[Extension("engine._fastsched", SOURCES, depends=DEPENDS, optional=True)])
