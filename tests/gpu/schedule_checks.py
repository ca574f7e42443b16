"""Checks every measured pipeline Schedule must pass (shared by CPU, fake and device tests)."""

from __future__ import annotations

import numpy as np

from engine.model.schedule import Schedule


def assert_well_formed(schedule: Schedule, chunks: int, buffers: int) -> None:
    """Measured, one task per chunk and stage, stages in order, buffer limit held."""
    assert schedule.source == "measured"
    assert schedule.time_unit == "ms"
    assert schedule.n_ops == chunks and len(schedule) == 3 * chunks
    assert schedule.is_pipeline
    assert schedule.stage_names == ("read", "compute", "write")
    assert schedule.buffers == buffers
    starts, ends = schedule.op_starts, schedule.op_ends
    assert np.isclose(starts.min(), 0.0)
    assert (ends >= starts).all()
    tolerance = 1e-6
    # Each chunk's stages run in order.
    assert (starts[:, 1] >= ends[:, 0] - tolerance).all()
    assert (starts[:, 2] >= ends[:, 1] - tolerance).all()
    # Slots: chunk i starts reading only after chunk i - buffers has been written.
    if chunks > buffers:
        assert (starts[buffers:, 0] >= ends[:-buffers, 2] - tolerance).all()
    assert schedule.makespan > 0
