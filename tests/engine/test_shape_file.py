"""Pipeline-shape files (engine.model.shape_file): the TOML form, its one-line errors with the
key's line, the round trip, and the shipped shape presets against their closed forms."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.analysis.derived import Derived
from engine.analysis.metrics import makespan_formula
from engine.analysis.timeline import state_at
from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario, preset_names
from engine.model.shape_file import (
    ShapedScenario,
    load_any_preset,
    preset_titles,
    read_scenario,
    shape_words,
    simulated,
)

PING_PONG = """\
name = "Hopper warp-specialized GEMM, ping-pong"
ops = 12

[[stages]]
name = "load"
unit = "TMA"
time = 1.0

[[stages]]
name = "mma"
unit = "tensor cores"
time = 2.0

[[stages]]
name = "epilogue"
unit = "consumers"
time = 1.5

[units]
"TMA" = 1
"tensor cores" = 1
"consumers" = 2

[[pools]]
name = "smem stages"
size = 4
from = "load"
to = "mma"

[[pools]]
name = "consumer warpgroups"
size = 2
from = "mma"
to = "epilogue"
"""


def test_the_issue_s_ping_pong_file_reads_as_the_shape_it_says() -> None:
    scenario = ShapedScenario.from_toml(PING_PONG)
    shape = scenario.shape
    assert shape.stages == ("load", "mma", "epilogue")
    assert shape.units == ("TMA", "tensor cores", "consumers")
    assert shape.workers == (1, 1, 2)
    assert [(p.name, p.size, p.first, p.last) for p in shape.pools] == [
        ("smem stages", 4, 0, 1),
        ("consumer warpgroups", 2, 1, 2),
    ]
    assert scenario.n_ops == 12 and scenario.times.shape == (12, 3)
    assert not scenario.times.flags.writeable
    # ping-pong: the tensor cores never rest once fed: load + n·mma + epilogue
    assert scenario.simulate().makespan == 1.0 + 12 * 2.0 + 1.5
    assert shape_words(shape).endswith("consumer warpgroups 2 (mma → epilogue)")


def test_a_shape_file_round_trips_through_toml(tmp_path: Path) -> None:
    text = PING_PONG.replace("time = 2.0", "time = [2.0, 3.0, 2.0]").replace("ops = 12", "")
    scenario = ShapedScenario.from_toml(text)
    assert scenario.n_ops == 3  # as many ops as the list gives
    path = tmp_path / "again.toml"
    path.write_text(scenario.to_toml())
    again = read_scenario(path)
    assert isinstance(again, ShapedScenario)
    assert again.shape == scenario.shape and again.name == scenario.name
    assert np.array_equal(again.times, scenario.times)
    assert np.array_equal(again.simulate().start, scenario.simulate().start)


def test_read_scenario_reads_either_form(tmp_path: Path) -> None:
    book = tmp_path / "book.toml"
    book.write_text("[defaults]\ncount = 3\n")
    assert isinstance(read_scenario(book), Scenario)
    shaped = tmp_path / "shape.toml"
    shaped.write_text(PING_PONG)
    assert isinstance(read_scenario(shaped), ShapedScenario)
    with pytest.raises(PipeLabError, match=r"line 4: a pipeline-shape file"):
        Scenario.load(shaped)  # the book's reader says what the file is


def test_sequential_holds_one_op_in_flight() -> None:
    scenario = ShapedScenario.from_toml(PING_PONG)
    schedule = scenario.simulate("sequential")
    assert schedule.policy == "sequential"
    assert schedule.makespan == 12 * (1.0 + 2.0 + 1.5)
    assert simulated(scenario, "sequential").makespan == schedule.makespan


def test_with_ops_repeats_the_ops_in_order() -> None:
    scenario = ShapedScenario.from_toml(
        PING_PONG.replace("time = 1.0", "time = [1.0, 0.5]").replace("ops = 12", "ops = 2")
    )
    more = scenario.with_ops(5)
    assert more.times[:, 0].tolist() == [1.0, 0.5, 1.0, 0.5, 1.0]


def _error(text: str) -> str:
    with pytest.raises(PipeLabError) as caught:
        ShapedScenario.from_toml(text, source="s.toml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("s.toml")
    return message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ('from = "mma"\nto = "epilogue"', 'from = "epilogue"\nto = "mma"'),
            "line 34: pool 'consumer warpgroups' is taken at 'epilogue' but given back at 'mma'",
        ),
        (
            ('unit = "consumers"', 'unit = "consumer"'),
            "line 16: no unit is named 'consumer'; did you mean 'consumers'?",
        ),
        (('to = "mma"', 'to = "mmma"'), "line 28: no stage is named 'mmma'; did you mean 'mma'?"),
        (
            ('"consumers" = 2', '"consumers" = 0'),
            "line 22: unit 'consumers''s workers must be between 1 and 1,024, not 0",
        ),
        (("size = 4", "size = -1"), "line 26: pool 'smem stages''s size (0: unlimited) must be"),
        (
            ("time = 2.0", "time = [2.0, 1.0]"),
            "line 12: stage 'mma' lists 2 times but ops gives 12 ops",
        ),
        (('name = "mma"', 'name = "load"'), "line 10: two stages are named 'load'"),
        (
            ('name = "consumer warpgroups"', 'name = "smem stages"'),
            "line 31: two pools are named 'smem stages'",
        ),
        (("time = 1.5", "time = -1.5"), "line 17: epilogue time must be 0 or more, not -1.5"),
        (("time = 1.5", 'time = "fast"'), "line 17: epilogue time must be a number of seconds"),
        (('"TMA" = 1', '"TMA" = 1\n"spare" = 1'), "line 21: unit 'spare' runs no stage"),
        (("ops = 12", "ops = 0"), "line 2: ops must be between 1 and 10,000,000, not 0"),
        (
            ('unit = "TMA"\ntime = 1.0', 'unit = "TMA"\nspeed = 1.0'),
            "line 7: unknown key 'speed' in stage 1 (expected one of: name, time, unit)",
        ),
        (("size = 4\n", ""), "line 24: pool 'smem stages' needs 'size'"),
        (
            ('[[pools]]\nname = "smem stages"', '[[pools]]\nnam = "smem stages"'),
            "line 25: unknown key 'nam' in pool 1; did you mean 'name'?",
        ),
    ],
)
def test_every_error_in_a_shape_is_one_line_naming_its_key_and_line(
    change: tuple[str, str], expected: str
) -> None:
    old, new = change
    assert old in PING_PONG
    assert expected in _error(PING_PONG.replace(old, new, 1))


def test_more_than_eight_stages_is_refused_at_the_stages() -> None:
    stages = "".join(f'[[stages]]\nname = "s{i}"\nunit = "u"\ntime = 1\n' for i in range(9))
    message = _error(stages + '[units]\n"u" = 1\n')
    assert "line 1: 9 [[stages]]: at most 8" in message


def test_a_shape_without_units_or_stages_says_what_it_needs() -> None:
    assert "[units] must be a table" in _error('[[stages]]\nname = "a"\nunit = "u"\ntime = 1\n')
    assert "needs at least one [[stages]]" in _error("stages = []\n")


@pytest.mark.parametrize(
    ("preset", "makespan"),
    [
        ("hopper-ping-pong", 1.0 + 12 * 2.0 + 1.5),  # load + n·mma + epilogue
        ("hopper-cooperative", 1.0 + 12 * (2.0 + 1.5)),  # load + n·(mma + epilogue)
        ("cp-async-ring", 1.0 + 12 * 2.0 + 1.0),  # load + n·compute + store
        ("pipeline-parallel", (8 + 4 - 1) * 1.0),  # (M + S − 1)·t
        ("host-pipeline", 0.5 + 8 * 2 * 1.0),  # one copy engine carries both directions
    ],
)
def test_the_shape_presets_meet_their_closed_forms(preset: str, makespan: float) -> None:
    scenario = load_any_preset(preset)
    assert isinstance(scenario, ShapedScenario)
    assert scenario.description and scenario.name
    assert scenario.simulate().makespan == makespan


def test_pipeline_parallelism_s_bubble_is_its_idle_share() -> None:
    scenario = load_any_preset("pipeline-parallel")
    schedule = simulated(scenario)
    busy = np.bincount(schedule.unit, weights=schedule.duration) / schedule.makespan
    stages, micro = 4, 8
    assert np.allclose(1 - busy, (stages - 1) / (micro + stages - 1))


def test_every_preset_loads_in_its_form_and_unknown_names_list_all() -> None:
    names = preset_names(shapes=True)
    assert names[0] == "book" and "hopper-ping-pong" in names and "triple-buffering" in names
    loaded = [load_any_preset(name) for name in names]
    assert all(scenario.name for scenario in loaded)
    # the preset menu's words, read without building the scenarios, are the loaded ones
    titles = [(n, s.name, s.description) for n, s in zip(names, loaded, strict=True)]
    assert preset_titles() == titles
    with pytest.raises(PipeLabError, match=r"did you mean 'hopper-ping-pong'\?.*cp-async-ring"):
        load_any_preset("hoper-ping-pong")


@pytest.mark.parametrize(
    ("preset", "resource", "period", "why"),
    [
        (
            "hopper-ping-pong",
            "tensor cores",
            2.0,
            "tensor cores: each mma takes 2 s: one op every 2 s",
        ),
        (
            "hopper-cooperative",
            "consumer warpgroups",
            3.5,
            "consumer warpgroups: each op holds the only slot for 3.5 s (mma to epilogue)",
        ),
        ("host-pipeline", "copy engine", 2.0, "copy engine: each op's H2D 1 s + D2H 1 s"),
        ("pipeline-parallel", "none", 1.0, "none: GPU 1 = GPU 2 = GPU 3 = GPU 4: each allows"),
    ],
)
def test_what_binds_a_shape_is_a_unit_or_a_pool_with_its_numbers(
    preset: str, resource: str, period: float, why: str
) -> None:
    from engine.analysis.derived import Derived
    from engine.analysis.metrics import steady_state

    scenario = load_any_preset(preset)
    state = steady_state(Derived(simulated(scenario)))
    assert (state.resource, state.period) == (resource, period)
    assert state.why.startswith(why)


def test_a_ring_smaller_than_the_work_it_holds_binds() -> None:
    from engine.analysis.derived import Derived
    from engine.analysis.metrics import steady_state

    scenario = load_any_preset("cp-async-ring")
    assert isinstance(scenario, ShapedScenario)
    pools = (replace(scenario.shape.pools[0], size=1),)
    one_slot = replace(scenario, shape=replace(scenario.shape, pools=pools))
    schedule = one_slot.simulate()
    state = steady_state(Derived(schedule))
    assert state.resource == "smem stages" and state.period == 3.0  # cp.async + mma, 1 slot
    assert schedule.makespan == 12 * 3.0 + 1.0  # each op's load and mma in turn; last store


def test_a_shapes_run_records_each_pools_grants_and_who_holds_a_slot() -> None:
    """Ping-pong at 12 s: the smem ring holds tiles 6–9 (4 slots, freed after the mma),
    the two consumer warpgroups tiles 5 and 6; a slot is free at its stage's end."""
    schedule = load_any_preset("hopper-ping-pong").simulate("pipelined")
    assert schedule.pool_grants is not None and schedule.pool_grants.shape == (12, 2)
    assert not schedule.pool_grants.flags.writeable
    state = state_at(schedule, 12.0)
    held = [list(np.flatnonzero(h) + 1) for h in state.pool_holds]
    assert held == [[6, 7, 8, 9], [5, 6]]
    assert [state.pool_in_use(p) for p in range(2)] == [4, 2]
    first_mma_end = float(schedule.op_ends[0, 1])
    assert not state_at(schedule, first_mma_end).pool_holds[0][0]
    with pytest.raises(PipeLabError, match="pool grants"):
        replace(schedule, pool_grants=schedule.pool_grants[:, :1])


@pytest.mark.parametrize(
    ("name", "policy", "text"),
    [
        ("hopper-ping-pong", "pipelined", "26.5 s = 4.5 s for the first op + 11 × 2 s"),
        ("hopper-cooperative", "pipelined", "43 s = 4.5 s for the first op + 11 × 3.5 s"),
        ("pipeline-parallel", "pipelined", "11 s = 4 s for the first op + 7 × 1 s"),
        ("cp-async-ring", "sequential", "48 s = 4 s for the first op + 11 × 4 s"),
        (
            "host-pipeline",
            "pipelined",
            "no closed form (the run does not settle at once into one op every 2 s): at least 16 s",
        ),
    ],
)
def test_a_shapes_closed_form_where_it_holds(name: str, policy: str, text: str) -> None:
    """T₁ + (N − 1)·P where the run settles at once into the binding period (the bubble,
    ping-pong, cooperative); else none, and a bound the run does not beat."""
    schedule = load_any_preset(name).simulate(policy)
    formula = makespan_formula(Derived(schedule))
    assert formula is not None and formula.text == text
    if formula.value is not None:
        assert formula.value == schedule.makespan
    else:
        assert schedule.makespan >= 16.0


def test_a_shape_with_uneven_ops_has_no_closed_form() -> None:
    scenario = load_any_preset("hopper-ping-pong")
    times = scenario.times.copy()
    times[3, 1] = 5.0
    schedule = replace(scenario, times=times).simulate("pipelined")
    formula = makespan_formula(Derived(schedule))
    assert formula is not None and formula.value is None
    assert formula.text.startswith("no closed form (uneven ops): at least ")
    bound = float(formula.text.rsplit(" ", 2)[-2])
    assert bound <= schedule.makespan


def test_a_shapes_runs_say_their_pools() -> None:
    """A run's heading names its pools (the book's says its slots)."""
    from engine.model.naming import pool_words

    scenario = load_any_preset("hopper-ping-pong")
    assert pool_words(scenario.simulate("pipelined")) == (
        "smem stages: 4 slots, consumer warpgroups: 2 slots"
    )
    assert pool_words(scenario.simulate("sequential")) == "one op at a time"
    assert pool_words(load_any_preset("pipeline-parallel").simulate("pipelined")) == ""
