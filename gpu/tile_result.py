"""Experiment 2's results, and its two claims: which pass, row and variant carry each.

The lesson is that cp.async's double buffering hides memory latency inside a block. Where
every variant is a plain copy (intensity 0), or where other blocks on the SM already hide
the latency (high occupancy), the variants tie and prove nothing. So each pass is judged on
its *balanced* row, picked from that pass's synchronous kernel alone (never from the
cp.async results): the intensity at which the synchronous kernel falls furthest behind its
bound max(load, compute) *for that pass*, where load is the pass's own synchronous time at
intensity 0 and compute the pass's cost per unit of intensity times the intensity. There
loading and computing cost about the same, and overlapping them is worth most.

The claims rest on one variant fixed before anything ran, `CLAIM_VARIANT` (2 stages: double
buffering, the lesson); the other cp.async variant is shown beside it, never swapped in
because it came out faster.

- **Low occupancy (1 block per SM): the headline.** Latency must be hidden inside the block,
  and one block per SM keeps too few bytes in flight to reach the copy's bandwidth (Little's
  law), so the pass is judged by cp.async's gain over the synchronous kernel at the same
  occupancy: goal `GAIN_GOAL`.
- **Full occupancy (8 blocks per SM).** Judged by cp.async's share of the device-to-device
  copy's bandwidth on its balanced row: goal `COPY_GOAL`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.base.text import time_text
from gpu.errors import GpuError
from gpu.params import ITEM, MIB
from gpu.timing import MAX_LAUNCHES

#: Floats per tile (256 threads × one float4 each): gpu/kernels/tile_common.cuh TILE_VEC × 4.
TILE = 1024
SYNC = "sync"
VARIANTS = {SYNC: "synchronous", "async2": "cp.async, 2 stages", "async3": "cp.async, 3 stages"}
KERNELS = {SYNC: "tile_sync", "async2": "tile_async2", "async3": "tile_async3"}
DEFAULT_INTENSITIES = (0, 8, 16, 32, 64, 128, 512)


@dataclass(frozen=True)
class TileParams:
    """Experiment 2's knobs: data size, the intensity sweep, timing, grid sizes.

    ``repeats`` timed windows (after ``warmup``) of at least ``min_launches`` launches and
    ``min_window_ms`` each; ``blocks_per_sm`` for the main pass; ``low_blocks_per_sm`` for
    the low-occupancy pass (0 skips it).
    """

    size_bytes: int = 256 * MIB
    intensities: tuple[int, ...] = DEFAULT_INTENSITIES
    repeats: int = 10
    warmup: int = 2
    blocks_per_sm: int = 8
    seed: int = 0
    low_blocks_per_sm: int = 1
    min_launches: int = 20
    min_window_ms: float = 2.0
    warmup_ms: float = 100.0

    def __post_init__(self) -> None:
        if self.size_bytes < TILE * ITEM:
            raise GpuError(f"experiment 2 needs at least {TILE * ITEM} bytes (one tile)")
        if not self.intensities or any(not 0 <= i <= 1_000_000 for i in self.intensities):
            raise GpuError("intensities must be whole numbers between 0 and 1,000,000")
        if not 1 <= self.repeats <= 1000 or not 0 <= self.warmup <= 1000:
            raise GpuError("repeats must be 1 to 1,000 and warm-up runs 0 to 1,000")
        if not 1 <= self.blocks_per_sm <= 64:
            raise GpuError("blocks per SM must be between 1 and 64")
        if not 0 <= self.low_blocks_per_sm <= 2:
            raise GpuError("the low-occupancy pass takes 1 or 2 blocks per SM (0: none)")
        if not 1 <= self.min_launches <= MAX_LAUNCHES or not 0 <= self.min_window_ms <= 1000:
            raise GpuError(
                f"launches per window must be 1 to {MAX_LAUNCHES} (what a stream queues "
                "ahead), the window 0 to 1,000 ms"
            )

    @property
    def n_elements(self) -> int:
        """Whole tiles only."""
        return (self.size_bytes // ITEM) // TILE * TILE


@dataclass(frozen=True)
class TileRow:
    """One intensity: median per-launch ms of the device-to-device copy and of every
    variant, and the launches per timed window each used."""

    intensity: int
    copy_ms: float
    variant_ms: dict[str, float]
    launches: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TilePass:
    """The intensity sweep at one residency: ``blocks_per_sm`` blocks on every SM (a grid of
    ``grid_blocks``), held there as ``residency`` says."""

    blocks_per_sm: int
    grid_blocks: int
    residency: str
    rows: tuple[TileRow, ...]


def compute_ms_per_intensity(rows: Sequence[TileRow]) -> float:
    """The synchronous kernel's cost per unit of intensity, from its two most intense rows
    (compute-bound there, so the difference is compute alone); 0 with fewer than two."""
    ordered = sorted(rows, key=lambda row: row.intensity)
    if len(ordered) < 2:
        return 0.0
    low, high = ordered[-2], ordered[-1]
    if high.intensity <= low.intensity:
        return 0.0
    slope = (high.variant_ms[SYNC] - low.variant_ms[SYNC]) / (high.intensity - low.intensity)
    return max(0.0, slope)


def load_ms(rows: Sequence[TileRow], ms_per_intensity: float) -> float:
    """What loading alone costs the synchronous kernel in this pass: its time at intensity 0
    (at the pass's lowest intensity, less that intensity's compute, where 0 was not run).
    At 1 block per SM this is several times the full-machine copy's time."""
    if not rows:
        return 0.0
    first = min(rows, key=lambda row: row.intensity)
    return max(0.0, first.variant_ms[SYNC] - ms_per_intensity * first.intensity)


@dataclass(frozen=True)
class Bound:
    """A pass's bound on the synchronous kernel: max(load, compute per intensity × i)."""

    load_ms: float
    ms_per_intensity: float

    @classmethod
    def of(cls, rows: Sequence[TileRow]) -> Bound:
        slope = compute_ms_per_intensity(rows)
        return cls(load_ms(rows, slope), slope)

    def at(self, intensity: int) -> float:
        return max(self.load_ms, self.ms_per_intensity * intensity)


def sync_shortfall(row: TileRow, bound: Bound) -> float:
    """How far the synchronous kernel falls behind its pass's bound: its time ÷ max(load,
    compute). 1 = loading and computing overlap fully; 2 = they run in turn, equal."""
    limit = bound.at(row.intensity)
    return row.variant_ms[SYNC] / limit if limit > 0 else 1.0


def balanced_row(rows: Sequence[TileRow]) -> TileRow:
    """The row of one pass where the synchronous kernel falls furthest behind that pass's
    max(load, compute): load ≈ compute there (the lowest intensity on ties). Chosen without
    looking at the cp.async variants."""
    if not rows:
        raise ValueError("no rows to choose from")
    bound = Bound.of(rows)
    ordered = sorted(rows, key=lambda row: row.intensity)
    return max(ordered, key=lambda row: sync_shortfall(row, bound))


#: The cp.async variant both claims rest on, fixed before any run: double buffering.
CLAIM_VARIANT = "async2"
#: Low occupancy: the claim variant's gain over the synchronous kernel on the balanced row
#: (1× = no overlap, 2× = load and compute fully overlapped where they are equal).
GAIN_GOAL = 1.5
#: Full occupancy: the claim variant's share of the copy's bandwidth on the balanced row.
COPY_GOAL = 0.85
#: The two claims, by what they are judged on.
GAIN_CLAIM, COPY_CLAIM = "gain over synchronous", "share of copy bandwidth"


def claim_variant(variants: Sequence[str]) -> str | None:
    """`CLAIM_VARIANT` where it ran, else the first cp.async variant in a fixed order
    (never the faster one); None without cp.async."""
    pipelined = [v for v in VARIANTS if v != SYNC and v in variants]
    if not pipelined:
        return None
    return CLAIM_VARIANT if CLAIM_VARIANT in pipelined else pipelined[0]


@dataclass(frozen=True)
class Headline:
    """One pass's claim on its balanced row: the fixed ``variant``, judged as ``claim``
    says; ``beside`` are the other cp.async variants, shown next to it, not claimed."""

    blocks_per_sm: int
    row: TileRow
    variant: str
    shortfall: float
    claim: str = GAIN_CLAIM
    beside: tuple[str, ...] = ()

    def gain_of(self, variant: str) -> float:
        """Synchronous time ÷ the variant's (above 1: the variant is faster)."""
        return self.row.variant_ms[SYNC] / self.row.variant_ms[variant]

    def fraction_of_copy_of(self, variant: str) -> float:
        return self.row.copy_ms / self.row.variant_ms[variant]

    @property
    def gain(self) -> float:
        """The claim variant's gain over the synchronous kernel."""
        return self.gain_of(self.variant)

    @property
    def fraction_of_copy(self) -> float:
        return self.fraction_of_copy_of(self.variant)

    @property
    def sync_fraction_of_copy(self) -> float:
        return self.row.copy_ms / self.row.variant_ms[SYNC]

    @property
    def goal(self) -> str:
        if self.claim == GAIN_CLAIM:
            return f"{VARIANTS[self.variant]} >= {GAIN_GOAL:.1f}× the synchronous kernel"
        return f"{VARIANTS[self.variant]} >= {COPY_GOAL:.0%} of copy bandwidth"

    @property
    def met(self) -> bool:
        if self.claim == GAIN_CLAIM:
            return self.gain >= GAIN_GOAL
        return self.fraction_of_copy >= COPY_GOAL

    def text(self) -> str:
        others = "".join(
            f"; beside it {VARIANTS[v]} {self.gain_of(v):.2f}×, "
            f"{self.fraction_of_copy_of(v):.0%} of copy"
            for v in self.beside
        )
        return (
            f"{self.blocks_per_sm} block(s)/SM, intensity {self.row.intensity} (balanced row: "
            f"synchronous {self.shortfall:.2f}× this pass's max(load, compute)): "
            f"{VARIANTS[self.variant]} {self.gain:.2f}× the synchronous kernel, "
            f"{self.fraction_of_copy:.0%} of copy bandwidth (synchronous "
            f"{self.sync_fraction_of_copy:.0%}){others}; judged on {self.claim}, goal "
            f"{self.goal}: {'met' if self.met else 'not met'}"
        )

    def figures(self) -> dict[str, Any]:
        return {
            "blocks_per_sm": self.blocks_per_sm,
            "balanced_intensity": self.row.intensity,
            "rule": "the row where the synchronous kernel falls furthest behind this pass's "
            "max(load: its own time at intensity 0, compute: slope x intensity); chosen "
            "without the cp.async results",
            "sync_shortfall": self.shortfall,
            "variant": self.variant,
            "variant_rule": f"fixed in advance: {VARIANTS[self.variant]}; the others are "
            "shown beside it, never chosen by their result",
            "claim": self.claim,
            "goal": self.goal,
            "goal_met": self.met,
            "gain_over_sync": self.gain,
            "fraction_of_copy": self.fraction_of_copy,
            "sync_fraction_of_copy": self.sync_fraction_of_copy,
            "beside": {
                v: {
                    "gain_over_sync": self.gain_of(v),
                    "fraction_of_copy": self.fraction_of_copy_of(v),
                }
                for v in self.beside
            },
            "text": self.text(),
        }


def headline(sweep: TilePass, variants: Sequence[str], claim: str = GAIN_CLAIM) -> Headline | None:
    """The balanced row of ``sweep`` and the fixed claim variant on it, judged as ``claim``
    says (None when no cp.async variant ran)."""
    variant = claim_variant(variants)
    if variant is None or not sweep.rows:
        return None
    row = balanced_row(sweep.rows)
    beside = tuple(v for v in VARIANTS if v not in (SYNC, variant) and v in variants)
    shortfall = sync_shortfall(row, Bound.of(sweep.rows))
    return Headline(sweep.blocks_per_sm, row, variant, shortfall, claim, beside)


@dataclass(frozen=True)
class TileResult:
    """Experiment 2: the main pass's rows (``rows``), every pass, and the empty kernel's
    device time per launch (``launch_overhead_ms``; ``launch_overhead_host_bound`` of its
    timed windows the device reached before the host had queued them)."""

    device: str
    params: TileParams
    variants: tuple[str, ...]
    rows: tuple[TileRow, ...]
    checked_values: int
    notes: tuple[str, ...] = field(default=())
    passes: tuple[TilePass, ...] = field(default=())
    launch_overhead_ms: float = 0.0
    launch_overhead_host_bound: int = 0

    @property
    def all_passes(self) -> tuple[TilePass, ...]:
        """Every pass run, the main one first (a result built from rows alone has one)."""
        if self.passes:
            return self.passes
        return (TilePass(self.params.blocks_per_sm, 0, "default occupancy", self.rows),)

    @property
    def low_occupancy(self) -> TilePass | None:
        return self.all_passes[1] if len(self.all_passes) > 1 else None

    @property
    def bytes_moved(self) -> int:
        """Bytes read + bytes written by every variant and by the copy."""
        return 2 * ITEM * self.params.n_elements

    def gbps(self, milliseconds: float) -> float:
        return self.bytes_moved / (milliseconds * 1e6) if milliseconds > 0 else 0.0

    def fraction_of_copy(self, row: TileRow, variant: str) -> float:
        return row.copy_ms / row.variant_ms[variant]

    def headline(self) -> Headline | None:
        """The headline claim: cp.async's gain over the synchronous kernel on the
        low-occupancy pass's balanced row; without that pass, the main pass's claim."""
        if self.low_occupancy is None:
            return self.main_headline()
        return headline(self.low_occupancy, self.variants, GAIN_CLAIM)

    def main_headline(self) -> Headline | None:
        """The full-occupancy claim: cp.async's share of copy bandwidth on the main pass's
        balanced row."""
        return headline(self.all_passes[0], self.variants, COPY_CLAIM)

    def best_pipelined(self) -> tuple[TileRow, str, float] | None:
        """(row, cp.async variant, its fraction of copy bandwidth) of the `headline`."""
        found = self.headline()
        if found is None:
            return None
        return found.row, found.variant, found.fraction_of_copy

    def _row_figures(self, row: TileRow) -> dict[str, Any]:
        return {
            "intensity": row.intensity,
            "copy_ms": row.copy_ms,
            "copy_gbps": self.gbps(row.copy_ms),
            **{f"{v}_ms": row.variant_ms[v] for v in self.variants},
            **{f"{v}_gbps": self.gbps(row.variant_ms[v]) for v in self.variants},
            **{
                f"{v}_speedup_over_sync": row.variant_ms[SYNC] / row.variant_ms[v]
                for v in self.variants
                if v != SYNC
            },
            "launches_per_window": dict(row.launches),
        }

    def figures(self) -> dict[str, Any]:
        found, main = self.headline(), self.main_headline()
        return {
            "device": self.device,
            "size_bytes": ITEM * self.params.n_elements,
            "bandwidth_counts": "bytes read + bytes written",
            "timing": f"median of {self.params.repeats} windows, each >= "
            f"{self.params.min_launches} back-to-back launches and >= "
            f"{time_text(self.params.min_window_ms, 'ms')}, divided by the launches",
            "launch_overhead_ms": self.launch_overhead_ms,
            "launch_overhead": {
                "ms": self.launch_overhead_ms,
                "what": "device time from one launch to the next of an empty kernel on the "
                "main pass's grid (N launches queued behind a spin before the window "
                "opens, divided by N); not subtracted from the figures",
                "host_bound_windows": self.launch_overhead_host_bound,
            },
            "variants": {v: VARIANTS[v] for v in self.variants},
            "rows": [self._row_figures(row) for row in self.rows],
            "passes": [
                {
                    "blocks_per_sm": p.blocks_per_sm,
                    "grid_blocks": p.grid_blocks,
                    "residency": p.residency,
                    "balanced_intensity": balanced_row(p.rows).intensity if p.rows else None,
                    "rows": [self._row_figures(row) for row in p.rows],
                }
                for p in self.all_passes
            ],
            "headline": found.figures() if found else None,
            "main_pass_headline": main.figures() if main else None,
            "checked_values": self.checked_values,
            "notes": list(self.notes),
        }
