"""The one compiled piece, optional: the scheduler's event loop and the critical path's walk
(engine/compiled/_fastsched.c), the idle spans' pass (_idle_pass.c beside it) and rows put
in time order (_row_order.c), one module.

Everything else is configured in pyproject.toml. ``optional=True``: where the extension
cannot be compiled (no C compiler, no Python headers) setuptools warns and installs the
project without it; the engine then runs the identical loops in Python.
"""

from setuptools import Extension, setup

SOURCES = [
    "engine/compiled/_fastsched.c",
    "engine/compiled/_idle_pass.c",
    "engine/compiled/_row_order.c",
]

#: The one header the sources share (how a function takes an array argument).
DEPENDS = ["engine/compiled/_buffers.h"]

setup(
    ext_modules=[Extension("engine.compiled._fastsched", SOURCES, depends=DEPENDS, optional=True)]
)
