"""Words for people: times and lists of ops (numbered from 1: op index 0 is "op 1"), as
every view, the terminal and every figure write them.

ONE time formatter, `time_text`, and its pieces (`number_text`, `time_scale`, `tick_text`,
`span_text`) for axes and intervals; `duration_words` for a whole run's length. The rules:

* Three significant digits, trailing zeros dropped: "5 s", "1.5 s", "723 ms", "9.67 ms".
* Seconds get an SI prefix that keeps the number in [1, 1000): "s", "ms", "µs" (a time
  in "ms", as measured runs keep them, is scaled the same way: 1500 ms is "1.5 s"). The
  prefix is picked after rounding, so 0.9996 s is "1 s", never "1000 ms".
* From 1000 of the largest prefix up, every digit of the whole number, with thousands
  separators: "1,202 s", "3,000,000 s" (SI prefixes stop at seconds: no "ks").
* Below a microsecond the number goes on in µs ("0.25 µs"); below half a nanosecond, which
  no accepted duration (the policy's smallest is 1 µs) nor the views' resolution reaches,
  it is "0 s". Zero is "0 s".
* Cycles are whole numbers: "1 cycle", "1,234 cycles". Any other unit gets the number
  rules and the unit as given ("2.5 units"); an empty unit gives the number alone.
* Never scientific notation, never a number with more than three significant digits
  below 1000. Negative values (which no run has) get a "-" and the same rules.

Text from files and flags is hostile: `printable` escapes what a terminal would obey, and
`elided` fits it to the space it has.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

#: A time formatter: (value, unit) → text.
TimeText = Callable[[float, str], str]

#: Significant digits of every time people read.
DIGITS = 3
#: Units that are seconds (to this factor) and take SI prefixes.
SECONDS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}
#: The SI prefixes used, largest first: (seconds per unit, unit).
_PREFIXES: tuple[tuple[float, str], ...] = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"))
#: Below this many seconds a time reads "0 s".
_TINY = 5e-10
_CYCLES = ("cycles", "cycle")


def _rounded(value: float, digits: int) -> float:
    """|value| rounded to ``digits`` significant digits (decimal rounding, as printed)."""
    return abs(float(f"{value:.{digits - 1}e}"))


def number_text(value: float, digits: int = DIGITS) -> str:
    """``digits`` significant digits, no trailing zeros ("2.5", "0.0012"); from 10^digits
    up the whole number with separators ("1,202"). Never scientific notation."""
    if not math.isfinite(value):
        return str(value)
    if value < 0:
        return "-" + number_text(-value, digits)
    rounded = _rounded(value, digits)
    if rounded == 0:
        return "0"
    if rounded >= 10**digits:
        return f"{round(value):,}"
    decimals = max(0, digits - 1 - math.floor(math.log10(rounded)))
    text = f"{rounded:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True)
class TimeScale:
    """Times shown as ``value * factor`` followed by ``unit`` (1000, "ms" for seconds)."""

    factor: float
    unit: str

    def number(self, value: float, digits: int = DIGITS) -> str:
        return number_text(value * self.factor, digits)


def time_scale(value: float, unit: str = "s", digits: int = DIGITS) -> TimeScale:
    """The scale `time_text` shows ``value`` in: the SI prefix keeping the rounded number
    in [1, 1000) (seconds from 1 s up, µs below 1 ms); other units as given."""
    per_unit = SECONDS.get(unit)
    if per_unit is None:
        return TimeScale(1.0, unit)
    seconds = _rounded(value * per_unit, digits) if math.isfinite(value) else math.inf
    if seconds == 0:
        return TimeScale(per_unit, "s")
    for size, name in _PREFIXES:
        if seconds >= size:
            return TimeScale(per_unit / size, name)
    return TimeScale(per_unit / 1e-6, "µs")


def time_text(value: float, unit: str = "s", digits: int = DIGITS) -> str:
    """A time for people, by the module's rules: "1.5 s", "9.67 ms", "1,234 cycles"."""
    if unit in _CYCLES:
        whole = round(value) if math.isfinite(value) else value
        return f"{whole:,} {'cycle' if whole == 1 else 'cycles'}"
    if unit in SECONDS and math.isfinite(value) and abs(value * SECONDS[unit]) < _TINY:
        return "0 s"
    scale = time_scale(value, unit, digits)
    number = scale.number(value, digits)
    return f"{number} {scale.unit}" if scale.unit else number


#: The app's name for `time_text` (it had a formatter of its own once; it is this one).
format_time = time_text


def duration_words(seconds: float, about: bool = True) -> str:
    """How long a whole run takes: "about 40 s", "about 13 min", "about 3.5 h" (`time_text`
    up to two minutes, then whole minutes, from two hours hours to a tenth)."""
    if seconds >= 7200:
        text = f"{seconds / 3600:,.1f} h"
    elif seconds >= 120:
        text = f"{seconds / 60:,.0f} min"
    else:
        text = time_text(seconds)
    return f"about {text}" if about else text


def span_text(start: float, end: float, unit: str = "s", time: TimeText = time_text) -> str:
    """An interval at any magnitude: "250–750 ms" (the larger end's scale, the unit once);
    "2.00012–2.00013 s" (up to six digits, until the ends differ); "1 µs–1,000,000,000 s"
    (very different ends each in its prefix); "1,000,000,000 s + 1 µs" (no digits tell
    the ends apart). A ``time`` other than `time_text` writes both ends in full."""
    if time is not time_text:
        first = time(start, unit)
        return f"{first.removesuffix(' ' + unit) if unit else first}–{time(end, unit)}"
    if unit in _CYCLES:
        return f"{round(start):,}–{time_text(end, unit)}"
    larger = max(abs(start), abs(end))
    scale = time_scale(larger, unit)
    tail = f" {scale.unit}" if scale.unit else ""
    first, last = scale.number(start), scale.number(end)
    if first == last and start != end:
        for digits in range(DIGITS + 1, _SPAN_DIGITS + 1):
            if larger * scale.factor >= 1000:
                break  # whole numbers from 1000 up: more digits show nothing more
            first, last = scale.number(start, digits), scale.number(end, digits)
            if first != last:
                return f"{first}–{last}{tail}"
        return f"{time_text(start, unit)} + {_length_text(start, end, unit)}"
    if start != 0 and time_scale(start, unit).unit != scale.unit and start * scale.factor < _FAINT:
        return f"{time_text(start, unit)}–{time_text(end, unit)}"
    return f"{first}–{last}{tail}"


#: Most significant digits a span's ends get before it is written as a start and a length.
_SPAN_DIGITS = 6
#: A start below this in the end's scale ("0.000001" s) is written in its own prefix.
_FAINT = 0.01


def _length_text(start: float, end: float, unit: str) -> str:
    """``end - start`` with only the digits the floats carry ("1 µs" near 1e9 s, not
    "0.954 µs")."""
    length = end - start
    grain = math.ulp(max(abs(start), abs(end)))
    known = math.floor(math.log10(length / grain)) if length > grain else 1
    return time_text(length, unit, digits=max(1, min(DIGITS, known)))


def axis_scale(span: float, unit: str = "s") -> TimeScale:
    """The scale of a time axis from 0 to ``span``: its largest value's prefix."""
    if unit in _CYCLES:
        return TimeScale(1.0, "cycles")
    return time_scale(span, unit)


def axis_title(scale: TimeScale) -> str:
    """ "time (ms)", or "cycle" for cycles."""
    return "cycle" if scale.unit in _CYCLES else f"time ({scale.unit})" if scale.unit else "time"


def tick_text(value: float, step: float, scale: TimeScale) -> str:
    """A tick's number in ``scale`` with the decimals ``step`` needs ("0.75", "1,002")."""
    shown, shown_step = value * scale.factor, abs(step * scale.factor)
    if not math.isfinite(shown):
        return str(shown)
    decimals = 0
    if shown_step > 0:
        decimals = min(12, max(0, -math.floor(math.log10(shown_step) + 1e-9)))
        # Steps such as 0.25 or 2.5 need a decimal more than their order of magnitude.
        while decimals < 12 and abs(round(shown_step, decimals) - shown_step) > 1e-9 * shown_step:
            decimals += 1
    text = f"{shown:,.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


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
    """0-based op indices as people read them: "1 and 2", "1–5 and 7" (runs of three or
    more as first–last)."""
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


#: What `printable` escapes: C0 and C1 controls, DEL, bidirectional overrides and isolates
#: (they reverse the text after them), line and paragraph separators, lone surrogates (a
#: file name's undecodable bytes, which no UTF-8 stream can print).
_UNPRINTABLE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(char: str) -> str:
    """One character as a visible escape: "\\n", "\\x1b", "\\x9b", "\\u202e"."""
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character a terminal would act on (`_UNPRINTABLE`) written as a
    visible escape ("\\x1b[31m", "\\u202e", "\\n"): the one escaper of user text.
    Characters in ``keep`` (e.g. "\\n" for a multi-line box) stay; backslashes are left
    alone (a Windows path reads as written)."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(
        lambda match: match.group() if match.group() in keep else _escape(match.group()), text
    )


def _width(char: str) -> int:
    return len(_escape(char)) if _UNPRINTABLE.match(char) else 1


def _fitting(chars: Iterable[str], width: int) -> int:
    """How many of ``chars``, escaped, fit ``width`` characters, no escape cut."""
    used = count = 0
    for char in chars:
        used += _width(char)
        if used > width:
            break
        count += 1
    return count


def printable_head(text: str, width: int) -> str:
    """The longest start of ``printable(text)`` in ``width`` characters, no escape cut."""
    return printable(text[: _fitting(text[:width], width)])


def printable_tail(text: str, width: int) -> str:
    """The longest end of ``printable(text)`` in ``width`` characters, no escape cut."""
    count = _fitting(reversed(text[-width:] if width > 0 else ""), width)
    return printable(text[len(text) - count :])


def elided(text: str, width: int) -> str:
    """``printable(text)`` in at most ``width`` characters, cut with "…" when longer."""
    shown = printable(text)
    if len(shown) <= width:
        return shown
    return printable_head(text, max(0, width - 1)) + "…"


def elided_middle(text: str, width: int) -> str:
    """``printable(text)`` in about ``width`` characters: when longer, its start, "…", its
    end and its length: "/home/me/…/run.toml (4,200 characters)"."""
    shown = printable(text)
    if len(shown) <= width:
        return shown
    head = width * 2 // 5
    tail = max(0, width - head - 1)
    return f"{printable_head(text, head)}…{printable_tail(text, tail)} ({len(text):,} characters)"


#: Longest line `message_line` makes (characters): about six rows of an 80-column
#: terminal (only text no quoting helper cut, such as argparse's, comes near).
MESSAGE_CHARS = 500


def message_line(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` as one message line, `printable`, and beyond ``limit`` its start and end
    around its length: the safety net under every message's own quoting."""
    shown = printable(text)
    if len(shown) <= limit:
        return shown
    note = f" … ({len(text):,} characters in all) … "
    head = (limit - len(note)) * 3 // 5
    tail = limit - len(note) - head
    return printable_head(text, head) + note + printable_tail(text, tail)


_NUMBER_SPACE = re.compile(r"(\d) (?=[^\s\d·(])")


def unbreakable_values(text: str) -> str:
    """``text`` with the space after each number non-breaking ("5 s", "3 slots")."""
    return _NUMBER_SPACE.sub("\\1\u00a0", text)
