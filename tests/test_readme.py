"""The README's console examples are what their commands print now (docs/generate.py
rewrites them: `uv run docs/generate.py`). The warps example once lacked two lines."""

from __future__ import annotations

import pytest

from docs.generate import README, Example, examples, readme_examples, regenerate_readme, run_example

EXAMPLES = [e for e in readme_examples(README.read_text(encoding="utf-8")) if e.generated]


def test_the_readme_has_its_examples() -> None:
    commands = " ".join(example.command for example in EXAMPLES)
    for command in ("simulate --preset book --policy both", "warps --warps 4", "--read -1"):
        assert command in commands, command


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.command[15:60])
def test_each_example_shows_what_its_command_prints(example: Example) -> None:
    assert example.shown == run_example(example.command), (
        f"{example.command!r} prints something else now: run `uv run docs/generate.py`"
    )


def test_blocks_are_split_into_commands_and_their_output() -> None:
    block = "$ uv run main.py a\none\ntwo\n\n$ uv run main.py b --out x.png\n$ ls\nthree\n"
    assert examples(block) == [
        Example("uv run main.py a", "one\ntwo\n", "\n"),
        Example("uv run main.py b --out x.png", ""),
        Example("ls", "three\n"),
    ]
    assert [e.generated for e in examples(block)] == [True, False, False]


def test_a_stale_output_is_rewritten_and_the_rest_kept() -> None:
    text = (
        "Intro.\n\n```console\n$ uv run main.py simulate --read -1\nold\n\n"
        "$ uv run main.py export --out x.png   # a file\n```\n\n```sh\nuv run main.py\n```\n"
    )
    fresh = regenerate_readme(text)
    assert fresh == text.replace("old\n", "pipelab: read must be 0 or more, not -1\n")
