"""Whether this machine can show the CPU pipeline winning, said before the run (issue 25,
item 15); and the CPU defaults that show it on two cores. No Qt here."""

from __future__ import annotations

import pytest

from gpu import cpu_backend
from gpu.calibration import StageCosts
from gpu.cores import NEEDED, Cores, cpu_warning, this_machine
from gpu.params import MIB, multiply_adds


@pytest.mark.parametrize(
    ("cores", "words"),
    [
        (Cores(1, 0), "1 core"),
        (Cores(2, 1), "Only 1 of this machine's 2 cores is free"),
        (Cores(2, 2), "None of this machine's 2 cores is free"),
        (Cores(4, 3), "Only 1 of this machine's 4 cores is free"),
    ],
)
def test_a_machine_that_cannot_show_it_is_told_in_one_sentence(cores: Cores, words: str) -> None:
    text = cpu_warning(cores)
    assert words in text
    assert "copy engines" in text and "separate" in text  # why a GPU differs
    assert text.count(". ") == 0 and text.endswith(".")  # one sentence


@pytest.mark.parametrize("cores", [Cores(2, 0), Cores(8, 2), Cores(16, 0)])
def test_free_cores_enough_say_nothing(cores: Cores) -> None:
    assert cores.free >= NEEDED and cpu_warning(cores) == ""


def test_this_machine_counts_usable_cores_and_busy_ones() -> None:
    cores = this_machine()
    assert cores.usable >= 1 and 0 <= cores.busy <= cores.usable


def test_cpu_defaults_take_stages_of_milliseconds() -> None:
    """At 64 MiB in 16 chunks a stage took 0.3 ms, no longer than a hand-over between
    threads, and pipelining never won: chunks are 16 MiB now."""
    params = cpu_backend.default_params()
    assert params.chunks == 16 and params.size_bytes == 256 * MIB
    assert params.size_bytes // params.chunks >= 16 * MIB


def test_cpu_auto_intensity_makes_compute_outlast_both_copies() -> None:
    """Compute ≈ 1.5 × (read + write): one core computes while the other copies."""
    costs = StageCosts(2.0, 2.0, 0.5, 0.5, "by hand")
    chosen = costs.intensity_for(cpu_backend.COMPUTE_SHARE * (costs.read_ms + costs.write_ms))
    assert costs.compute_ms(chosen) == pytest.approx(6.0, abs=0.5)
    assert costs.balanced_intensity() == 3  # the GPU's rule: compute ≈ one copy


def test_one_multiply_add_is_singular() -> None:
    assert multiply_adds(1) == "1 multiply-add per element"
    assert multiply_adds(16) == "16 multiply-adds per element"
