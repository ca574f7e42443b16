"""The optional compiled module, ``engine.compiled._fastsched`` (_fastsched.c, _idle_pass.c,
_row_order.c; built by setup.py where a C compiler is found), and fast_scheduler, the switch
between it and the Python reference loops it stands in for (tests and benchmarks compare
the two bit for bit).

Imports nothing else from the engine: every loop here takes and returns plain arrays.
"""
