"""Output paths, through the real entry point: every command that writes (`--out` of
simulate, warps, export) refuses a path that names no file in one line before any work,
writes long names and symlinks correctly, and a signal mid-write leaves no trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli.paths import check_output_path
from engine.base.atomic import name_max, temp_prefix, write_atomic
from engine.base.errors import PipeLabError
from main import main

ROOT = Path(__file__).resolve().parents[2]

#: One command per writer, with the flags that make it cheap.
WRITERS = {
    "simulate": ["simulate", "--format", "json"],
    "warps": ["warps", "--format", "json"],
    "export": ["export"],
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2 and out == "", err
    assert err.startswith("pipelab: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("command", list(WRITERS))
@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("", ["empty"]),
        ("   ", ["empty"]),
        ("{tmp}/newdir/", ["ends with a slash", "folder"]),
        ("{tmp}", ["is a folder"]),
        ("{tmp}/.", ["folder"]),
        ("{tmp}/missing/x.json", ["does not exist"]),
        ("{tmp}/plain.txt/x.json", ["not a folder"]),
        ("{tmp}/" + "n" * 300 + ".json", ["file name is", "bytes"]),
    ],
)
def test_paths_that_name_no_file_get_one_line(
    capsys, tmp_path: Path, command: str, out: str, words: list[str]
) -> None:
    (tmp_path / "plain.txt").write_text("a file, not a folder")
    before = sorted(p.name for p in tmp_path.iterdir())
    target = out.replace("{tmp}", str(tmp_path))
    code, stdout, err = _run(capsys, *WRITERS[command], "--out", target)
    _one_line_error(code, stdout, err, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not (tmp_path / "newdir").exists()


@pytest.mark.parametrize("command", list(WRITERS))
@pytest.mark.parametrize(
    ("links", "words"),
    [
        ({"a.json": "b.json", "b.json": "a.json"}, "go round in a loop"),
        ({"a.json": "a.json"}, "go round in a loop"),
        ({f"{n}.json" if n else "a.json": f"{n + 1}.json" for n in range(45)}, "more than 40"),
    ],
)
def test_links_that_lead_to_no_file_are_refused_and_kept(
    capsys, tmp_path: Path, command: str, links: dict[str, str], words: str
) -> None:
    """`--out a.json` with a.json → b.json → a.json replaced the link with a file."""
    for name, target in links.items():
        os.symlink(target, tmp_path / name)
    code, stdout, err = _run(capsys, *WRITERS[command], "--out", str(tmp_path / "a.json"))
    _one_line_error(code, stdout, err, words)
    assert all((tmp_path / name).is_symlink() for name in links)
    assert not [p for p in tmp_path.iterdir() if not p.is_symlink()]


@pytest.mark.parametrize("flag", ["--preset", "--scenario"])
@pytest.mark.parametrize("command", [["simulate"], ["export", "--out", "x.json"], []])
def test_empty_names_are_refused(capsys, command: list[str], flag: str) -> None:
    """`--preset ''` once meant the book example, silently (and the app opened on it)."""
    code, out, err = _run(capsys, *command, flag, "")
    _one_line_error(code, out, err, "must not be empty")


def test_a_preset_name_is_a_preset_not_a_path(capsys) -> None:
    code, out, err = _run(capsys, "simulate", "--preset", "../presets/book")
    _one_line_error(code, out, err, "unknown preset")
    code, out, err = _run(capsys, "simulate", "--preset", "boook")
    _one_line_error(code, out, err, "did you mean 'book'?")


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_name_at_the_file_systems_limit_is_written(capsys, tmp_path: Path, command) -> None:
    """The temporary file's name must fit too (it once added 14 bytes and failed)."""
    limit = name_max(tmp_path)
    name = "n" * (limit - len(".json")) + ".json"
    code, out, err = _run(capsys, *WRITERS[command], "--out", str(tmp_path / name))
    assert (code, out, err) == (0, "", "")
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert json.loads((tmp_path / name).read_text())


def test_temporary_names_fit_any_limit() -> None:
    for length in (1, 100, 240, 250, 255):
        name = "x" * length
        prefix = temp_prefix(name, 255)
        assert len(prefix.encode()) + len("12345678.part") <= 255
        assert prefix == f".{name}." or prefix == ".pipelab."


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_symlink_is_written_through(capsys, tmp_path: Path, command: str) -> None:
    real = tmp_path / "data" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, out, err = _run(capsys, *WRITERS[command], "--out", str(link))
    assert (code, out, err) == (0, "", "")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert json.loads(real.read_text())
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.json"]


def test_a_dangling_symlink_creates_its_target(capsys, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    code, _, err = _run(capsys, "simulate", "--format", "json", "--out", str(link))
    assert (code, err) == (0, "")
    assert link.is_symlink() and json.loads((tmp_path / "new.json").read_text())


def test_a_symlink_into_a_missing_folder_is_one_line(capsys, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "gone" / "x.json")
    code, out, err = _run(capsys, "simulate", "--format", "json", "--out", str(link))
    _one_line_error(code, out, err, "does not exist")
    assert link.is_symlink()


def test_a_device_is_written_directly(capsys) -> None:
    """/dev/null is a sink, not a file to replace (replacing it as root would be a disaster)."""
    code, out, err = _run(capsys, "simulate", "--format", "json", "--out", os.devnull)
    assert (code, out, err) == (0, "", "")
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()


def test_an_existing_files_permissions_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o600)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o600


def test_a_failed_rename_removes_the_temporary_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")

    def refuse(source: str, destination: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PipeLabError, match="cannot write: Permission denied"):
        write_atomic(target, b"new")
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    assert target.read_text() == "old"


def test_check_output_path_is_the_one_policy(tmp_path: Path) -> None:
    """The function other commands call (export's rewrite among them)."""
    assert check_output_path(str(tmp_path / "a.png"), (".png",)) == tmp_path / "a.png"
    with pytest.raises(PipeLabError, match=r"unknown export format '\.bmp'"):
        check_output_path(str(tmp_path / "a.bmp"), (".png", ".svg"))
    with pytest.raises(PipeLabError, match="NUL"):
        check_output_path("a\0b.json")


# -- a signal in the middle of a write: real processes -----------------------------------

#: Runs `main` on a JSON run whose writer blocks after its first chunk until the test
#: sends a signal: "started" on stdout means the temporary file exists and has data.
BLOCKED_WRITE = textwrap.dedent(
    """
    import sys, threading
    sys.path.insert(0, {root!r})
    import engine.analysis.writers
    from main import main

    original = engine.analysis.writers._task_chunks

    def chunks(*args, **kwargs):
        for number, chunk in enumerate(original(*args, **kwargs)):
            yield chunk
            if number == 0:
                print("started", flush=True)
                threading.Event().wait()  # until the signal arrives

    engine.analysis.writers._task_chunks = chunks
    sys.exit(main(["simulate", "--ops", "100000", "--format", "json", "--out", {out!r}]))
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_mid_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, signum) -> None:
    target = tmp_path / "out.json"
    target.write_text("the old content")
    script = BLOCKED_WRITE.format(root=str(ROOT), out=str(target))
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "started\n"
        assert any(p.name.endswith(".part") for p in tmp_path.iterdir()), "mid-write"
        process.send_signal(signum)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in err
    expected = 130 if signum == signal.SIGINT else -signum  # Ctrl-C: main returns 130
    assert process.returncode == expected, err
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    assert target.read_text() == "the old content"
