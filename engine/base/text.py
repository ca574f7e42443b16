"""Words for people: times and lists of ops, as the narration, the stats, the terminal, the
app and every exported figure write them. Ops are numbered from 1 here (op index 0 is
"op 1"), as everywhere users read.

ONE time formatter, `time_text`, and its pieces (`number_text`, `time_scale`,
`tick_text`, `span_text`) for axes and intervals; `duration_words` for how long a whole
run takes (minutes and hours). The rules:

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

Text from files and flags is hostile: `printable` escapes what a terminal would obey
(colours, titles, a cursor moved back, text reversed) before anything prints it, and
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
    """A number with ``digits`` significant digits and no trailing zeros ("2.5", "723",
    "0.0012"), or, from 10^digits up, the whole number with separators ("1,202"). Never
    scientific notation."""
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
    """How times are shown in one unit: the number is ``value * factor``, followed by
    ``unit`` (e.g. factor 1000, unit "ms" for seconds shown in milliseconds)."""

    factor: float
    unit: str

    def number(self, value: float, digits: int = DIGITS) -> str:
        return number_text(value * self.factor, digits)


def time_scale(value: float, unit: str = "s", digits: int = DIGITS) -> TimeScale:
    """The scale `time_text` shows ``value`` (in ``unit``) in: the SI prefix that keeps the
    rounded number in [1, 1000), seconds from 1 s up, µs below 1 ms; other units as given."""
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
    """A time for people, by the rules in the module docstring: "5 s", "1.5 s", "723 ms",
    "9.67 ms", "1 µs", "1,202 s", "3,000,000 s", "1,234 cycles"."""
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
    """How long a whole run takes (an estimate, a limit, time spent), for people: "about
    40 s", "about 13 min", "about 3.5 h" (or without "about"). `time_text` up to two
    minutes; then whole minutes, from two hours on hours to a tenth: a run of hours is
    not read in seconds."""
    if seconds >= 7200:
        text = f"{seconds / 3600:,.1f} h"
    elif seconds >= 120:
        text = f"{seconds / 60:,.0f} min"
    else:
        text = time_text(seconds)
    return f"about {text}" if about else text


def span_text(start: float, end: float, unit: str = "s", time: TimeText = time_text) -> str:
    """An interval, readable at any magnitude: "2–3 s", "0.5–1.5 s", "250–750 ms" (both
    ends in the scale of the larger one, the unit written once); "2.00012–2.00013 s"
    (digits added, up to six, until the ends differ); "1 µs–1,000,000,000 s" (ends of very
    different sizes each in their own prefix); "1,000,000,000 s + 1 µs" (a start and a
    length, where no digits tell the ends apart). ``time`` is kept for callers that pass
    a formatter; a formatter other than `time_text` writes both ends in full."""
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
    """``end - start`` with only the digits the floats carry: near 1e9 s a float steps by
    1.2e-7 s, so a 1 µs span is "1 µs", not "0.954 µs"."""
    length = end - start
    grain = math.ulp(max(abs(start), abs(end)))
    known = math.floor(math.log10(length / grain)) if length > grain else 1
    return time_text(length, unit, digits=max(1, min(DIGITS, known)))


def axis_scale(span: float, unit: str = "s") -> TimeScale:
    """The scale of a time axis from 0 to ``span``: the prefix of its largest value (a run
    of 250 ms is drawn in ms; cycles in cycles)."""
    if unit in _CYCLES:
        return TimeScale(1.0, "cycles")
    return time_scale(span, unit)


def axis_title(scale: TimeScale) -> str:
    """ "time (ms)", or "cycle" for cycles."""
    return "cycle" if scale.unit in _CYCLES else f"time ({scale.unit})" if scale.unit else "time"


def tick_text(value: float, step: float, scale: TimeScale) -> str:
    """A tick's number in ``scale`` with as many decimals as ``step`` needs (ticks 0.25 s
    apart: "0.75"; 2 apart: "1,002"), thousands separators, never scientific notation."""
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


#: What `printable` escapes: C0 controls, DEL, C1 controls, the bidirectional overrides
#: and isolates (they reverse the text after them), the line and paragraph separators and
#: lone surrogates (a file name's undecodable bytes, which no UTF-8 stream can print).
_UNPRINTABLE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(char: str) -> str:
    """One character as a visible escape: "\\n", "\\x1b", "\\x9b", "\\u202e"."""
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character a terminal would act on instead of showing written
    as a visible escape ("\\x1b[31m", "\\x00", "\\x9b", "\\u202e", "\\n"): C0 and C1
    controls, DEL, bidirectional overrides and isolates, line separators, lone
    surrogates. The one escaper of user text (names, descriptions, paths, values quoted
    in errors) for the terminal and the app. Characters in ``keep`` (e.g. "\\n" for a
    multi-line text box) stay as they are; by default a newline or tab is escaped, so
    a user string never breaks a one-line text. Backslashes are left alone (a Windows
    path reads as written)."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(
        lambda match: match.group() if match.group() in keep else _escape(match.group()), text
    )


def _width(char: str) -> int:
    return len(_escape(char)) if _UNPRINTABLE.match(char) else 1


def printable_head(text: str, width: int) -> str:
    """The longest start of ``printable(text)`` that fits ``width`` characters without
    cutting an escape in two."""
    used, end = 0, 0
    for char in text[:width]:
        used += _width(char)
        if used > width:
            break
        end += 1
    return printable(text[:end])


def printable_tail(text: str, width: int) -> str:
    """The longest end of ``printable(text)`` that fits ``width`` characters without
    cutting an escape in two."""
    used, start = 0, len(text)
    for char in reversed(text[-width:] if width > 0 else ""):
        used += _width(char)
        if used > width:
            break
        start -= 1
    return printable(text[start:])


def elided(text: str, width: int) -> str:
    """``printable(text)`` in at most ``width`` characters: cut with "…" when longer
    (a name in a one-line heading never grows the layout with it)."""
    shown = printable(text)
    if len(shown) <= width:
        return shown
    return printable_head(text, max(0, width - 1)) + "…"


def elided_middle(text: str, width: int) -> str:
    """``printable(text)`` in about ``width`` characters: when longer, its start, "…" and
    its end (a path keeps its file name in view), with the whole length said:
    "/home/me/…/run.toml (4,200 characters)"."""
    shown = printable(text)
    if len(shown) <= width:
        return shown
    head = width * 2 // 5
    tail = max(0, width - head - 1)
    return f"{printable_head(text, head)}…{printable_tail(text, tail)} ({len(text):,} characters)"


#: Longest line `message_line` makes (characters): about six rows of an 80-column
#: terminal, far from a screenful (a message quotes at most `engine.base.validation.SHOWN`
#: characters of a value; only text no quoting helper cut, such as argparse's, comes near).
MESSAGE_CHARS = 500


def message_line(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` as one line of a message, on the terminal or in the app: every control
    character escaped (`printable`), and when longer than ``limit``, its start and its end
    (where argparse says what it expected) around the whole length. The safety net under
    every message's own quoting."""
    shown = printable(text)
    if len(shown) <= limit:
        return shown
    note = f" … ({len(text):,} characters in all) … "
    head = (limit - len(note)) * 3 // 5
    tail = limit - len(note) - head
    return printable_head(text, head) + note + printable_tail(text, tail)


_NUMBER_SPACE = re.compile(r"(\d) (?=[^\s\d·(])")


def unbreakable_values(text: str) -> str:
    """``text`` with the space after each number made non-breaking ("5 s", "3 slots",
    "1,202 ops"), so a wrapped line never leaves a value's unit on the next line."""
    return _NUMBER_SPACE.sub("\\1\u00a0", text)
