"""The figures of a run as labelled lines, shared by the CLI table and the panel's table."""

from __future__ import annotations

from engine.base.text import time_text
from gpu.measured import PipelineResult, Spread
from gpu.params import MIB, multiply_adds
from gpu.tile_result import (
    COPY_GOAL,
    GAIN_GOAL,
    SYNC,
    VARIANTS,
    TileResult,
    balanced_row,
    claim_variant,
)

#: The label of the row that carries experiment 2's headline claim (the panel shows it too).
HEADLINE = "headline"
#: The label of the row that carries the full-occupancy claim when both passes ran.
FULL_OCCUPANCY = "at full occupancy"


def _ms(value: float) -> str:
    """A measured time (kept in ms) as `engine.base.text.time_text` writes it: "43.6 ms"."""
    return time_text(value, "ms")


def spread_text(spread: Spread) -> str:
    """'min 40.1 ms, median 43.6 ms, max 68.8 ms over 5 runs (±32%)'."""
    return (
        f"min {_ms(spread.minimum)}, median {_ms(spread.median)}, max {_ms(spread.maximum)} "
        f"over {spread.runs} run{'s' if spread.runs != 1 else ''} "
        f"(range {spread.relative_range:.0%} of the median)"
    )


def _backend_words(result: PipelineResult) -> str:
    return "CPU threads" if result.backend == "cpu" else f"the GPU ({result.device})"


def measured_title(result: PipelineResult) -> str:
    """A measured run's name where a window names what it shows: "Measured on CPU
    threads: 16 chunks, sequential and pipelined"."""
    where = "CPU threads" if result.backend == "cpu" else "the GPU"
    return f"Measured on {where}: {_chunks(result.params.chunks)}, sequential and pipelined"


def measured_description(result: PipelineResult) -> str:
    """One sentence for the banner over the read-only form: "Showing the measured run: 16
    chunks on CPU threads, sequential 98.1 ms, pipelined 66.2 ms"."""
    return (
        f"Showing the measured run: {_chunks(result.params.chunks)} on "
        f"{_backend_words(result)}, sequential {_ms(result.sequential.makespan)}, "
        f"pipelined {_ms(result.pipelined.makespan)}"
    )


def _chunks(n: int) -> str:
    return f"{n:,} chunk{'' if n == 1 else 's'}"


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
        ("intensity", multiply_adds(result.intensity)),
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
    copy's), then the claims: which pass, row and variant carry each, and what they say."""
    launch = (
        f"{_ms(result.launch_overhead_ms)} per launch: the device's own time from one "
        "empty kernel on the same grid to the next (N launches queued behind a spin before "
        "the window opens, ÷ N); not subtracted from the figures below"
    )
    if result.launch_overhead_host_bound:
        launch += (
            f"; in {result.launch_overhead_host_bound} window(s) the device caught up with "
            "the host, so this partly measures how fast Python queues launches"
        )
    rows = [
        ("device", result.device),
        (
            "data",
            f"{result.bytes_moved / 2 / MIB:,.4g} MiB in, the same out; GB/s count bytes "
            "read + written; per launch: N back-to-back launches per event pair ÷ N",
        ),
        ("launch to launch", launch),
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
    claimed = claim_variant(result.variants)
    if found is not None and claimed is not None:
        main = result.main_headline()
        two = main is not None and result.low_occupancy is not None
        low_claim = (
            f"'{HEADLINE}' ({found.blocks_per_sm} block(s)/SM): gain over the synchronous "
            f"kernel at the same occupancy, goal >= {GAIN_GOAL:.1f}×; "
        )
        rows.append(
            (
                "claims",
                (low_claim if two else "") + f"'{FULL_OCCUPANCY if two else HEADLINE}' "
                f"({result.all_passes[0].blocks_per_sm} block(s)/SM): share of copy "
                f"bandwidth, goal >= {COPY_GOAL:.0%}; each on its pass's balanced row, for "
                f"{VARIANTS[claimed]} (fixed in advance), the other variants beside it",
            )
        )
        rows.append((HEADLINE, found.text()))
        if two and main is not None:
            hidden = (
                " (cp.async gains little here: other blocks on the SM already hide the latency)"
                if main.gain < 1.1
                else ""
            )
            rows.append((FULL_OCCUPANCY, main.text() + hidden))
    elif result.variants == (SYNC,):
        rows.append((HEADLINE, "no cp.async variant ran: nothing to compare"))
    rows.append(("checked", f"{result.checked_values:,} values per variant: all correct"))
    return rows
