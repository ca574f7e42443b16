"""The `bench` command: run the pipelining experiment(s) on CuPy or CPU threads and print
measured vs model (a table, or JSON for scripts)."""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

from cli.console import Progress
from cli.parser import HelpFormatter, columns, emit, whole
from cli.table import text_gantt
from engine.analysis.writers import schedule_to_dict
from engine.base.errors import PipeLabError
from engine.base.text import printable, time_text
from engine.base.validation import shown, value_text, whole_number_text
from gpu.calibration import RunTooLong
from gpu.detect import BACKENDS, Detection, resolve_backend
from gpu.experiments import default_params, pipeline_experiment, run_to_end
from gpu.measured import PipelineResult
from gpu.params import MAX_CHUNKS, MAX_INTENSITY, MAX_REPEATS, MAX_STREAMS, MIB
from gpu.report import pipeline_rows, tile_rows
from gpu.tile_result import TileParams, TileResult
from gpu.tiles import run_tiles

EXPERIMENTS = ("streams", "tiles", "both")
#: Experiment 1 is refused up front when its calibrated estimate is longer than this.
DEFAULT_TIME_LIMIT_S = 180.0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure pipelining on the GPU (CuPy) or CPU threads, next to the model",
        description="Experiment 1 (streams): data in chunks, copy-in → compute → copy-out, "
        "sequential vs pipelined, measured and held against the engine's prediction from the "
        "sequential run's stage times. Experiment 2 (tiles, CuPy only): a tiled kernel "
        "synchronous vs cp.async-pipelined, against a device-to-device copy.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--backend", choices=BACKENDS, default="auto", help="where to run")
    parser.add_argument(
        "--experiment", choices=EXPERIMENTS, default="streams", help="which experiment(s)"
    )
    parser.add_argument(
        "--size",
        type=float,
        default=None,
        metavar="MIB",
        help="data size in MiB (default: 256 on CuPy, 64 on CPU)",
    )
    parser.add_argument(
        "--chunks",
        type=whole(1, MAX_CHUNKS),
        default=None,
        metavar="K",
        help="chunks the data is cut into (default: 16)",
    )
    parser.add_argument(
        "--streams",
        type=whole(1, MAX_STREAMS),
        default=None,
        metavar="N",
        help="chunks in flight: CUDA streams or CPU staging buffers (default: 3)",
    )
    parser.add_argument(
        "--intensity",
        default="auto",
        metavar="N|auto",
        help="multiply-adds per element; auto calibrates compute ≈ copy",
    )
    parser.add_argument(
        "--repeats",
        type=whole(1, MAX_REPEATS),
        default=None,
        metavar="R",
        help="timed runs; the median is reported (default: 5)",
    )
    parser.add_argument(
        "--warmup",
        type=whole(0, MAX_REPEATS),
        default=None,
        metavar="W",
        help="untimed warm-up runs first (default: 1)",
    )
    parser.add_argument(
        "--intensities",
        default=None,
        metavar="LIST",
        help="experiment 2's sweep, comma-separated (default 0,8,16,32,64,128,512)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT_S,
        metavar="SECONDS",
        help="refuse experiment 1 when a short calibration estimates it longer than this "
        f"(default {time_text(DEFAULT_TIME_LIMIT_S)})",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="a table with text Gantts, or JSON for scripts",
    )
    parser.add_argument(
        "--width",
        type=columns,
        default=None,
        metavar="COLUMNS",
        help="width of the text Gantts (default: the terminal's)",
    )


def run(args: argparse.Namespace) -> int:
    # Every flag is checked before the backend loads or any experiment runs: a bad value
    # must not cost a calibration (or a run of experiment 1) before its one line.
    size = _size_bytes(args.size)
    intensity = _intensity(args.intensity)
    time_limit = _time_limit(args.time_limit)
    intensities = _intensities(args.intensities, args.experiment)
    backend, detection = resolve_backend(args.backend)
    if args.experiment != "streams" and backend != "cupy":
        why = detection.reason or "--backend cpu was given"
        raise PipeLabError(f"experiment 2 (tiles) needs the cupy backend: {why}")
    stream_params = None
    if args.experiment in ("streams", "both"):
        stream_params = default_params(
            backend,
            size_bytes=size,
            chunks=args.chunks,
            streams=args.streams,
            intensity=intensity,
            repeats=args.repeats,
            warmup=args.warmup,
            time_limit_s=time_limit,
        )
    tile_params = None
    if args.experiment in ("tiles", "both"):
        changes: dict[str, Any] = {
            "size_bytes": size,
            "intensities": intensities,
            "repeats": args.repeats,
            "warmup": args.warmup,
        }
        tile_params = TileParams(**{k: v for k, v in changes.items() if v is not None})
    results: dict[str, Any] = {}
    if stream_params is not None:
        try:
            results["streams"] = _with_progress(pipeline_experiment(backend, stream_params))
        except RunTooLong as error:
            raise PipeLabError(f"{error}, or raise --time-limit") from None
    if tile_params is not None:
        results["tiles"] = _with_progress(run_tiles(tile_params))
    if args.format == "json":
        text = json.dumps(_as_json(results, detection), indent=1)
    else:
        width = args.width or shutil.get_terminal_size((100, 24)).columns
        text = _as_table(results, detection, width)
    emit(text, None)
    return 0


def _with_progress(experiment: Any) -> Any:
    """Run an experiment generator to its result, with progress on a terminal's stderr."""
    with Progress() as progress:
        return run_to_end(
            experiment, lambda report: progress.update(report.message, report.fraction)
        )


def _time_limit(seconds: float) -> float:
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise PipeLabError(
            f"--time-limit must be a number of seconds above 0, not {value_text(seconds)}"
        )
    return seconds


def _size_bytes(mib: float | None) -> int | None:
    if mib is None:
        return None
    if not mib > 0 or mib > 1 << 20:
        raise PipeLabError(
            f"--size must be more than 0 and at most 1,048,576 MiB, not {value_text(mib)}"
        )
    return int(mib * MIB)


def _intensity(text: str) -> int | None:
    """``--intensity``: auto, or a whole number by the files' rule (3.0 is 3)."""
    if text == "auto":
        return None
    try:
        return whole_number_text(text, "", 0, MAX_INTENSITY)
    except PipeLabError:
        raise PipeLabError(
            f"--intensity must be a whole number from 0 to {MAX_INTENSITY:,} or auto, "
            f"not {shown(text)}"
        ) from None


def _intensities(text: str | None, experiment: str) -> tuple[int, ...] | None:
    """``--intensities``: experiment 2's sweep, every item a whole number by the files'
    rule (no empty items); refused when only experiment 1 runs, where it is ignored."""
    if text is None:
        return None
    try:
        values = tuple(
            whole_number_text(item, "", 0, MAX_INTENSITY) for item in text.split(",")
        )  # "1,,2": the empty item is no number
    except PipeLabError:
        raise PipeLabError(
            f"--intensities must be whole numbers from 0 to {MAX_INTENSITY:,} separated by "
            f"commas, not {shown(text)}"
        ) from None
    if experiment == "streams":
        raise PipeLabError(
            "--intensities is experiment 2's sweep (tiles): add --experiment tiles or both, "
            "or leave it out (experiment 1 takes --intensity)"
        )
    return values


def _as_table(results: dict[str, Any], detection: Detection, width: int) -> str:
    blocks: list[str] = []
    if detection.backend != "cupy" and detection.reason:
        blocks.append(f"note         CuPy not used: {printable(detection.reason)}")
    streams: PipelineResult | None = results.get("streams")
    if streams is not None:
        lines = ["Experiment 1: copy-in → compute → copy-out, sequential vs pipelined"]
        lines += [f"  {label:<24}{printable(value)}" for label, value in pipeline_rows(streams)]
        lines += [f"  note: {printable(note)}" for note in streams.notes]
        blocks.append("\n".join(lines))
        for schedule in (streams.sequential, streams.pipelined, streams.predicted):
            blocks.append(f"{printable(schedule.label)}\n{text_gantt(schedule, width)}")
    tiles: TileResult | None = results.get("tiles")
    if tiles is not None:
        lines = ["Experiment 2: tiles global → shared → compute → global"]
        lines += [f"  {label:<24}{printable(value)}" for label, value in tile_rows(tiles)]
        lines += [f"  note: {printable(note)}" for note in tiles.notes]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _as_json(results: dict[str, Any], detection: Detection) -> dict[str, Any]:
    data: dict[str, Any] = {"backend_reason": detection.reason}
    streams: PipelineResult | None = results.get("streams")
    if streams is not None:
        data["streams"] = streams.figures() | {
            "sequential": schedule_to_dict(streams.sequential),
            "pipelined": schedule_to_dict(streams.pipelined, baseline=streams.sequential),
            "predicted": schedule_to_dict(streams.predicted, baseline=streams.sequential),
        }
    tiles: TileResult | None = results.get("tiles")
    if tiles is not None:
        data["tiles"] = tiles.figures()
    return data
