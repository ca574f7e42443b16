"""Ctrl-C at random moments of real commands: how each trial ended, and how long after the
signal the process was gone.

    uv run python bench/interrupt.py                 # 30 trials of each command
    uv run python bench/interrupt.py 10 gif webp     # 10 trials of the GIF and the WebP

Each command runs once uninterrupted (its span, and the file it writes); then each trial
puts an old file in place, starts the command and sends SIGINT at a moment drawn from the
whole span. An outcome names the exit status, "finished" when the process had ended before
the signal, IGNORED when it ran to the end regardless, BROKEN when stderr shows a traceback
or a crash, the file left (old, new, DAMAGED) and LEFTOVER when another file remains.
"""

from __future__ import annotations

import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLD = b"the old content\n"
BROKEN = ("Fatal Python error", "Traceback", "Segmentation", "QPaintDevice", "core dumped")
COMMANDS = {
    "png": (["export", "--preset", "book", "--width", "400"], "x.png"),
    "svg": (["export", "--preset", "book"], "x.svg"),
    "pdf": (["export", "--preset", "book", "--assembly"], "x.pdf"),
    "gif": (["export", "--preset", "book", "--width", "400", "--assembly"], "x.gif"),
    "webp": (["export", "--preset", "book", "--width", "400"], "x.webp"),
    "json": (["export", "--ops", "200000"], "x.json"),
    "simulate": (["simulate", "--ops", "1000000", "--format", "json"], "x.json"),
    "warps": (["warps", "--warps", "64", "--cycles", "3000000", "--format", "json"], "x.json"),
    "bench": (["bench", "--backend", "cpu"], None),
}


def start(argv: list[str], out: Path | None) -> subprocess.Popen[bytes]:
    extra = ["--out", str(out)] if out else []
    return subprocess.Popen(
        [sys.executable, "main.py", *argv, *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def outcome(process: subprocess.Popen[bytes], running: bool, err: str) -> list[str]:
    words = [f"status {process.returncode}"]
    if not running:
        words.append("finished")
    elif process.returncode == 0:
        words.append("IGNORED")
    if any(word in err for word in BROKEN) or process.returncode == -signal.SIGSEGV:
        words.append("BROKEN")
    return words


def trials(name: str, count: int, rng: random.Random) -> None:
    argv, out_name = COMMANDS[name]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / out_name if out_name else None
        began = time.monotonic()
        process = start(argv, out)
        _, err = process.communicate()
        span = time.monotonic() - began
        if process.returncode != 0:
            raise SystemExit(f"{name}: {err.decode(errors='replace')}")
        new = out.read_bytes() if out else b""
        counts: dict[str, int] = {}
        ended_after: list[float] = []
        for _ in range(count):
            if out:
                out.write_bytes(OLD)
            delay = rng.uniform(0.0, span * 1.05)
            process = start(argv, out)
            time.sleep(delay)
            running = process.poll() is None
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, raw = process.communicate()
            ended_after.append(time.monotonic() - sent)
            err = raw.decode("utf-8", "replace")
            words = outcome(process, running, err)
            if out:
                data = out.read_bytes()
                # A PDF holds its creation time: the same length and an end is complete.
                same = data == new or (name == "pdf" and len(data) == len(new))
                words.append("old" if data == OLD else "new" if same else "DAMAGED")
                if any(p != out for p in Path(folder).iterdir()):
                    words.append("LEFTOVER")
            for extra in Path(folder).iterdir():
                if extra != out:
                    extra.unlink()
            key = ", ".join(words)
            counts[key] = counts.get(key, 0) + 1
            if "BROKEN" in key:
                last = err.strip().splitlines()[-1:] or [""]
                print(f"  at {delay:.2f} s: {key}: {last[0][:100]}", flush=True)
        print(
            f"{name}: span {span:.2f} s, {count} trials; ended after the signal: median "
            f"{statistics.median(ended_after):.2f} s, max {max(ended_after):.2f} s",
            flush=True,
        )
        for key, number in sorted(counts.items(), key=lambda item: -item[1]):
            print(f"  {number:3d}  {key}", flush=True)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    names = sys.argv[2:] or list(COMMANDS)
    rng = random.Random(29)
    for name in names:
        trials(name, count, rng)


if __name__ == "__main__":
    main()
