"""A scenario's name and description come from a file someone sent: the window never grows
with them (a 10,000-character name made it 32,767 px wide; a million took all memory),
they are cut to the space they have, and beyond the files' limits they are refused with
a short message while the open run stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from engine.base.errors import PipeLabError
from engine.base.text import MESSAGE_CHARS
from engine.model.scenario import MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, Scenario
from gui.main_window import MainWindow


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        import os

        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def shown_window(qtbot, scenario: Scenario, pin: bool = True) -> MainWindow:
    win = MainWindow(scenario=scenario)
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    qtbot.waitExposed(win)
    if pin:  # the pinned runs' names show in the form too
        win.pin()
        win.model.edit("buffers", 2, wait=True)
    return win


def test_the_window_does_not_grow_with_a_name(qtbot) -> None:
    short = Scenario.uniform_ops(3, name="short", description="")
    longest = Scenario.uniform_ops(
        3,
        name="N" * MAX_NAME_CHARS,
        description="D" * (MAX_DESCRIPTION_CHARS // 2) + " words" * 100,
    )
    widths = []
    for scenario in (short, longest):
        win = shown_window(qtbot, scenario)
        widths.append(win.minimumSizeHint().width())
        assert (win.width(), win.height()) == (1024, 700)
        assert len(win.windowTitle()) < 100
        win.close()
    assert widths[0] == widths[1] <= 1024


def test_a_long_name_is_cut_in_the_heading_and_whole_in_its_tooltip(qtbot) -> None:
    name = "Name " * (MAX_NAME_CHARS // 5)
    win = shown_window(qtbot, Scenario.uniform_ops(3, name=name, description="about it"), False)
    title = win.heading.title
    assert title.text() == name and title.is_cut()
    assert title.shown_text().endswith("…")
    assert "about it" in title.toolTip() and name.strip() in title.toolTip()


def test_a_file_beyond_the_limits_is_refused_in_a_short_message(
    qtbot, monkeypatch, tmp_path: Path
) -> None:
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: messages.append(text))
    win = shown_window(qtbot, Scenario.uniform_ops(3), pin=False)
    before = (win.size(), win.scenario, resident_bytes())
    path = tmp_path / ("deep" * 300 + ".toml")[:200]
    path.write_text(f'name = "{"N" * 1_000_000}"\n[defaults]\ncount = 3\n')
    assert not win.open_scenario_file(path)
    assert len(messages) == 1 and len(messages[0]) <= MESSAGE_CHARS
    assert "1,000,000 characters long" in messages[0]
    assert (win.size(), win.scenario) == before[:2]
    assert resident_bytes() - before[2] < 200 * 2**20


def test_the_app_refuses_more_ops_than_it_shows_wherever_they_come_from(tmp_path: Path) -> None:
    """One cap: File → Open, an edit and the app's command line (`initial_scenario`)."""
    from gui.app import initial_scenario

    path = tmp_path / "big.toml"
    path.write_text("[defaults]\ncount = 10000000\n")
    with pytest.raises(PipeLabError, match="the app shows at most 1,000,000 ops, not 10,000,000"):
        initial_scenario(str(path), None)


def test_a_message_is_one_short_line_whatever_it_quotes() -> None:
    from gui.errors import one_line

    text = one_line(PipeLabError("a\nb.toml: no such scenario file \x1b[2J" + "x" * 10_000))
    assert "\n" not in text and "\x1b" not in text
    assert text.startswith("a\\nb.toml: no such scenario file \\x1b[2J")
    assert len(text) <= MESSAGE_CHARS and "characters in all) … " in text


def test_the_app_refuses_a_file_listing_too_many_ops_before_parsing_it(tmp_path: Path) -> None:
    from gui.scenario_edits import GUI_MAX_OPS, load_for_app

    path = tmp_path / "many.toml"
    path.write_text("[[ops]]\nread = 1\n" * (GUI_MAX_OPS + 1))
    with pytest.raises(PipeLabError, match=r"1,000,001 \[\[ops\]\] tables: at most 1,000,000"):
        load_for_app(path)
