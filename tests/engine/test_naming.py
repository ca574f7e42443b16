"""Names of changed scenarios: the command line's overrides say what they changed."""

from __future__ import annotations

import numpy as np

from engine.model.naming import renamed_if_changed
from engine.model.scenario import Scenario, load_preset


def test_an_unchanged_preset_keeps_its_name() -> None:
    book = load_preset("book")
    same = book.with_changes(ops=3, read=1.0)
    assert renamed_if_changed(book, same).name == "The book example"


def test_each_change_is_named_once() -> None:
    book = load_preset("book")
    changed = book.with_changes(ops=1_000_000, read=2.0, buffers=2, workers=(2, 1, 3))
    renamed = renamed_if_changed(book, changed)
    assert renamed.name == (
        "The book example with 1,000,000 ops, read 2 s, 2 slots, 2 load workers, 3 store workers"
    )
    assert renamed.description.startswith("1,000,000 ops, each read 2 s")
    assert np.array_equal(renamed.read, changed.read)  # only the words change


def test_more_uneven_ops_repeat_their_durations_without_calling_them_changed() -> None:
    uneven = Scenario(np.array([1.0, 2.0]), np.array([1.0, 1.0]), np.array([3.0, 0.5]))
    more = uneven.with_changes(ops=5)
    assert renamed_if_changed(uneven, more).name.endswith("with 5 ops")
    # A duration flag makes every op alike (op 1's other durations): all three changed.
    faster = uneven.with_changes(compute=0.5)
    assert renamed_if_changed(uneven, faster).name == (
        "Untitled with read 1 s, compute 500 ms, write 3 s"
    )
