"""Where things are in a TOML document: the line of every key, and how deep it nests.

`tomllib` gives no positions, and searching the text misses dotted keys and sub-tables and
finds keys inside strings. This small scanner knows headers, arrays of tables, dotted and
quoted keys, the four kinds of strings, comments, arrays and inline tables, and records the
line where each key path is first defined: ``("ops", 1, "read")`` for the second [[ops]].

`deepest_nesting` runs *before* parsing, on any text: tomllib recurses once per level of
nesting, so ten thousand ``[`` would end in a RecursionError instead of a message.
"""

from __future__ import annotations

import re
import tomllib

Path = tuple[str | int, ...]

#: Arrays and inline tables nested deeper than this are refused before parsing.
MAX_NESTING = 32

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}$")
_SCALAR_END = " \t\r\n,]}#"


def deepest_nesting(text: str) -> tuple[int, int]:
    """(deepest nesting of ``[``/``{`` outside strings and comments, its first line);
    lenient on invalid TOML (an unclosed string ends at its line, or the text's end)."""
    depth = deepest = 0
    deepest_line = line = 1
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            line += 1
        elif char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif char in "\"'":
            triple = text.startswith(char * 3, i)
            end = _string_end(text, i, char, triple)
            line += text.count("\n", i, end)
            i = end
            continue
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, deepest_line = depth, line
        elif char in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest, deepest_line


def _string_end(text: str, start: int, quote: str, triple: bool) -> int:
    """Index just past the string opening at ``start`` (lenient on unclosed strings)."""
    n = len(text)
    i = start + (3 if triple else 1)
    escapes = quote == '"'
    while i < n:
        char = text[i]
        if escapes and char == "\\":
            i += 2
            continue
        if char == quote:
            if not triple:
                return i + 1
            if text.startswith(quote * 3, i):
                i += 3
                while i < n and text[i] == quote:  # up to two quotes may end the content
                    i += 1
                return i
        elif char == "\n" and not triple:
            return i  # an unclosed one-line string: invalid, stop at its line
        i += 1
    return n


class _Scanner:
    """Walks a valid TOML document once, recording the line of every key path."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.lines: dict[Path, int] = {}
        self.table: Path = ()
        self.current_index: dict[Path, int] = {}  # array of tables -> index of its last entry

    # -- low level ------------------------------------------------------------------------

    def peek(self, count: int = 1) -> str:
        return self.text[self.i : self.i + count]

    def advance_to(self, end: int) -> None:
        self.line += self.text.count("\n", self.i, end)
        self.i = end

    def skip_blank(self, newlines: bool) -> None:
        """Skip spaces and tabs (and newlines and comments when ``newlines``)."""
        text, n = self.text, len(self.text)
        while self.i < n:
            char = text[self.i]
            if char in " \t\r":
                self.i += 1
            elif char == "\n" and newlines:
                self.i += 1
                self.line += 1
            elif char == "#" and newlines:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            else:
                return

    def skip_line(self) -> None:
        end = self.text.find("\n", self.i)
        self.advance_to(len(self.text) if end < 0 else end)

    def record(self, path: Path, line: int) -> None:
        for length in range(1, len(path) + 1):
            self.lines.setdefault(path[:length], line)

    # -- keys -----------------------------------------------------------------------------

    def key(self) -> list[str]:
        """A (possibly dotted) key: its parts, unquoted."""
        parts: list[str] = []
        while True:
            self.skip_blank(newlines=False)
            char = self.peek()
            if char in "\"'":
                end = _string_end(self.text, self.i, char, triple=False)
                raw = self.text[self.i + 1 : end - 1]
                parts.append(_unescape(raw) if char == '"' else raw)
                self.advance_to(end)
            else:
                match = _BARE_KEY.match(self.text, self.i)
                if match is None:
                    return parts
                parts.append(match.group())
                self.i = match.end()
            self.skip_blank(newlines=False)
            if self.peek() != ".":
                return parts
            self.i += 1

    def resolve(self, parts: list[str]) -> Path:
        """A header's key as a path, with the current entry of every array of tables."""
        path: Path = ()
        for part in parts:
            path += (part,)
            if path in self.current_index:
                path += (self.current_index[path],)
        return path

    # -- the document ---------------------------------------------------------------------

    def document(self) -> dict[Path, int]:
        n = len(self.text)
        while True:
            self.skip_blank(newlines=True)
            if self.i >= n:
                return self.lines
            line = self.line
            if self.peek(2) == "[[":
                self.i += 2
                parts = self.key()
                parent = self.resolve(parts[:-1])
                array = (*parent, parts[-1]) if parts else parent
                index = self.current_index.get(array, -1) + 1
                self.current_index[array] = index
                self.table = (*array, index)
                self.record(self.table, line)
                self.skip_line()
            elif self.peek() == "[":
                self.i += 1
                self.table = self.resolve(self.key())
                self.record(self.table, line)
                self.skip_line()
            else:
                start = self.i
                self.keyval(self.table)
                if self.i == start:  # not a key: never loop on text we don't understand
                    self.skip_line()

    def keyval(self, base: Path) -> None:
        line = self.line
        parts = self.key()
        if not parts:
            return
        path = (*base, *parts)
        self.record(path, line)
        self.skip_blank(newlines=False)
        if self.peek() == "=":
            self.i += 1
            self.skip_blank(newlines=False)
            self.value(path)

    def value(self, path: Path) -> None:
        char = self.peek()
        if char in "\"'":
            triple = self.text.startswith(char * 3, self.i)
            self.advance_to(_string_end(self.text, self.i, char, triple))
        elif char in "[{":  # an array (items by index) or an inline table (keys)
            self.i += 1
            index = 0
            closing = "]" if char == "[" else "}"
            while True:
                self.skip_blank(newlines=True)
                if self.peek() in (closing, ""):
                    self.i += 1
                    return
                if self.peek() == ",":
                    self.i += 1
                    index += 1
                    continue
                start = self.i
                if char == "[":
                    self.record((*path, index), self.line)
                    self.value((*path, index))
                else:
                    self.keyval(path)
                if self.i == start:
                    self.i += 1
        else:
            self.scalar()

    def scalar(self) -> None:
        """A number, boolean or date-time (which may hold one space) up to a separator."""
        text, n = self.text, len(self.text)
        start = self.i
        while self.i < n and text[self.i] not in _SCALAR_END:
            self.i += 1
        if (
            _DATE.match(text[start : self.i])
            and self.peek() == " "
            and text[self.i + 1 : self.i + 2].isdigit()
        ):
            self.i += 1
            while self.i < n and text[self.i] not in _SCALAR_END:
                self.i += 1


def _unescape(raw: str) -> str:
    """A quoted key's escapes, as TOML (tomllib itself) reads them (``raw`` as it is
    where they are not TOML's: the text was valid, so never)."""
    try:
        return str(tomllib.loads(f'k = "{raw}"')["k"])
    except tomllib.TOMLDecodeError:
        return raw


def key_lines(text: str) -> dict[Path, int]:
    """Line (1-based) where each key path of the valid TOML ``text`` is first defined."""
    scanner = _Scanner(text)
    try:
        return scanner.document()
    except (IndexError, ValueError, RecursionError):  # a form we don't know: keep what we have
        return scanner.lines


def line_of(lines: dict[Path, int], path: Path) -> int | None:
    """The line of ``path``, else of its nearest enclosing table or key."""
    for length in range(len(path), 0, -1):
        line = lines.get(path[:length])
        if line is not None:
            return line
    return None
