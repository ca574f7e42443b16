"""Where an atomic write lands: through a symlink to its file, never onto a loop of links
or a chain too long for the OS to follow (the write would replace a link with a file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.base.atomic import MAX_LINKS, resolve_target, write_atomic
from engine.base.errors import PipeLabError


def test_a_link_chain_leads_to_its_file(tmp_path: Path) -> None:
    os.symlink("b.json", tmp_path / "a.json")
    os.symlink("c.json", tmp_path / "b.json")
    assert resolve_target(tmp_path / "a.json") == (tmp_path / "c.json").resolve()
    write_atomic(tmp_path / "a.json", b"{}")
    assert (tmp_path / "a.json").is_symlink() and (tmp_path / "c.json").read_bytes() == b"{}"


@pytest.mark.parametrize("links", [["a.json", "b.json"], ["self.json"]])
def test_a_loop_of_links_is_refused_and_left_alone(tmp_path: Path, links: list[str]) -> None:
    for name, target in zip(links, links[1:] + links[:1], strict=True):
        os.symlink(target, tmp_path / name)
    for write in (resolve_target, lambda path: write_atomic(path, b"{}")):
        with pytest.raises(PipeLabError, match="symbolic links go round in a loop"):
            write(tmp_path / links[0])
    assert all((tmp_path / name).is_symlink() for name in links)


def test_a_chain_longer_than_the_os_follows_is_refused(tmp_path: Path) -> None:
    for n in range(MAX_LINKS + 1):
        os.symlink(f"{n + 1}.json", tmp_path / f"{n}.json")
    with pytest.raises(PipeLabError, match=f"more than {MAX_LINKS} symbolic links in a row"):
        write_atomic(tmp_path / "0.json", b"{}")
    assert (tmp_path / "0.json").is_symlink() and not (tmp_path / f"{MAX_LINKS + 1}.json").exists()
    os.symlink("end.json", tmp_path / f"{MAX_LINKS + 1}.json")
    assert resolve_target(tmp_path / "2.json").name == "end.json"  # 40 links: fine


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="needs Linux's /proc")
def test_a_folder_that_takes_no_new_files_is_named_as_the_reason() -> None:
    """/proc/version exists; /proc takes no temporary file beside it, and says so with
    "No such file or directory", which read as if the file were missing."""
    with pytest.raises(PipeLabError) as refused:
        write_atomic("/proc/version", b"x")
    message = str(refused.value)
    assert message.startswith("/proc/version: cannot create a file in /proc: ")
    assert "No such file" not in message and "takes no new files" in message
