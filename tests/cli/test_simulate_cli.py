"""`simulate` and bad input through the real command line, in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pipelab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100", "PYTHONPATH": str(ROOT)},
    )


def test_book_both_prints_the_lesson() -> None:
    result = pipelab("simulate", "--preset", "book", "--policy", "both")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "sequential (buffer slots: 1)" in out and "pipelined (buffer slots: unlimited)" in out
    assert "makespan     9 s" in out and "makespan     5 s" in out
    assert "speedup      1.8× (sequential 9 s → pipelined 5 s)" in out
    assert "formula      5 s = 3 s for the first op + 2 × 1 s ✓ agrees" in out
    assert "formula      9 s = 3 × 3 s ✓ agrees" in out
    assert (
        "bottleneck   none: read = compute = write: each allows one op every 1 s (balanced)" in out
    )
    assert "idle         load unit     3–5 s done" in out
    gantt = [line for line in out.splitlines() if line.startswith("load unit")]
    assert "[" in gantt[1] and "1" in gantt[1] and "2" in gantt[1] and "3" in gantt[1]
    assert all(len(line) <= 100 for line in out.splitlines())


def test_two_slots_name_what_binds_and_why_units_wait() -> None:
    result = pipelab("simulate", "--preset", "book", "--buffers", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("makespan     6 s")
    assert lines[start + 2 :] == [
        "bottleneck   buffer slots: each op holds one for 3 s and there are 2: one op every 1.5 s",
        "formula      6 s = 2 rounds × 3 s ✓ agrees",
        "idle         load unit     2–3 s slot (ops 1 and 2) · 4–6 s done",
        "             compute unit  0–1 s input (op 1) · 3–4 s input (op 3) · 5–6 s done",
        "             store unit    0–2 s input (op 1) · 4–5 s input (op 3)",
    ]


def test_json_both_and_overrides() -> None:
    result = pipelab(
        "simulate",
        "--ops",
        "4",
        "--read",
        "2",
        "--buffers",
        "2",
        "--policy",
        "both",
        "--format",
        "json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["sequential"]["makespan"] == 16
    for run in (data["sequential"], data["pipelined"]):
        assert set(run["bottleneck"]) == {"resource", "period", "why"}
        assert all(
            set(span) == {"unit", "worker", "start", "end", "reason", "ops"} for span in run["idle"]
        )
    assert data["sequential"]["bottleneck"]["resource"] == "slots"
    assert data["pipelined"]["buffers"] == 2 and data["pipelined"]["ops"] == 4
    assert data["speedup"] == pytest.approx(16 / data["pipelined"]["makespan"], rel=1e-9)


def test_trace_to_file(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = pipelab(
        "simulate", "--preset", "two-load-units", "--format", "trace", "--out", str(out)
    )
    assert result.returncode == 0 and result.stdout == ""
    events = json.loads(out.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 24


def test_scenario_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('name = "Mine"\n[defaults]\ncount = 2\nread = 0.5\n')
    result = pipelab("simulate", "--scenario", str(path), "--format", "json")
    assert json.loads(result.stdout)["makespan"] == 3.5  # (0.5 + 1 + 1) + 1 · max


def test_help_explains_every_flag_with_defaults() -> None:
    result = pipelab("simulate", "--help")
    assert result.returncode == 0
    for flag in (
        "--preset",
        "--scenario",
        "--ops",
        "--read",
        "--compute",
        "--write",
        "--buffers",
        "--load-workers",
        "--compute-workers",
        "--store-workers",
        "--policy",
        "--format",
        "--out",
    ):
        assert flag in result.stdout
    assert "default" in result.stdout


BAD = [
    (["simulate", "--read", "-1"], "read"),
    (["simulate", "--read", "nan"], "finite"),
    (["simulate", "--compute", "inf"], "finite"),
    (["simulate", "--write", "fast"], "invalid float value: 'fast'"),
    (["simulate", "--ops", "0"], "argument --ops: must be between 1 and 10,000,000, not 0"),
    (["simulate", "--ops", "10000001"], "between 1 and 10,000,000"),
    (["simulate", "--load-workers", "0"], "--load-workers: must be between 1 and 1,024, not 0"),
    (["simulate", "--buffers", "-2"], "buffers"),
    (["simulate", "--preset", "nope"], "unknown preset 'nope'"),
    (["simulate", "--scenario", "/nonexistent/x.toml"], "no such scenario file"),
    (["simulate", "--policy", "eager"], "invalid choice: 'eager'"),
    (["simulate", "--format", "xml"], "invalid choice"),
    (["simulate", "--preset", "book", "--scenario", "x.toml"], "not allowed with"),
    (["simulate", "--out", "/nonexistent-dir/out.json"], "does not exist"),
    (["simulate", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["simulate", "--width", "0"], "--width: must be between 1 and 10,000, not 0"),
    (["simulate", "--width", "-5"], "--width: must be between 1 and 10,000"),
    (["simulate", "--width", "100000000"], "--width: must be between 1 and 10,000"),
    (["warps", "--width", "-3"], "--width: must be between 1 and 10,000"),
    (["bench", "--width", "wide"], "--width: must be a whole number of columns, not 'wide'"),
]


@pytest.mark.parametrize(("args", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    result = pipelab(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]


def test_bad_scenario_files(tmp_path: Path) -> None:
    cases = {
        "typo.toml": ("[defaults]\ncount = 3\nreed = 1\n", "line 3: unknown key 'reed'"),
        "neg.toml": ("[defaults]\nwrite = -0.5\n", "line 2: write duration must be 0 or more"),
        "zero.toml": ("[defaults]\ncount = 0\n", "count must be between 1"),
        "syntax.toml": ("[defaults\n", "not valid TOML"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        result = pipelab("simulate", "--scenario", name, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert len(result.stderr.splitlines()) == 1 and message in result.stderr, name
    # A path through a file cannot be read, whoever runs the test (root included).
    (tmp_path / "plain").write_text("")
    result = pipelab("simulate", "--scenario", str(tmp_path / "plain" / "x.toml"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "cannot read: Not a directory" in result.stderr


def test_failed_write_leaves_no_partial_file(tmp_path: Path) -> None:
    """The target is a folder: refused before anything is written (cli/paths.py), the
    folder untouched and no temporary file left (the rename-fails path is tested in
    tests/cli/test_paths.py)."""
    target = tmp_path / "out.json"
    target.mkdir()
    (target / "keep").write_text("old")
    result = pipelab("simulate", "--format", "json", "--out", str(target))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "is a folder" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert [p.name for p in target.iterdir()] == ["keep"]


def test_out_of_memory_is_one_line_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run too big for memory (10^7 ops as JSON needs tens of GB) is a line, not a
    traceback."""
    import importlib.util

    from cli import simulate

    # The repository's main.py itself (an installed copy of it may sit in site-packages).
    spec = importlib.util.spec_from_file_location("pipelab_main", ROOT / "main.py")
    assert spec is not None and spec.loader is not None
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)

    def exhausted(args: object) -> int:
        raise MemoryError

    monkeypatch.setattr(simulate, "run", exhausted)
    assert main.main(["simulate", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pipelab: out of memory") and captured.err.count("\n") == 1


def test_a_pipeline_shape_preset_simulates_with_its_own_stages_and_units() -> None:
    result = pipelab("simulate", "--preset", "hopper-ping-pong", "--policy", "both")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("Hopper warp-specialized GEMM, ping-pong: 12 ops; load on TMA,")
    assert "sequential (one op at a time)" in out and "pipelined (the shape's pools)" in out
    assert "makespan     26.5 s" in out and "makespan     54 s" in out
    rows = [line.split()[0] for line in out.splitlines() if line[:1] in ("T", "t", "c")]
    assert {"TMA", "tensor", "consumers"} <= set(rows)


def test_a_shape_file_gives_json_with_stage_and_unit_names(tmp_path: Path) -> None:
    shape = tmp_path / "pp.toml"
    shape.write_text(
        "ops = 2\n"
        + "".join(f'[[stages]]\nname = "layers {g}"\nunit = "GPU {g}"\ntime = 1\n' for g in (1, 2))
        + '[units]\n"GPU 1" = 1\n"GPU 2" = 1\n'
    )
    result = pipelab("simulate", "--scenario", str(shape), "--format", "json", "--ops", "4")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["makespan"] == 4 + 2 - 1  # (M + S − 1)·t
    assert data["workers"] == {"GPU 1": 1, "GPU 2": 1}
    assert {(t["stage"], t["unit"]) for t in data["tasks"]} == {
        ("layers 1", "GPU 1"),
        ("layers 2", "GPU 2"),
    }


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--preset", "hopper-cooperative", "--read", "2"), "--read set the book's stages"),
        (("--preset", "hoper-cooperative"), "did you mean 'hopper-cooperative'?"),
    ],
)
def test_a_shape_refuses_the_book_s_flags_in_one_line(args: tuple[str, ...], expected: str) -> None:
    result = pipelab("simulate", *args)
    assert result.returncode == 2
    assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_bad_shape_file_is_one_line_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[stages]]\nname = "a"\nunit = "u"\ntime = 1\n\n[units]\n"v" = 1\n')
    result = pipelab("simulate", "--scenario", str(bad))
    assert result.returncode == 2
    assert result.stderr.strip().endswith("line 3: no unit is named 'u' (there are 'v')")
    assert "Traceback" not in result.stderr
