"""Words for people: times and lists of ops, as the narration, the stats and the terminal
write them. Ops are numbered from 1 here (op index 0 is "op 1"), as everywhere users read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

#: A time formatter: (value, unit) → text.
TimeText = Callable[[float, str], str]


def time_text(value: float, unit: str = "s") -> str:
    """A time: "5 s", "1.5 s", "1201.8 s", "1,000,002 s" (6 significant digits, binary
    noise such as 1201.8000000000227 removed, every digit of large whole values)."""
    clean = float(f"{value:.12g}")
    if abs(clean) >= 1e6:
        return f"{clean:,.0f} {unit}"
    return f"{clean:.6g} {unit}"


def join_words(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted unique numbers as (first, last) runs of consecutive values."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def op_numbers(ops: Iterable[int]) -> str:
    """0-based op indices as people read them, every one named: "1 and 2", "1–5 and 7"
    (a run of three or more consecutive ops is written first–last)."""
    numbers = sorted({int(op) + 1 for op in ops})
    parts: list[str] = []
    for first, last in _runs(numbers):
        if last - first >= 2:
            parts.append(f"{first:,}–{last:,}")
        else:
            parts += [f"{n:,}" for n in range(first, last + 1)]
    return join_words(parts)


def op_list(ops: Iterable[int]) -> str:
    """ "op 3", "ops 1 and 2", "ops 4–9" (0-based indices in, 1-based words out)."""
    listed = sorted({int(op) for op in ops})
    if not listed:
        return "no op"
    if len(listed) == 1:
        return f"op {listed[0] + 1:,}"
    return "ops " + op_numbers(listed)


def count_words(count: int, noun: str, plural: str | None = None) -> str:
    """ "1 slot", "2 slots"."""
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"


def format_time(value: float, unit: str = "s") -> str:
    """A time for the app's small spaces: "5 s", "2.5 s", "0.0123 ms" (at most 4 significant
    digits)."""
    return f"{float(f'{value:.12g}'):.4g} {unit}"


def span_text(start: float, end: float, unit: str = "s", time: TimeText = time_text) -> str:
    """ "2–3 s": an interval with the unit written once."""
    first = time(start, unit)
    return f"{first.removesuffix(' ' + unit) if unit else first}–{time(end, unit)}"
