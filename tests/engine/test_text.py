"""The one time formatter: its rules as examples, and as properties over every accepted
magnitude (never scientific notation, three significant digits, monotone, readable back)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.base.text import (
    axis_scale,
    axis_title,
    elided,
    elided_middle,
    format_time,
    number_text,
    printable,
    printable_head,
    printable_tail,
    span_text,
    tick_text,
    time_scale,
    time_text,
)

#: Seconds per unit written after a number.
_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}
#: Every time a run can hold: 0, and durations of 1e-6 .. 1e9 summed over up to 3·10^7 tasks.
times = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=3e16))


def seconds_of(text: str) -> float:
    """A time text read back, in seconds."""
    number, unit = text.split(" ")
    return float(number.replace(",", "")) * _UNITS[unit]


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (0.0, "s", "0 s"),
        (5.0, "s", "5 s"),
        (1.5, "s", "1.5 s"),
        (2.25, "s", "2.25 s"),
        (0.7227, "s", "723 ms"),  # not "0.7227 s"
        (0.00967237, "s", "9.67 ms"),  # not "9.67237 ms"
        (6e5, "s", "600,000 s"),  # not "6e+05 s"
        (3e6, "s", "3,000,000 s"),
        (1201.8000000000227, "s", "1,202 s"),
        (1e-6, "s", "1 µs"),  # the shortest accepted duration
        (2.5e-7, "s", "0.25 µs"),
        (1e-320, "s", "0 s"),
        (0.9996, "s", "1 s"),  # the prefix follows the rounded number: never "1000 ms"
        (0.0009996, "s", "1 ms"),
        (999.6, "s", "1,000 s"),
        (12.345, "s", "12.3 s"),
        (43.61, "ms", "43.6 ms"),
        (1500.0, "ms", "1.5 s"),
        (0.25, "ms", "250 µs"),
        (1.0, "cycles", "1 cycle"),
        (1234.0, "cycles", "1,234 cycles"),
        (2.5, "units", "2.5 units"),
        (2.5, "", "2.5"),
    ],
)
def test_the_rules_by_example(value: float, unit: str, text: str) -> None:
    assert time_text(value, unit) == text


def test_the_apps_name_is_the_same_formatter() -> None:
    assert format_time is time_text


def test_intervals_write_the_unit_once_in_the_larger_ends_scale() -> None:
    assert span_text(2.0, 3.0) == "2–3 s"
    assert span_text(0.5, 1.5) == "0.5–1.5 s"
    assert span_text(0.00025, 0.00075) == "250–750 µs"
    assert span_text(998.0, 1_000_002.0) == "998–1,000,002 s"
    assert span_text(3.0, 40.0, "cycles") == "3–40 cycles"


@pytest.mark.parametrize(
    ("start", "end", "text"),
    [
        (1e9, 1e9 + 1e-6, "1,000,000,000 s + 1 µs"),  # was "1,000,000,000–1,000,000,000 s"
        (1e9 - 1e-6, 1e9, "1,000,000,000 s + 1 µs"),
        (1e9, 1e9 + 0.4, "1,000,000,000 s + 400 ms"),
        (1e-6, 1e9, "1 µs–1,000,000,000 s"),  # was "0.000001–1,000,000,000 s"
        (1e-4, 5.0, "100 µs–5 s"),
        (0.0, 1e-6, "0–1 µs"),
        (1e-6, 2e-6, "1–2 µs"),
        (0.0, 1e9, "0–1,000,000,000 s"),
        (2.00012, 2.00013, "2.00012–2.00013 s"),  # digits until the ends differ
        (12.5, 12.5 + 1e-6, "12.5 s + 1 µs"),
        (5.0, 5.0, "5–5 s"),
    ],
)
def test_intervals_stay_readable_at_the_extremes(start: float, end: float, text: str) -> None:
    assert span_text(start, end) == text


def _span_back(text: str) -> tuple[float, float]:
    """A span text read back as (start, end) in seconds."""
    if " + " in text:
        first, length = text.split(" + ")
        return seconds_of(first), seconds_of(first) + seconds_of(length)
    first, last = text.split("–")
    if " " not in first:  # the unit written once, after the end
        first += " " + last.split(" ")[1]
    return seconds_of(first), seconds_of(last)


@given(times, st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=1e9)))
def test_intervals_tell_their_ends_apart_at_any_magnitude(start: float, length: float) -> None:
    """Every span a run can hold (ends 0 or 1e-6 .. 3e16, lengths 1e-6 .. 1e9): no
    scientific notation, a short line, ends that differ when the span has a length, each
    read back within the rounding of what is shown."""
    end = start + length
    text = span_text(start, end)
    assert not re.search(r"[eE]|inf|nan", text.replace("µs", "")), text
    assert len(text) <= 60, text
    low, high = _span_back(text)
    if end > start:
        assert high > low, (start, end, text)
    assert abs(low - start) <= 5e-3 * start + 0.5, (start, end, text)
    assert abs(high - end) <= 5e-3 * end + 0.5, (start, end, text)


@given(times)
def test_never_scientific_and_three_significant_digits(value: float) -> None:
    text = time_text(value)
    number, unit = text.split(" ")
    assert unit in _UNITS
    assert not re.search(r"[eE]|inf|nan", number), text
    digits = number.replace(",", "").replace(".", "").lstrip("0")
    if seconds_of(text) < 1000:
        assert len(digits.rstrip("0")) <= 3, text
        assert not (number.endswith("0") and "." in number), text  # no trailing zeros
    else:
        assert unit == "s" and "." not in number, text
    if "." in number or seconds_of(text) < 1000:
        assert 1 <= float(number) < 1000 or number == "0", text  # the prefix fits


@given(times)
def test_reads_back_within_its_rounding(value: float) -> None:
    back = seconds_of(time_text(value))
    assert abs(back - value) <= 5e-3 * value + 0.5, (value, back)


@given(times, times)
def test_monotone(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert seconds_of(time_text(low)) <= seconds_of(time_text(high))


@given(st.floats(min_value=1e-3, max_value=1e12), st.floats(min_value=0.0, max_value=1.0))
def test_measured_milliseconds_read_back_as_the_same_time(ms: float, share: float) -> None:
    value = ms * share
    assert abs(seconds_of(time_text(value, "ms")) - value * 1e-3) <= 5e-3 * value * 1e-3 + 0.5


@given(st.floats(min_value=0.0, max_value=1e15))
def test_numbers_are_never_scientific(value: float) -> None:
    text = number_text(value)
    assert not re.search(r"[eE]", text)
    assert abs(float(text.replace(",", "")) - value) <= 5e-3 * value + 0.5


@given(
    st.floats(min_value=1e-6, max_value=1e15),
    st.sampled_from([1.0, 2.0, 2.5, 5.0]),
    st.integers(min_value=-7, max_value=14),
    st.integers(min_value=0, max_value=40),
)
def test_ticks_tell_their_values_apart(span: float, mult: float, power: int, k: int) -> None:
    """Ticks k steps apart read back as k steps (as many decimals as the step needs)."""
    step = mult * 10.0**power
    scale = axis_scale(span)
    value, following = k * step, (k + 1) * step
    a = float(tick_text(value, step, scale).replace(",", ""))
    b = float(tick_text(following, step, scale).replace(",", ""))
    shown = step * scale.factor
    assert abs((b - a) - shown) <= 1e-6 * max(shown, abs(b)), (a, b, shown)


def test_axes_pick_the_prefix_of_their_largest_value() -> None:
    assert axis_title(axis_scale(6.0)) == "time (s)"
    assert axis_title(axis_scale(0.25)) == "time (ms)"
    assert axis_title(axis_scale(250.0, "ms")) == "time (ms)"
    assert axis_title(axis_scale(4e-4)) == "time (µs)"
    assert axis_title(axis_scale(10.0, "cycles")) == "cycle"
    assert [tick_text(v, 0.25, axis_scale(6.0)) for v in (0.0, 0.25, 1.5)] == ["0", "0.25", "1.5"]
    assert tick_text(1_000_000.0, 200_000.0, axis_scale(1e6)) == "1,000,000"
    assert time_scale(0.05).unit == "ms"


#: f-strings that format a time themselves: a number format right before a time unit.
_STRAY = re.compile(r"\{[^{}]*:[^{}]*[gfe]\}\s?(s|ms|µs|us)\b")


def test_no_formatter_of_its_own_anywhere() -> None:
    """Every time people read goes through `time_text`: no f"{x:.3g} s" in the code."""
    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for package in ("engine", "gui", "cli", "gpu")
        for path in sorted((root / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _STRAY.search(line)
    ]
    assert not found, "\n".join(found)


# -- hostile text: what a terminal would obey is shown, never obeyed -----------------------

#: Characters a terminal or a bidi-aware view acts on: ESC (colours, titles), BEL, NUL,
#: backspace, CR, DEL, CSI (C1), a right-to-left override and an isolate.
HOSTILE = "\x1b[31mRED\x1b]0;title\x07 \x00 \x08 \r \x7f \x9b31m \u202eevil\u2066x\u2069"
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def test_printable_escapes_controls_and_bidi_overrides_visibly() -> None:
    text = printable(HOSTILE)
    assert not UNPRINTABLE.search(text)
    assert text == (
        "\\x1b[31mRED\\x1b]0;title\\x07 \\x00 \\x08 \\r \\x7f \\x9b31m \\u202eevil\\u2066x\\u2069"
    )


def test_printable_escapes_newlines_and_tabs_unless_kept() -> None:
    assert printable("a\nb\tc") == "a\\nb\\tc"
    assert printable("a\nb\tc", keep="\n") == "a\nb\\tc"
    assert printable("plain – text, µs, 中文, C:\\path") == "plain – text, µs, 中文, C:\\path"


def test_cutting_printable_text_never_splits_an_escape() -> None:
    text = "\x1b" * 10
    assert printable_head(text, 9) == "\\x1b\\x1b"
    assert printable_tail("ab\x1b\x1bcd", 7) == "\\x1bcd"
    assert elided("x" * 100, 10) == "x" * 9 + "…"
    middle = elided_middle("/d" * 2100 + "/s.toml", 100)
    assert middle.endswith("/s.toml (4,207 characters)") and len(middle) < 130


def test_numbers_keep_their_units() -> None:
    from engine.base.text import unbreakable_values

    assert unbreakable_values("3 slots: 5 s (1 s faster) · op 12 · 1,202 ops") == (
        "3\u00a0slots: 5\u00a0s (1\u00a0s faster) · op 12 · 1,202\u00a0ops"
    )
