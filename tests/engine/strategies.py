"""Hypothesis strategies the engine's property tests share: scenarios of a few ops on a
small grid of durations (so ties and zero-length stages are common) mixed with any
duration the engine accepts."""

from __future__ import annotations

from hypothesis import strategies as st

from engine.scenario import Scenario
from engine.validation import MIN_DURATION

#: A stage duration: often on a grid of ties and zeros, else any accepted value up to 10.
duration = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0]),
    st.floats(min_value=MIN_DURATION, max_value=10.0, allow_nan=False, allow_infinity=False),
)


def scenarios(
    max_ops: int = 12, max_buffers: int = 5, max_workers: int = 3
) -> st.SearchStrategy[Scenario]:
    """Scenarios of 1 to ``max_ops`` uneven ops, 1 to ``max_workers`` workers per unit and
    0 (unlimited) to ``max_buffers`` slots."""

    @st.composite
    def build(draw: st.DrawFn) -> Scenario:
        n = draw(st.integers(1, max_ops))
        rows = draw(st.lists(st.tuples(duration, duration, duration), min_size=n, max_size=n))
        workers = draw(st.tuples(*(st.integers(1, max_workers) for _ in range(3))))
        r, c, w = (list(column) for column in zip(*rows, strict=True))
        return Scenario(r, c, w, workers=workers, buffers=draw(st.integers(0, max_buffers)))

    return build()
