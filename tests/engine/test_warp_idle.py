"""What a warp run's gaps mean: on a warp's row, ready but not picked (exactly the
engine's `ready_intervals`); on the issue unit's row, no warp ready. Together with the
tasks they tile every row from 0 to the makespan."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.latency.warp_idle import STALL, STARVED, is_warp_schedule, warp_idle
from engine.latency.warps import WarpConfig, ready_intervals, simulate_warps
from engine.model.scenario import load_preset
from engine.model.scheduler import simulate

configs = st.builds(
    WarpConfig,
    warps=st.integers(1, 12),
    compute=st.integers(1, 20),
    latency=st.integers(0, 80),
    cycles=st.integers(1, 600),
)


def test_only_a_warp_runs_timeline_is_one() -> None:
    assert is_warp_schedule(simulate_warps(WarpConfig()).schedule)
    assert not is_warp_schedule(simulate(load_preset("book"), "pipelined"))


def test_the_book_run_of_four_warps() -> None:
    """4 warps, C = 10, L = 40: warps 2-4 wait 10, 20, 30 cycles for their first burst;
    the issue unit idles 10 cycles of every 50 once all four have issued."""
    run = simulate_warps(WarpConfig(warps=4, compute=10, latency=40, cycles=300))
    gaps = warp_idle(run.schedule)
    stall = gaps.reason == STALL
    stalls = list(zip(gaps.row[stall].tolist(), gaps.start[stall], strict=True))
    assert stalls == [(1, 0.0), (2, 0.0), (3, 0.0)]
    idle = gaps.reason == STARVED
    assert set(gaps.row[idle].tolist()) == {4}
    assert gaps.start[idle].tolist() == [40.0, 90.0, 140.0, 190.0, 240.0, 290.0]
    assert (gaps.end[idle] - gaps.start[idle]).tolist() == [10.0] * 6


@settings(max_examples=150, deadline=None)
@given(configs)
def test_stalls_are_the_ready_intervals_and_gaps_tile_the_rows(config) -> None:
    run = simulate_warps(config)
    schedule = run.schedule
    gaps = warp_idle(schedule)
    stall = gaps.reason == STALL
    found = sorted(zip(gaps.row[stall].tolist(), gaps.start[stall], gaps.end[stall], strict=True))
    warp, start, end = ready_intervals(run)
    keep = end > start
    expected = sorted(zip(warp[keep].tolist(), start[keep], end[keep], strict=True))
    assert found == expected
    assert (gaps.reason[gaps.row == config.warps] == STARVED).all()
    busy = np.zeros(schedule.n_workers)
    np.add.at(busy, schedule.row, schedule.end - schedule.start)
    idle = np.zeros(schedule.n_workers)
    np.add.at(idle, gaps.row, gaps.end - gaps.start)
    assert np.allclose(busy + idle, schedule.makespan)
