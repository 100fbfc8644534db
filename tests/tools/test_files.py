"""File tools on real files: encodings are preserved by edits."""

from __future__ import annotations

from pathlib import Path

from reasonix_acp.tools.base import ToolContext
from reasonix_acp.tools.files import EditFile, ReadFile, WriteFile, encoding_of
from reasonix_acp.tools.workspace import Workspace


def ctx(tmp: Path) -> ToolContext:
    return ToolContext(cwd=str(tmp), session_id="s", workspace=Workspace(str(tmp)))


async def test_a_gbk_file_keeps_its_bytes_through_an_edit(tmp_path: Path) -> None:
    original = "标题 = 1\nvalue = 2\n".encode("gbk")
    path = tmp_path / "legacy.ini"
    path.write_bytes(original)
    assert encoding_of(original) == "latin-1"
    await EditFile().run(
        {"path": "legacy.ini", "edits": [{"old_text": "value = 2", "new_text": "value = 3"}]},
        ctx(tmp_path),
    )
    assert path.read_bytes() == original.replace(b"value = 2", b"value = 3")


async def test_utf16_with_a_bom_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes("hello wörld".encode("utf-16"))
    result = await ReadFile().run({"path": "w.txt"}, ctx(tmp_path))
    assert result.text == "hello wörld"
    await EditFile().run(
        {"path": "w.txt", "edits": [{"old_text": "hello", "new_text": "bye"}]}, ctx(tmp_path)
    )
    assert path.read_bytes().decode("utf-16") == "bye wörld"


async def test_write_creates_utf8_and_refuses_what_the_encoding_cannot_hold(tmp_path: Path) -> None:
    await WriteFile().run({"path": "new/a.txt", "content": "ünïcode"}, ctx(tmp_path))
    assert (tmp_path / "new" / "a.txt").read_text(encoding="utf-8") == "ünïcode"
    (tmp_path / "l1.txt").write_bytes(b"caf\xe9")
    import pytest

    from reasonix_acp.tools.base import ToolFailed

    with pytest.raises(ToolFailed, match="encoding"):
        await WriteFile().run({"path": "l1.txt", "content": "日本"}, ctx(tmp_path))
    assert (tmp_path / "l1.txt").read_bytes() == b"caf\xe9"


async def test_glob_finds_files_below_the_workspace(tmp_path: Path) -> None:
    from reasonix_acp.tools.search import Glob

    (tmp_path / "src" / "pkg").mkdir(parents=True)
    for name in ("src/a.py", "src/pkg/b.py", "src/pkg/c.txt"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    result = await Glob().run({"pattern": "src/**/*.py"}, ctx(tmp_path))
    assert result.text.splitlines() == ["src/a.py", "src/pkg/b.py"]
    assert Glob().target({"pattern": "src/**/*.py"}, ctx(tmp_path)) == str(tmp_path / "src")
    assert not ctx(tmp_path).workspace.inside(
        Glob().target({"pattern": "/etc/*.conf"}, ctx(tmp_path))
    )
