"""The scenario flags shared by `simulate` and `export`."""

from __future__ import annotations

import argparse
from dataclasses import replace

from cli.parser import whole
from cli.paths import nonempty
from engine.base.errors import PipeLabError
from engine.model.naming import renamed_if_changed
from engine.model.scenario import MAX_OPS, MAX_WORKERS, preset_names
from engine.model.schedule import STAGES, UNITS
from engine.model.shape_file import AnyScenario, ShapedScenario, load_any_preset, read_scenario


def add_scenario_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scenario (a preset or a file, then overrides)")
    source = group.add_mutually_exclusive_group()
    source.add_argument(
        "--preset",
        type=nonempty,
        default=None,
        help=f"a shipped preset: {', '.join(preset_names(shapes=True))} (default: book)",
    )
    source.add_argument(
        "--scenario",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="a scenario TOML file, book-shaped or a pipeline shape ([[stages]]), '-' for "
        "standard input (its format and limits: the model, see below)",
    )
    group.add_argument(
        "--ops",
        type=whole(1, MAX_OPS),
        default=None,
        metavar="N",
        help="number of ops (default: the scenario's)",
    )
    for stage in STAGES:
        group.add_argument(
            f"--{stage}",
            type=float,
            default=None,
            metavar="T",
            help=f"{stage} time of every op: 0 or 1e-6 to 1e9 seconds (default: the scenario's)",
        )
    group.add_argument(
        "--buffers",
        type=whole(0, MAX_OPS),
        default=None,
        metavar="B",
        help="shared-memory slots, 0 = unlimited (default: the scenario's)",
    )
    for unit in UNITS:
        group.add_argument(
            f"--{unit}-workers",
            type=whole(1, MAX_WORKERS),
            default=None,
            metavar="K",
            help=f"workers of the {unit} unit (default: the scenario's)",
        )


def scenario_from_args(args: argparse.Namespace) -> AnyScenario:
    """The scenario the flags describe: preset or file (default: the book example), then
    the overrides; an override that changes the run names the change ("The book example
    with 1,000,000 ops"), so no figure or table passes it off as the preset. A pipeline
    shape takes ``--ops`` alone. Raises PipeLabError on any bad value."""
    if args.scenario is not None:
        scenario = read_scenario(args.scenario)
    else:
        scenario = load_any_preset("book" if args.preset is None else args.preset)
    if isinstance(scenario, ShapedScenario):
        return _shape_with_ops(scenario, args)
    workers = tuple(
        given if given is not None else current
        for given, current in zip(
            (args.load_workers, args.compute_workers, args.store_workers),
            scenario.workers,
            strict=True,
        )
    )
    changes = {}
    if workers != scenario.workers:
        changes["workers"] = workers
    if args.buffers is not None:
        changes["buffers"] = args.buffers
    changed = scenario.with_changes(
        ops=args.ops, read=args.read, compute=args.compute, write=args.write, **changes
    )
    return renamed_if_changed(scenario, changed)


def scenario_flags_given(args: argparse.Namespace) -> list[str]:
    """The scenario flags the command line gave ("--preset", "--read"…), in order."""
    names = ["preset", "scenario", "ops", *STAGES, "buffers", *(f"{u}_workers" for u in UNITS)]
    return [f"--{n.replace('_', '-')}" for n in names if getattr(args, n, None) is not None]


def _shape_with_ops(scenario: ShapedScenario, args: argparse.Namespace) -> ShapedScenario:
    """A pipeline shape with ``--ops`` (its ops' times repeated in order); the book's
    stage, slot and worker flags are refused: the shape's file names its own."""
    given = [
        flag
        for flag in scenario_flags_given(args)
        if flag not in ("--preset", "--scenario", "--ops")
    ]
    if given:
        raise PipeLabError(
            f"{', '.join(given)} set the book's stages, slots and workers; "
            f"{scenario.name!r} is a pipeline shape: change its [[stages]], [units] and "
            "[[pools]] in its file (--ops works)"
        )
    if args.ops is None or args.ops == scenario.n_ops:
        return scenario
    return replace(scenario.with_ops(args.ops), name=f"{scenario.name} with {args.ops:,} ops")
