"""Make what the README shows from the code itself, so it cannot go stale: the output of
every console example (a ``$ uv run main.py …`` line that writes no file, in a ```console
block) and docs/screenshot.png (the app on the book example at t = 2.5 s, sequential above
pipelined, with the wait hatching and its legend, drawn offscreen).

    uv run docs/generate.py            # rewrite README.md's examples and the screenshot
    uv run docs/generate.py --check    # write nothing; exit 1 naming what is stale
    uv run docs/generate.py --readme   # only the README (no Qt needed)

tests/test_readme.py runs the check of the README's examples.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SCREENSHOT = ROOT / "docs" / "screenshot.png"
#: The window's size in the screenshot (logical px), and the moment it shows.
SCREENSHOT_SIZE = (1600, 1100)
SCREENSHOT_TIME = 2.5
#: A screenshot differing in more than this share of its pixels is stale (fonts and
#: anti-aliasing may differ a little from one machine to another).
PIXEL_SLACK = 0.01

_BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PROMPT = "$ "
_COMMAND = "uv run main.py "


@dataclass(frozen=True)
class Example:
    """One ``$`` line of a console block and the output the README shows under it."""

    command: str
    shown: str
    gap: str = ""  # the blank line that separates it from the next example, if any

    @property
    def generated(self) -> bool:
        """Whether its output is made here: PipeLab's own command, writing no file."""
        return self.command.startswith(_COMMAND) and "--out" not in self.command


def examples(block: str) -> list[Example]:
    """The commands of a console block with their shown output (the blank line that
    separates one example from the next is not part of the output)."""
    found: list[Example] = []
    lines = block.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(_PROMPT)]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        output, gap = "".join(lines[start + 1 : end]), ""
        if n + 1 < len(starts) and (output == "\n" or output.endswith("\n\n")):
            output, gap = output[:-1], "\n"
        found.append(Example(lines[start][len(_PROMPT) :].rstrip("\n"), output, gap))
    return found


def readme_examples(text: str) -> list[Example]:
    """Every example in the README's console blocks, in order."""
    return [example for match in _BLOCK.finditer(text) for example in examples(match.group(1))]


def command_line(command: str) -> str:
    """``command`` as a shell runs it here: this interpreter for ``uv run`` and ``python``
    (so the check needs no uv and runs the checkout's code)."""
    python = shlex.quote(sys.executable)
    line = python + " main.py " + command.removeprefix(_COMMAND)
    return re.sub(r"\|\s*python(3)?\s", f"| {python} ", line)


def environment(home: str) -> dict[str, str]:
    """A user's terminal as the README shows it: UTF-8, no settings of their own, no
    display needed, no colour or progress (standard output is a pipe)."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELAB_", "PYTHON"))}
    return {
        **keep,
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "QT_QPA_PLATFORM": "offscreen",
    }


def run_example(command: str) -> str:
    """What ``command`` prints, standard output and error together, as on a terminal."""
    with tempfile.TemporaryDirectory() as home:
        result = subprocess.run(
            ["bash", "-c", command_line(command)],
            cwd=ROOT,
            env=environment(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            timeout=300,
        )
    return result.stdout


def regenerate_readme(text: str) -> str:
    """``text`` with every generated example's output replaced by what it prints now."""

    def block(match: re.Match[str]) -> str:
        body = match.group(1)
        parts: list[str] = []
        for example in examples(body):
            output = run_example(example.command) if example.generated else example.shown
            parts.append(f"{_PROMPT}{example.command}\n{output}{example.gap}")
        if not parts:
            return match.group(0)
        return "```console\n" + "".join(parts) + "```"

    return _BLOCK.sub(block, text)


def render_screenshot(path: Path) -> None:
    """The app's window offscreen, on the book example at `SCREENSHOT_TIME`, both runs
    shown, light theme, with settings of its own (nothing of the user's)."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as home:
        from PySide6.QtCore import QSettings

        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, home)
        from gui.app import make_app, make_window

        app = make_app()
        window = make_window(preset="book")
        window.model.set_view_mode("both", wait=True)
        window.resize(*SCREENSHOT_SIZE)
        window.show()
        for _ in range(50):
            app.processEvents()
        window.clock.seek(SCREENSHOT_TIME)
        for _ in range(20):
            app.processEvents()
        image = window.grab().toImage()
        window.close()
        app.processEvents()
    if not image.save(str(path), "PNG"):
        raise SystemExit(f"could not write {path}")


def screenshot_differs(old: Path, new: Path) -> bool:
    """Whether ``new`` differs from ``old`` in size or in more than `PIXEL_SLACK` of its
    pixels."""
    from PIL import Image, ImageChops

    if not old.exists():
        return True
    with Image.open(old) as a, Image.open(new) as b:
        if a.size != b.size:
            return True
        diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
        changed = sum(diff.point(lambda v: 255 if v > 16 else 0).histogram()[255:])
        return changed > PIXEL_SLACK * a.width * a.height


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--readme", action="store_true", help="only the README's examples")
    args = parser.parse_args(argv)
    stale: list[str] = []
    text = README.read_text(encoding="utf-8")
    fresh = regenerate_readme(text)
    if fresh != text:
        stale.append("README.md (console examples)")
        if not args.check:
            README.write_text(fresh, encoding="utf-8")
    if not args.readme:
        with tempfile.TemporaryDirectory() as folder:
            new = Path(folder) / "screenshot.png"
            render_screenshot(new)
            if screenshot_differs(SCREENSHOT, new):
                stale.append("docs/screenshot.png")
                if not args.check:
                    SCREENSHOT.write_bytes(new.read_bytes())
    for name in stale:
        print(f"{'stale' if args.check else 'rewrote'}: {name}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
