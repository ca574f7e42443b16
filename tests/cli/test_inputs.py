"""Inputs an audit found mishandled, through `main(argv)` in-process: a scenario file with
a byte-order mark, a preset name in the wrong case, values quoted as given in messages, a
run whose output alone is too big, and --out to a pipe or /dev/stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.model.scenario import PRESETS_DIR
from main import main

ROOT = Path(__file__).resolve().parents[2]
BOM = b"\xef\xbb\xbf"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(code: int, out: str, err: str, expected: str) -> None:
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and expected in err, err


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("preset", sorted(p.stem for p in PRESETS_DIR.glob("*.toml")))
def test_a_file_with_a_byte_order_mark_is_read(capsys, tmp_path, preset, newline) -> None:
    """Notepad's UTF-8 starts with a BOM: "not valid TOML … line 1, column 1" once."""
    text = (PRESETS_DIR / f"{preset}.toml").read_text(encoding="utf-8")
    path = tmp_path / "notepad.toml"
    path.write_bytes(BOM + text.replace("\n", newline).encode("utf-8"))
    if preset == "many-ops":  # 10^5 ops: its JSON is big; the table is enough here
        code, out, err = _run(capsys, "simulate", "--scenario", str(path), "--width", "40")
        assert (code, err) == (0, "") and "makespan" in out
        return
    code, out, err = _run(capsys, "simulate", "--scenario", str(path), "--format", "json")
    assert (code, err) == (0, ""), err
    expected = _run(capsys, "simulate", "--preset", preset, "--format", "json")[1]
    assert json.loads(out)["makespan"] == json.loads(expected)["makespan"]


def test_a_byte_order_mark_keeps_line_numbers(capsys, tmp_path) -> None:
    path = tmp_path / "typo.toml"
    path.write_bytes(BOM + b'name = "x"\nbufers = 2\n[defaults]\ncount = 3\n')
    _one_line(*_run(capsys, "simulate", "--scenario", str(path)), "line 2: unknown key 'bufers'")


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("BOOK", "book"), ("Book", "book"), ("UNEVEN-OPS", "uneven-ops"), ("Many_Ops", "many-ops"),
     ("book.toml", "book"), ("BOOOK", "book")],
)  # fmt: skip
def test_a_preset_in_another_case_gets_a_suggestion(capsys, name: str, suggestion: str) -> None:
    _one_line(*_run(capsys, "simulate", "--preset", name), f"did you mean {suggestion!r}?")


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("buffers = 1e300\n", "buffers must be between 0 and 10,000,000, not 1e300"),
        ("buffers = 10000000.5\n", "buffers must be a whole number, not 10000000.5"),
        ("[defaults]\ncount = 1e12\n", "count must be between 1 and 10,000,000, not 1e12"),
        ("[defaults]\ncount = " + "9" * 40 + "\n", "not a 40-digit number"),
        ("[defaults]\nread = 1e9000000001\n", "read duration must be a finite number"),
        ("[defaults]\nread = 1.0000000001e9\n", "not 1000000000.1"),
        ("[[ops]]\nread = 1\ncompute = -1e-7\nwrite = 1\n", "must be 0 or more, not -1e-7"),
    ],
)
def test_file_values_are_quoted_as_given(capsys, tmp_path, toml: str, expected: str) -> None:
    path = tmp_path / "big.toml"
    path.write_text(toml)
    _one_line(*_run(capsys, "simulate", "--scenario", str(path)), expected)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["simulate", "--read", "1.0000000001e9"], "not 1000000000.1"),
        (["simulate", "--read", "3e9"], "not 3e9"),
        (["simulate", "--compute", "1e-320"], "not 1e-320"),
        (["simulate", "--write", "0.00000099999"], "not 9.9999e-7"),
    ],
)
def test_flag_values_are_quoted_as_given(capsys, argv: list[str], expected: str) -> None:
    _one_line(*_run(capsys, *argv), expected)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        # Was accepted: estimated 72 s, it took 4 min and wrote 5.6 GB.
        (["simulate", "--ops", "10000000", "--format", "trace", "--out", "t.json"],
         ["writing 5.6 GB", "4 GB written", "at most about", "--format table"]),
        (["simulate", "--ops", "10000000", "--format", "json"], ["writing 4.8 GB"]),
        (["export", "--ops", "5000000", "--out", "t.json"], ["writing 5.6 GB", "one policy"]),
    ],
)  # fmt: skip
def test_runs_whose_output_is_too_big_are_refused(capsys, tmp_path, argv, words) -> None:
    argv = [str(tmp_path / a) if a == "t.json" else a for a in argv]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    for word in words:
        assert word in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_estimate_counts_the_bytes_written() -> None:
    from cli.limits import OUTPUT_LIMIT, WRITE_BYTES_PER_S, estimate_simulation
    from engine.model.scenario import load_preset

    scenario = load_preset("book").with_changes(ops=1_000_000)
    table = estimate_simulation(scenario, 1, "table")
    trace = estimate_simulation(scenario, 1, "trace")
    assert table.output_bytes == 0 and 5e8 < trace.output_bytes < OUTPUT_LIMIT
    assert trace.seconds - table.seconds > trace.output_bytes / WRITE_BYTES_PER_S


def test_out_to_a_fifo_is_written_directly(capsys, tmp_path) -> None:
    """A FIFO cannot be replaced atomically: it is written as it is, whole."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    code, out, err = _run(capsys, "simulate", "--format", "json", "--out", str(fifo))
    reader.join()
    assert (code, out, err) == (0, "", "")
    assert json.loads(got[0])["makespan"] == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.json"]  # no temporary file


@pytest.mark.parametrize(
    "command", [["simulate", "--format", "json"], ["warps", "--format", "json"]]
)
def test_out_to_dev_stdout_into_a_pipe(command: list[str]) -> None:
    """`--out /dev/stdout | jq` was refused ("cannot write here: No such file")."""
    if not Path("/dev/stdout").exists():
        pytest.skip("no /dev/stdout on this system")
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *command, "--out", "/dev/stdout"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "utilization" in json.loads(result.stdout)
