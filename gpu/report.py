"""The figures of a run as labelled lines, shared by the CLI table and the panel's table."""

from __future__ import annotations

from engine.text import time_text
from gpu.measured import PipelineResult, Spread
from gpu.params import MIB
from gpu.tile_result import SYNC, VARIANTS, TileResult, balanced_row

#: The label of the row that carries experiment 2's claim (the panel shows it too).
HEADLINE = "headline"


def _ms(value: float) -> str:
    """A measured time (kept in ms) as `engine.text.time_text` writes it: "43.6 ms"."""
    return time_text(value, "ms")


def spread_text(spread: Spread) -> str:
    """'min 40.1 ms, median 43.6 ms, max 68.8 ms over 5 runs (±32%)'."""
    return (
        f"min {_ms(spread.minimum)}, median {_ms(spread.median)}, max {_ms(spread.maximum)} "
        f"over {spread.runs} run{'s' if spread.runs != 1 else ''} "
        f"(range {spread.relative_range:.0%} of the median)"
    )


def pipeline_rows(result: PipelineResult) -> list[tuple[str, str]]:
    """(label, value) pairs: measured vs model, spread, speedups, stage means, bandwidths."""
    params = result.params
    read, compute, write = result.stage_ms
    slots = "stream" if result.backend == "cupy" else "staging buffer"
    return [
        ("backend", f"{result.backend}: {result.device}"),
        (
            "data",
            f"{params.size_bytes / MIB:,.4g} MiB float32 in {params.chunks} chunks, "
            f"{params.streams} {slots}{'s' if params.streams > 1 else ''} in flight",
        ),
        ("intensity", f"{result.intensity} multiply-adds per element"),
        ("runs", f"median of {params.repeats} (after {params.warmup} warm-up)"),
        ("sequential (measured)", _ms(result.sequential.makespan)),
        ("sequential spread", spread_text(result.sequential_spread)),
        ("pipelined (measured)", _ms(result.pipelined.makespan)),
        ("pipelined spread", spread_text(result.pipelined_spread)),
        ("pipelined (model)", _ms(result.predicted.makespan)),
        ("speedup (measured)", f"{result.speedup:.2f}×"),
        ("speedup (model)", f"{result.predicted_speedup:.2f}×"),
        (
            "overlap efficiency",
            f"{result.overlap_efficiency:.0%} (model makespan / measured makespan)",
        ),
        ("why", str(result.efficiency_explanation()["text"])),
        ("read, mean", f"{_ms(read)} per chunk, {result.read_gbps:,.1f} GB/s"),
        (
            "compute, mean",
            f"{_ms(compute)} per chunk, {result.compute_gbps:,.1f} GB/s (read + written)",
        ),
        ("write, mean", f"{_ms(write)} per chunk, {result.write_gbps:,.1f} GB/s"),
        (
            "side by side",
            "stages took {:.2f}× / {:.2f}× / {:.2f}× (read / compute / write) as long as "
            "alone".format(*result.side_by_side_slowdown),
        ),
        ("checked", f"{result.checked_values:,} values against numpy: all correct"),
    ]


def tile_rows(result: TileResult) -> list[tuple[str, str]]:
    """Per pass, one line per intensity (copy and every variant's GB/s and share of the
    copy's), then the headline: which pass and row carry the claim, and what it says."""
    rows = [
        ("device", result.device),
        (
            "data",
            f"{result.bytes_moved / 2 / MIB:,.4g} MiB in, the same out; GB/s count bytes "
            "read + written; per launch: N back-to-back launches per event pair ÷ N",
        ),
        (
            "launch overhead",
            f"{_ms(result.launch_overhead_ms)} per launch (an empty kernel on the "
            "same grid, timed the same way; the figures below include it)",
        ),
    ]
    for sweep in result.all_passes:
        balanced = balanced_row(sweep.rows) if sweep.rows else None
        rows.append(
            (
                f"{sweep.blocks_per_sm} block(s)/SM",
                f"grid of {sweep.grid_blocks:,} blocks; {sweep.residency}",
            )
        )
        for row in sweep.rows:
            parts = [f"copy {result.gbps(row.copy_ms):,.0f} GB/s"]
            for variant in result.variants:
                parts.append(
                    f"{VARIANTS[variant]} {result.gbps(row.variant_ms[variant]):,.0f} GB/s "
                    f"({result.fraction_of_copy(row, variant):.0%})"
                )
            mark = " (balanced)" if row is balanced else ""
            rows.append((f"  intensity {row.intensity}{mark}", "; ".join(parts)))
    found = result.headline()
    if found is not None:
        rows.append((HEADLINE, found.text()))
        main = result.main_headline()
        if main is not None and result.low_occupancy is not None:
            hidden = ": other blocks on the SM already hide the latency" if main.gain < 1.1 else ""
            rows.append(("at full occupancy", main.text() + hidden))
    elif result.variants == (SYNC,):
        rows.append((HEADLINE, "no cp.async variant ran: nothing to compare"))
    rows.append(("checked", f"{result.checked_values:,} values per variant: all correct"))
    return rows
