"""What every part of the engine leans on: the one error type (errors), the one tolerance
for simulated times (tolerance), checks of input values (validation), words for times and
ops (text), the installed data files and version (resources), atomic file writes (atomic)
and where keys sit in a TOML document (toml_lines).

Imports nothing else from the engine (numpy and the standard library only).
"""
