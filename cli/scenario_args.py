"""The scenario flags shared by `simulate` and `export`."""

from __future__ import annotations

import argparse

from cli.parser import whole
from cli.paths import nonempty
from engine.naming import renamed_if_changed
from engine.scenario import MAX_OPS, MAX_WORKERS, Scenario, load_preset, preset_names
from engine.schedule import STAGES, UNITS


def add_scenario_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scenario (a preset or a file, then overrides)")
    source = group.add_mutually_exclusive_group()
    source.add_argument(
        "--preset",
        type=nonempty,
        default=None,
        help=f"a shipped preset: {', '.join(preset_names())} (default: book)",
    )
    source.add_argument(
        "--scenario",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="a scenario TOML file, '-' for standard input (its format and limits: the "
        "model, see below)",
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


def scenario_from_args(args: argparse.Namespace) -> Scenario:
    """The scenario the flags describe: preset or file (default: the book example), then
    the overrides; an override that changes the run names the change ("The book example
    with 1,000,000 ops"), so no figure or table passes it off as the preset. Raises
    PipeLabError on any bad value."""
    if args.scenario is not None:
        scenario = Scenario.load(args.scenario)
    else:
        scenario = load_preset("book" if args.preset is None else args.preset)
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
