"""Escapes under each preset: `..`, absolute paths, symlinks, additional directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reasonix_acp.tools.workspace import Workspace, in_scope, needs_permission, scope_of


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    (tmp_path / "ws" / "src").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "extra").mkdir()
    os.symlink(tmp_path / "other", tmp_path / "ws" / "link-out")
    os.symlink(tmp_path / "ws" / "src", tmp_path / "ws" / "link-in")
    return Workspace(str(tmp_path / "ws"), [str(tmp_path / "extra")], temp=str(tmp_path / "tmpdir"))


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("src/a.py", True),
        ("./src/../src/a.py", True),
        ("../other/a.py", False),
        ("src/../../other/a.py", False),
        ("link-out/a.py", False),  # a symlink that leaves is judged by where it lands
        ("link-in/a.py", True),
        ("/etc/passwd", False),
        ("../extra/notes.md", True),  # an additional directory
        ("../ws-sibling/a", False),  # a prefix of the cwd's name is not inside it
    ],
)
def test_resolution(ws: Workspace, path: str, inside: bool) -> None:
    assert ws.inside(ws.resolve(path)) is inside


def test_temp_dir_counts_as_inside(ws: Workspace) -> None:
    assert ws.inside(ws.resolve(os.path.join(ws.temp, "out.log")))


@pytest.mark.parametrize(
    ("preset", "access", "inside", "asks"),
    [
        ("read-only", "read", True, False),
        ("read-only", "write", True, True),
        ("read-only", "read", False, True),
        ("workspace-write", "write", True, False),
        ("workspace-write", "read", False, True),
        ("workspace-write", "write", False, True),
        ("danger-full-access", "write", False, False),
    ],
)
def test_presets(preset: str, access: str, inside: bool, asks: bool) -> None:
    assert needs_permission(preset, access, inside) is asks


def test_always_answers_cover_the_directory_and_below(ws: Workspace) -> None:
    scope = scope_of(ws.resolve("src/a.py"))
    assert in_scope(ws.resolve("src/deep/b.py"), scope)
    assert not in_scope(ws.resolve("other.py"), scope)


def test_display_is_relative_inside_and_absolute_outside(ws: Workspace) -> None:
    assert ws.display(ws.resolve("src/a.py")) == "src/a.py"
    assert ws.display(ws.resolve("/etc/passwd")) == "/etc/passwd"


def test_keep_replaces_a_fifo_or_link_a_command_left_in_its_place(tmp_path: Path) -> None:
    import threading

    from reasonix_acp.tools.workspace import keep, session_temp

    temp = session_temp(f"keep-{tmp_path.name}")
    os.makedirs(temp, 0o700, exist_ok=True)
    fifo, link = Path(temp, "a.log"), Path(temp, "b.log")
    for p in (fifo, link):
        if p.exists() or p.is_symlink():
            p.unlink()
    os.mkfifo(fifo)
    link.symlink_to(tmp_path / "elsewhere.txt")
    kept: list[str] = []
    writer = threading.Thread(
        target=lambda: kept.extend([keep(temp, "a.log", b"one"), keep(temp, "b.log", b"two")]),
        daemon=True,
    )
    writer.start()
    writer.join(3)
    assert kept, "keep() blocked on a FIFO"
    assert fifo.read_bytes() == b"one" and not fifo.is_fifo()
    assert link.read_bytes() == b"two" and not link.is_symlink()
    assert not (tmp_path / "elsewhere.txt").exists()
