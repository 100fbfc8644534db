"""Checkpoints never follow a link, through a real `acp` against the DeepSeek stand-in: a
directory of the workspace swapped for a link to a place outside (by a command the user allowed,
or by hand between turns, or while a rewind was cut short by a kill) is never written, chmodded,
created in or removed from by a rewind, and never read by a checkpoint (a secret outside would
land in the blob store); each such file is named, in the rewind's `left` or its `untracked`."""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.checkpoints import places
from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config
from tests.test_rewind import REWIND, ended, full, turn
from tests.test_sessions import updates_of
from tests.transcript import Scenario

SRC = Path(places.__file__).parents[1]
CANARY = b"ssh-ed25519 AAAAC3NzaCANARYcanary user@laptop\n"
MODEL_KEY = "ssh-ed25519 AAAAC3NzaMODELmodel attacker@elsewhere\n"
SECRET = b"aws_secret_access_key = CANARY-wJalrXUtnFEMI-K7MDENG\n"


def home(tmp_path: Path) -> Path:
    """A user's home outside the workspace: ~/.ssh/authorized_keys and ~/.aws/credentials."""
    root = tmp_path / "home"
    (root / ".ssh").mkdir(parents=True)
    (root / ".ssh" / "authorized_keys").write_bytes(CANARY)
    (root / ".aws").mkdir()
    (root / ".aws" / "credentials").write_bytes(SECRET)
    return root


def blob_bytes(data: Path) -> list[bytes]:
    return [p.read_bytes() for p in (data / "blobs").glob("??/*") if p.is_file()]


def allowed_once(c: Client, sid: str, text: str) -> tuple[dict[str, Any], int]:
    """The prompt's response and how many permission requests it asked (each allowed once)."""
    c._id += 1
    rid = c._id
    c.send(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": text}]},
        }
    )
    asked = 0
    while True:
        frame = c.agent.receive()
        if frame.get("method") == "session/request_permission":
            asked += 1
            outcome = {"outcome": "selected", "optionId": "allow_once"}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        elif "method" in frame:
            c.notes.append(frame)
        elif frame.get("id") == rid:
            return frame, asked


def said(c: Client, sid: str) -> str:
    return "".join(
        u["content"]["text"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    )


def keys_swapped_for_ssh(tmp_path: Path, server: DeepSeek) -> tuple[Client, str, Path, Path]:
    """Turn 1 writes keys/authorized_keys unasked; turn 2, a command the user allowed once,
    makes keys a link to ~/.ssh. → (client, session, cwd, ~/.ssh)."""
    ssh = home(tmp_path) / ".ssh"
    c = agent(tmp_path, config(server))
    cwd = Path(c.scenario.vars["CWD"])
    sid = c.start()
    turn(server, ("write", {"path": "keys/authorized_keys", "content": MODEL_KEY}))
    done, asked = allowed_once(c, sid, "add my deploy key")
    assert done.get("result") == {"stopReason": "end_turn"} and asked == 0, done
    turn(server, ("bash", {"command": f"rm -r keys && ln -s {ssh} keys"}))
    done, asked = allowed_once(c, sid, "tidy the keys")
    assert done["result"] == {"stopReason": "end_turn"} and asked == 1
    assert (cwd / "keys").is_symlink()
    c.take_notes()
    return c, sid, cwd, ssh


def test_rewinding_the_link_turn_leaves_the_file_it_points_to(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c, sid, cwd, ssh = keys_swapped_for_ssh(tmp_path, server)
        assert CANARY not in blob_bytes(Path(c.scenario.vars["DATA"]))
        done, _ = allowed_once(c, sid, "/rewind 1")
        assert done["result"] == {"stopReason": "end_turn"}
        text = said(c, sid)
        assert (ssh / "authorized_keys").read_bytes() == CANARY
        assert (
            f"Not tracked: {cwd / 'keys' / 'authorized_keys'}: changed, not kept "
            f"(reached through a link: {cwd / 'keys'})" in text
        )
        assert (cwd / "keys").is_symlink()
        assert CANARY not in blob_bytes(Path(c.scenario.vars["DATA"]))
        assert c.close() == 0


def test_rewinding_both_turns_leaves_the_file_it_points_to(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c, sid, cwd, ssh = keys_swapped_for_ssh(tmp_path, server)
        done, _ = allowed_once(c, sid, "/rewind 2")
        assert done["result"] == {"stopReason": "end_turn"}
        text = said(c, sid)
        assert (ssh / "authorized_keys").read_bytes() == CANARY
        assert (
            f"Left as it is: {cwd / 'keys' / 'authorized_keys'} "
            f"(reached through a link: {cwd / 'keys'})" in text
        )
        assert "Removed" not in text
        assert CANARY not in blob_bytes(Path(c.scenario.vars["DATA"]))
        assert c.close() == 0


def test_a_link_swapped_in_between_turns_is_never_followed(tmp_path: Path) -> None:
    """By hand after the turn: sub/ and deep/ become links to directories outside, g.txt a link
    to a file outside; a forced rewind writes, removes and creates nothing through them."""
    outside, empty = tmp_path / "outside", tmp_path / "empty"
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        (cwd / "sub" / "dir").mkdir(parents=True)
        (cwd / "sub" / "dir" / "f.txt").write_text("orig\n")
        os.chmod(cwd / "sub" / "dir" / "f.txt", 0o600)
        (cwd / "deep" / "x").mkdir(parents=True)
        (cwd / "deep" / "x" / "y.txt").write_text("deep\n")
        (cwd / "g.txt").write_text("g before\n")
        sid = full(c)
        turn(
            server,
            ("write", {"path": "sub/dir/f.txt", "content": "model\n"}),
            ("write", {"path": "sub/dir/new.txt", "content": "new\n"}),
            ("write", {"path": "g.txt", "content": "g after\n"}),
            ("bash", {"command": "chmod 644 sub/dir/f.txt && rm -r deep"}),
        )
        ended(c, sid, "change them")
        (outside / "dir").mkdir(parents=True)
        (outside / "dir" / "f.txt").write_text("model\n")  # what the turn left, so it is not
        (outside / "dir" / "new.txt").write_text("new\n")  # "changed since"
        (outside / "g.txt").write_text("g after\n")
        os.chmod(outside / "dir" / "f.txt", 0o644)
        empty.mkdir()
        os.rename(cwd / "sub", tmp_path / "sub-moved")
        os.symlink(outside, cwd / "sub")
        os.symlink(empty, cwd / "deep")
        os.unlink(cwd / "g.txt")
        os.symlink(outside / "g.txt", cwd / "g.txt")

        done = c.result(REWIND, {"sessionId": sid, "force": True})
        assert done["restored"] == [] and done["removed"] == []
        assert done["left"] == [
            {
                "path": str(cwd / "deep/x/y.txt"),
                "reason": f"reached through a link: {cwd / 'deep'}",
            },
            {"path": str(cwd / "g.txt"), "reason": "it is a link now"},
            {
                "path": str(cwd / "sub/dir/f.txt"),
                "reason": f"reached through a link: {cwd / 'sub'}",
            },
            {
                "path": str(cwd / "sub/dir/new.txt"),
                "reason": f"reached through a link: {cwd / 'sub'}",
            },
        ]
        assert (outside / "dir" / "f.txt").read_text() == "model\n"
        assert (outside / "dir" / "f.txt").stat().st_mode & 0o777 == 0o644
        assert (outside / "dir" / "new.txt").read_text() == "new\n"
        assert (outside / "g.txt").read_text() == "g after\n"
        assert list(empty.iterdir()) == []
        assert c.close() == 0


def test_a_checkpoint_never_reads_a_file_outside_through_a_link(tmp_path: Path) -> None:
    """A command makes conf/ a link to ~/.aws, a.txt a link to the credentials and b.txt a hard
    link to them: the secret's bytes never reach the blob store, and each change is named."""
    aws = home(tmp_path) / ".aws"
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        (cwd / "conf").mkdir()
        (cwd / "conf" / "credentials").write_text("placeholder\n")
        (cwd / "a.txt").write_text("a\n")
        (cwd / "b.txt").write_text("b\n")
        sid = full(c)
        creds = aws / "credentials"
        turn(
            server,
            (
                "bash",
                {
                    "command": f"rm -r conf && ln -s {aws} conf && ln -sf {creds} a.txt "
                    f"&& ln -f {creds} b.txt"
                },
            ),
        )
        ended(c, sid, "link the credentials")
        assert (cwd / "b.txt").read_bytes() == SECRET
        assert not any(b"CANARY" in blob for blob in blob_bytes(data))
        done = c.result(REWIND, {"sessionId": sid})
        # (the link conf/ itself is named too if the listing of the workspace shows links)
        assert {
            f"{cwd / 'a.txt'}: changed, not kept (a link)",
            f"{cwd / 'b.txt'}: changed, not kept (it has other names: a hard link)",
            f"{cwd / 'conf' / 'credentials'}: changed, not kept (reached through a link: "
            f"{cwd / 'conf'})",
        } <= set(done["untracked"])
        assert creds.read_bytes() == SECRET
        assert not any(b"CANARY" in blob for blob in blob_bytes(data))
        assert c.close() == 0


def test_a_rewind_finished_at_the_next_opening_never_follows_a_link(tmp_path: Path) -> None:
    """A rewind killed half way; before the session is opened again keys/ becomes a link to
    ~/.ssh: the opening finishes every other file and leaves the one through the link, named."""
    count, size = 120, 512 * 1024
    ssh = home(tmp_path) / ".ssh"
    with DeepSeek() as server:
        scenario = Scenario(tmp_path)
        c = agent(tmp_path, config(server), scenario)
        cwd = Path(scenario.vars["CWD"])
        (cwd / "big").mkdir()
        for i in range(count):
            (cwd / "big" / f"f{i:03}.bin").write_bytes(bytes([i]) * size)
        (cwd / "keys").mkdir()
        (cwd / "keys" / "authorized_keys").write_text("earlier\n")
        sid = full(c)
        command = (
            "for f in big/f*.bin; do echo changed > $f; done; echo later > keys/authorized_keys"
        )
        turn(server, ("bash", {"command": command}))
        ended(c, sid, "change them all")
        c.send({"jsonrpc": "2.0", "id": 999, "method": REWIND, "params": {"sessionId": sid}})
        deadline = time.monotonic() + 20
        while (cwd / "big" / "f000.bin").stat().st_size != size:
            assert time.monotonic() < deadline
        c.kill()
        assert (cwd / "keys" / "authorized_keys").read_text() == "later\n", "make the files bigger"
        os.rename(cwd / "keys", tmp_path / "keys-moved")
        os.symlink(ssh, cwd / "keys")

        again = Client(tmp_path, scenario=scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        again.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        for i in range(count):
            assert (cwd / "big" / f"f{i:03}.bin").read_bytes() == bytes([i]) * size
        assert (ssh / "authorized_keys").read_bytes() == CANARY
        assert again.close() == 0
        note = f"{cwd / 'keys' / 'authorized_keys'} (reached through a link: {cwd / 'keys'})"
        assert note in again.agent.stderr.decode()


# -- the class: every operation, a link at every place on the path ------------------------------

CHECKPOINT_MODULES = [
    Path(places.__file__).with_name(name) for name in ("recorder.py", "restore.py")
] + [SRC / "session" / "rewind.py", SRC / "turn" / "checkpointing.py"]
FOLLOWING = {
    "open", "Path", "os.open", "os.stat", "os.lstat", "os.unlink", "os.remove", "os.rmdir",
    "os.replace", "os.rename", "os.makedirs", "os.mkdir", "os.chmod", "os.utime", "os.readlink",
    "os.symlink", "os.link", "os.listdir", "os.scandir", "os.walk", "os.path.exists",
    "os.path.isfile", "os.path.isdir", "os.path.islink", "os.path.getsize", "os.path.realpath",
}  # fmt: skip


def _called(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name in FOLLOWING or name.startswith("shutil."):
                found.append((name, node.lineno))
    return found


def test_only_places_touches_the_files_checkpoints_keep() -> None:
    """Recording and restoring reach workspace files through checkpoints/places.py only, and
    places.py never follows a link: its opens carry O_NOFOLLOW, its stats follow_symlinks=False."""
    for module in CHECKPOINT_MODULES:
        assert _called(ast.parse(module.read_text())) == [], module
    assert all(f & os.O_NOFOLLOW for f in (places.DIR_FLAGS, places.READ_FLAGS, places.NEW_FLAGS))
    tree = ast.parse(Path(places.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.stat":
            keywords = {k.arg: ast.unparse(k.value) for k in node.keywords}
            assert keywords.get("follow_symlinks") == "False", node.lineno
            assert "dir_fd" in keywords, node.lineno
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.open":
            flags = ast.unparse(node.args[1])
            assert flags in ("DIR_FLAGS", "READ_FLAGS", "NEW_FLAGS"), node.lineno


def test_a_link_anywhere_on_the_path_is_never_followed(tmp_path: Path) -> None:
    """For each directory of root/a/b/c/f.txt in turn swapped for a link to it moved outside,
    and for f.txt itself a link: reading, writing (a new directory too) and removing each
    refuse, naming the link, and nothing outside is changed or made."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    path = str(root / "a/b/c/f.txt")
    for where in ("a", "a/b", "a/b/c", "a/b/c/f.txt"):
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)
        (root / "a/b/c").mkdir(parents=True)
        (root / "a/b/c/f.txt").write_bytes(b"inside\n")
        outside.mkdir()
        os.rename(root / where, outside / "moved")
        os.symlink(outside / "moved", root / where)
        before = {str(p): p.read_bytes() if p.is_file() else None for p in outside.rglob("*")}
        operations = [
            lambda d: places.read(d, path),
            lambda d: places.write(d, path, b"written\n", 0o644),
            lambda d: places.remove(d, path),
        ]
        if where != "a/b/c/f.txt":
            operations.append(lambda d: places.lstat(d, path))
            operations.append(lambda d: places.write(d, str(root / "a/b/c/new/g.txt"), b"", None))
        else:
            with places.Dirs() as dirs:
                info = places.lstat(dirs, path)
            assert info is not None and stat.S_ISLNK(info.st_mode)
        for operation in operations:
            with places.Dirs() as dirs, pytest.raises(places.Linked) as refused:
                operation(dirs)
            assert refused.value.where == str(root / where), (where, refused.value)
        after = {str(p): p.read_bytes() if p.is_file() else None for p in outside.rglob("*")}
        assert after == before, where
        assert os.readlink(root / where) == str(outside / "moved")


def test_a_directory_swapped_after_it_was_opened_is_not_followed(tmp_path: Path) -> None:
    """A pass keeps the directory it opened: swapped for a link afterwards, the write still
    lands in the directory that was opened (moved aside), never through the link."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    with places.Dirs() as dirs:
        places.write(dirs, str(root / "d/one.txt"), b"one\n", None)
        os.rename(root / "d", tmp_path / "aside")
        os.symlink(outside, root / "d")
        places.write(dirs, str(root / "d/two.txt"), b"two\n", 0o640)
    assert list(outside.iterdir()) == []
    assert (tmp_path / "aside/two.txt").read_bytes() == b"two\n"
    assert (tmp_path / "aside/two.txt").stat().st_mode & 0o777 == 0o640


def test_the_blob_store_never_follows_a_link(tmp_path: Path) -> None:
    """Links put in the blob store (it is in the workspace when the workspace holds the data
    directory): a blob is never written through one (the file is named as not kept), and
    deleting a session prunes nothing through one."""
    outside, old = tmp_path / "outside", time.time() - 3 * 24 * 3600
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        (cwd / "a.txt").write_text("one\n")
        (outside / "dir").mkdir(parents=True)
        (outside / "old.txt").write_text("the user's\n")
        os.utime(outside / "old.txt", (old, old))
        digest = hashlib.sha256(b"one\n").hexdigest()
        (data / "blobs").mkdir(parents=True)
        os.symlink(outside, data / "blobs" / digest[:2])
        os.symlink(outside / "dir", data / "blobs" / ("ab" if digest[:2] != "ab" else "cd"))
        sid = full(c)
        turn(server, ("write", {"path": "a.txt", "content": "two\n"}))
        ended(c, sid, "change it")
        assert sorted(p.name for p in outside.rglob("*")) == ["dir", "old.txt"]
        done = c.result(REWIND, {"sessionId": sid})
        assert done["untracked"] == [
            f"{cwd / 'a.txt'}: changed, not kept (checkpoint blobs: {digest[:2]} is not a "
            "directory of its own)"
        ]
        assert (cwd / "a.txt").read_text() == "two\n"
        (outside / "dir" / ("f" * 62)).write_text("also the user's\n")
        os.utime(outside / "dir" / ("f" * 62), (old, old))
        c.result("session/delete", {"sessionId": sid})
        c.result("session/delete", {"sessionId": done["keptAs"]})
        assert (outside / "old.txt").read_text() == "the user's\n"
        assert (outside / "dir" / ("f" * 62)).read_text() == "also the user's\n"
        assert c.close() == 0
