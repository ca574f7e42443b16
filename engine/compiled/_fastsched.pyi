"""Type stub for the optional compiled module (_fastsched.c, _idle_pass.c, _row_order.c)."""

import numpy as np
import numpy.typing as npt

def schedule(
    durations: npt.NDArray[np.float64],
    stage_units: npt.NDArray[np.int64],
    workers: npt.NDArray[np.int64],
    pools: npt.NDArray[np.int64],
    starts: npt.NDArray[np.float64],
    workers_out: npt.NDArray[np.int64],
    grants: npt.NDArray[np.float64],
) -> bool:
    """Simulate a pipeline shape; fills starts, workers_out (n, stages) and grants
    (n, pools) in place; False where some op never got its slot."""

def critical_path(
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    unit: npt.NDArray[np.int64],
    op: npt.NDArray[np.int64],
    worker_pred: npt.NDArray[np.int64],
    data_pred: npt.NDArray[np.int64],
    slot_pred: npt.NDArray[np.int64],
    last: int,
    tolerance: float,
    path: npt.NDArray[np.int64],
    sums: npt.NDArray[np.float64],
) -> int:
    """Walk the critical path back from ``last``; fills path and sums, returns its length."""

def critical_path_rows(
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    unit: npt.NDArray[np.int64],
    op: npt.NDArray[np.int64],
    stage: npt.NDArray[np.int64],
    order: npt.NDArray[np.int32],
    bounds: npt.NDArray[np.int64],
    by_release: npt.NDArray[np.int64] | None,
    stages: int,
    slots: int,
    last: int,
    tolerance: float,
    path: npt.NDArray[np.int64],
    sums: npt.NDArray[np.float64],
) -> int:
    """`critical_path` of an op-major pipeline, candidates read off ``by_row`` (order,
    bounds); ``by_release``: the ops in slot release order (None: op order)."""

def rows_pass(
    row_starts: npt.NDArray[np.float64],
    reach: npt.NDArray[np.float64] | tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]],
    bounds: npt.NDArray[np.int64],
    first_row: int,
    n_rows: int,
    span: float,
    points: npt.NDArray[np.float64],
    starts: npt.NDArray[np.float64],
    tasks: npt.NDArray[np.int64] | None,
    hold_lo: npt.NDArray[np.float64],
    hold_hi: npt.NDArray[np.float64],
    slots: int,
    codes: tuple[int, int, int],
    budget: int,
    out_row: npt.NDArray[np.int64] | None,
    out_start: npt.NDArray[np.float64] | None,
    out_end: npt.NDArray[np.float64] | None,
    out_reason: npt.NDArray[np.int8] | None,
    out_task: npt.NDArray[np.int32] | None,
    totals: npt.NDArray[np.float64] | None,
    counts: npt.NDArray[np.int64] | None = None,
    longest: npt.NDArray[np.float64] | None = None,
) -> tuple[int, int]:
    """One unit's idle gaps (rows ``first_row`` .. + ``n_rows``) cut at ``points``: counted
    ((gaps, cuts), cuts -1 past ``budget``) when every out column and ``totals`` are None;
    else written with each piece's awaited task and reason (``codes``: input, slot, done)
    and summed per (row, reason) into ``totals``, ``counts`` and per row ``longest``.
    ``reach``: in by_row order, or (end, order) where rows do not overlap."""

def rows_in_time_order(
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    row: npt.NDArray[np.int64],
    n_rows: int,
    order: npt.NDArray[np.int32],
    bounds: npt.NDArray[np.int64],
    starts: npt.NDArray[np.float64],
    ends: npt.NDArray[np.float64] | None,
    resorted: npt.NDArray[np.bool_],
    overlapping: npt.NDArray[np.bool_] | None = None,
) -> None:
    """Spans sorted by (row, start, end; then index) into the out arrays (``ends`` None: not
    written); per row, whether it was out of order and whether its spans overlap."""

def chain_roots(owner: npt.NDArray[np.int64]) -> None:
    """Each entry (an earlier index, or itself) replaced in place by its chain's root."""

def block_extremes(
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    block: int,
    longest: npt.NDArray[np.float64],
    shortest: npt.NDArray[np.float64],
) -> None:
    """Each block's longest and shortest span (end - start), spans in index order."""

def busy_until_row(
    starts: npt.NDArray[np.float64],
    ends: npt.NDArray[np.float64],
    order: npt.NDArray[np.int32] | npt.NDArray[np.int64] | None,
    offset: int,
    fences: npt.NDArray[np.float64],
    fence: int,
    times: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """A row of disjoint spans' busy time before each of ``times``, into ``out``; span j's
    end is ``ends[order[j]]`` (``ends[offset + j]`` where ``order`` is None); ``fences``:
    the busy time before every ``fence``-th span."""

def sorted_common(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> int:
    """The values ascending ``a`` and ``b`` both hold, ascending and each once, written to
    ``out`` (at least as long as the shorter); returns how many."""

def merge_times(
    parts: tuple[npt.NDArray[np.float64], ...],
    tolerance: float,
    removed: npt.NDArray[np.float64],
    dropped: npt.NDArray[np.float64],
) -> tuple[int, int]:
    """The ascending ``parts`` walked in merged order: a value within ``tolerance`` above
    the one before goes to ``removed`` (and ``dropped`` where it is its value's first);
    returns how many of each."""
