"""The one quoting helper (`shown`, `path_text`) and the one whole-number rule, for files
and typed text alike (`whole_number`, `whole_number_text`)."""

from __future__ import annotations

import pytest

from engine.base.errors import PipeLabError
from engine.base.validation import (
    SHOWN,
    SHOWN_PATH,
    path_text,
    shown,
    whole_number,
    whole_number_text,
)


@pytest.mark.parametrize(
    ("value", "length"),
    [("x" * 1_000_000, "(1,000,000 characters)"), ([1] * 100_000, "(100,000 items)")],
)
def test_a_long_value_is_quoted_short_and_says_its_length(value: object, length: str) -> None:
    text = shown(value)
    assert text.endswith(length) and len(text) <= SHOWN + len(length) + 2, text


def test_a_cut_string_keeps_its_quotes_and_whole_escapes() -> None:
    assert shown("x" * 1000).startswith("'xxx") and "…' (1,000 characters)" in shown("x" * 1000)
    text = shown("\x1b" * 100)
    assert "\x1b" not in text and "\\x1b…'" in text  # never "\x1" cut from "\x1b"


def test_short_values_are_quoted_as_repr_escaped() -> None:
    assert shown("abc") == "'abc'"
    assert shown("\x1b[31m\u202e") == "'\\x1b[31m\\u202e'"
    assert shown(3.5) == "3.5"


def test_a_long_path_keeps_its_start_and_file_name() -> None:
    path = "/" + "/".join(["d" * 40] * 104) + "/scenario.toml"
    text = path_text(path)
    assert text.startswith("/ddd") and text.endswith(f"/scenario.toml ({len(path):,} characters)")
    assert len(text) <= SHOWN_PATH + 30


def test_a_path_with_control_characters_is_quoted_escaped() -> None:
    """Quoted, so '\\n' in a message cannot be a backslash and an n in the name."""
    assert path_text("a\nb\x1b.toml") == "'a\\nb\\x1b.toml'"
    assert path_text("a\\nb.toml") == "a\\nb.toml"
    long = "\n" + "d" * 1000 + "/run.toml"
    text = path_text(long)
    assert text.startswith("'\\nddd") and text.endswith("/run.toml' (1,010 characters)"), text


@pytest.mark.parametrize(
    ("text", "number"),
    [("3", 3), ("3.0", 3), ("1e3", 1000), (" 3 ", 3), ("1_000", 1000), ("+7", 7), ("-0", 0)],
)
def test_typed_whole_numbers_follow_the_files_rule(text: str, number: int) -> None:
    assert whole_number_text(text, "ops", 0, 10_000) == number
    value = float(text) if any(c in text for c in ".e") else int(text)
    assert whole_number(value, "count", 0, 10_000) == number  # as a file's value


@pytest.mark.parametrize(
    ("text", "value", "message"),
    [
        ("3.5", 3.5, "must be a whole number, not 3.5"),
        ("nan", float("nan"), "must be a whole number, not nan"),
        ("x", "x", "must be a whole number, not 'x'"),
        ("20000", 20_000, "must be between 0 and 10,000, not 20,000"),
        ("-1", -1, "must be between 0 and 10,000, not -1"),
    ],
)
def test_typed_and_file_numbers_are_refused_in_the_same_words(
    text: str, value: object, message: str
) -> None:
    with pytest.raises(PipeLabError, match=f"^ops {message}$"):
        whole_number_text(text, "ops", 0, 10_000)
    with pytest.raises(PipeLabError, match=f"^ops {message}$"):
        whole_number(value, "ops", 0, 10_000)
    with pytest.raises(PipeLabError, match=f"^{message}$"):  # no name: a flag's own words
        whole_number_text(text, "", 0, 10_000)


def test_a_number_too_long_for_int_is_said_by_its_length() -> None:
    with pytest.raises(PipeLabError, match=r"not a 5,000-digit number$"):
        whole_number_text("9" * 5000, "ops", 1, 10)
