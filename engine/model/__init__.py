"""The model: what to schedule and what a run is. `Schedule` (schedule, with its column
helpers in columns) is the one timeline type; `Scenario` (scenario) the book's ops read from
and written to TOML; `Shape` (shape) any pipeline's stages, units and buffer pools, with the
reference loop that simulates it; the scheduler (scheduler) that turns either into a
Schedule; shape scenarios' TOML (shape_file); names for edited scenarios (naming); and
list-scheduling anomalies (anomalies).

May import engine.base and engine.compiled; nothing that reads a finished run.
"""
