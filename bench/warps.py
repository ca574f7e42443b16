"""Warp model wall time for a few (W, T) sizes: the vectorized path, the event simulation,
state/narration per frame, and (with --gpu, on a CUDA device) the occupancy sweep.

    uv run python bench/warps.py            # full table
    uv run python bench/warps.py --quick    # small sizes only
    uv run python bench/warps.py --gpu      # also the occupancy sweep (needs CuPy + a device)

Prints one row per (W, C, L, T): bursts, tasks, best-of-3 seconds for `simulate_warps` and
`simulate_warps_reference`, whether both agree, and the simulated vs analytic utilization.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.latency.warps import (
    WarpConfig,
    narrate_warps,
    simulate_warps,
    simulate_warps_reference,
    warp_state_at,
)

SIZES = [
    (4, 10, 40, 10_000),
    (32, 10, 400, 100_000),
    (64, 4, 400, 1_000_000),
    (1024, 10, 400, 10_000_000),
    (8, 1, 40, 1_000_000),
]
QUICK = SIZES[:2]


def best_of(repeats: int, run):  # type: ignore[no-untyped-def]
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def simulation_table(sizes: list[tuple[int, int, int, int]]) -> None:
    print(
        f"{'W':>5} {'C':>3} {'L':>4} {'T':>11} {'bursts':>9} {'tasks':>9} {'fast (s)':>9} "
        f"{'event (s)':>10} {'agree':>6} {'util':>7} {'model':>7}"
    )
    for warps, compute, latency, cycles in sizes:
        config = WarpConfig(warps, compute, latency, cycles)
        fast_s, fast = best_of(3, lambda c=config: simulate_warps(c))
        event_s, event = best_of(1, lambda c=config: simulate_warps_reference(c))
        agree = np.array_equal(fast.burst_start, event.burst_start) and np.array_equal(
            fast.burst_warp, event.burst_warp
        )
        print(
            f"{warps:5d} {compute:3d} {latency:4d} {cycles:11,d} {len(fast.burst_start):9,d} "
            f"{len(fast.schedule):9,d} {fast_s:9.4f} {event_s:10.4f} {agree!s:>6} "
            f"{fast.utilization:7.3f} {config.analytic_utilization:7.3f}"
        )


def frame_table() -> None:
    """What one animation frame costs the view: state of every warp + the narration."""
    print(f"\n{'W':>5} {'T':>7} {'state_at (ms)':>14} {'narrate (ms)':>13}")
    for warps in (4, 16, 64):
        run = simulate_warps(WarpConfig(warps, 10, 40, 2_000))
        times = np.linspace(0, 2_000, 200)
        start = time.perf_counter()
        for t in times:
            warp_state_at(run.schedule, float(t))
        state_ms = (time.perf_counter() - start) / len(times) * 1e3
        start = time.perf_counter()
        for t in times:
            narrate_warps(run.schedule, float(t))
        narrate_ms = (time.perf_counter() - start) / len(times) * 1e3
        print(f"{warps:5d} {2_000:7d} {state_ms:14.3f} {narrate_ms:13.3f}")


def gpu_sweep() -> None:
    from gpu.occupancy import occupancy_check

    print()
    result = occupancy_check()
    if not result["ran"]:
        print(f"occupancy sweep not run: {result['reason']}")
        return
    print(result["table"])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--gpu", action="store_true", help="also run the occupancy sweep")
    args = parser.parse_args()
    simulation_table(QUICK if args.quick else SIZES)
    frame_table()
    if args.gpu:
        gpu_sweep()


if __name__ == "__main__":
    main()
