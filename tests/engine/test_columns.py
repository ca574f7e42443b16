"""`engine.model.columns.sorted_unique` and `median_of`: np.unique's and np.median's answers for
times and indices, without calling them (their first call imports numpy.ma, which the
app's start-up does without)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.model.columns import median_of, sorted_unique

times = st.lists(st.sampled_from([0.0, -0.0, 0.5, 1.0, 1e-300, 3.0, 1e9, -2.5]), max_size=30)


@given(times)
def test_times_as_np_unique_gives_them(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    found = sorted_unique(array)
    assert found.dtype == np.float64
    assert np.array_equal(found, np.unique(array))


@given(st.lists(st.integers(-5, 2**40), max_size=30))
def test_indices_as_np_unique_gives_them(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    found = sorted_unique(array)
    assert found.dtype == np.int64
    assert np.array_equal(found, np.unique(array))


def test_the_input_is_left_as_it_was() -> None:
    array = np.array([3, 1, 3, 2])
    assert sorted_unique(array).tolist() == [1, 2, 3]
    assert array.tolist() == [3, 1, 3, 2]


@given(st.lists(st.floats(-1e12, 1e12), min_size=1, max_size=30))
def test_median_as_np_median_gives_it(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    assert median_of(array) == float(np.median(array))
    assert array.tolist() == values  # (sorted a copy)


def test_the_median_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no values"):
        median_of(np.zeros(0))


def test_neither_imports_numpy_ma() -> None:
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from engine.model.columns import median_of, sorted_unique\n"
        "sorted_unique(np.array([2.0, 1.0, 2.0]))\n"
        "median_of(np.array([2.0, 1.0, 4.0, 3.0]))\n"
        "assert 'numpy.ma' not in sys.modules, 'numpy.ma imported'\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
