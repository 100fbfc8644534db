"""Checkpoints keep only files under the session's roots (its cwd and additional directories),
through a real `acp` against the DeepSeek stand-in: a `write` the user allowed outside them
(`~/.aws/credentials`, `~/.ssh/config`: names no secret pattern catches), or any write under
danger-full-access, never puts that file's bytes in the blob store; its change is named "not
kept (outside the workspace)" and a rewind leaves the file as it is and says so. A change
recorded for a file outside (before this rule, or roots that changed since) is left by the
rewind and named. The session's temp directory is its own scratch, not kept either. A file
inside the roots under a `[permissions] deny_paths` rule is never kept, its change named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reasonix_acp.tools.workspace import session_temp
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config
from tests.test_rewind import REWIND, ended, full, turn
from tests.test_rewind_links import SECRET, allowed_once, blob_bytes, home, said

SSH_CONFIG = b"Host prod\n  IdentityFile ~/.ssh/CANARY-prod-key\n"
DENIED = b"token = CANARY-denied-8f2e1a\n"


def canaries(data: Path) -> list[bytes]:
    return [blob for blob in blob_bytes(data) if b"CANARY" in blob]


@pytest.mark.parametrize("preset", ["asked", "danger-full-access"])
def test_a_write_outside_the_roots_is_never_kept(tmp_path: Path, preset: str) -> None:
    """Writes to ~/.aws/credentials and ~/.ssh/config (allowed once, or unasked under full
    access) beside a write inside: the outside files' bytes never reach the blob store, the
    rewind puts back the inside one only, leaves the outside ones and names them."""
    root = home(tmp_path)
    creds, ssh_config = root / ".aws" / "credentials", root / ".ssh" / "config"
    ssh_config.write_bytes(SSH_CONFIG)
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        (cwd / "a.txt").write_text("one\n")
        sid = full(c) if preset == "danger-full-access" else c.start()
        turn(
            server,
            ("write", {"path": str(creds), "content": "[default]\nregion = x\n"}),
            ("write", {"path": str(ssh_config), "content": "Host *\n"}),
            ("write", {"path": "a.txt", "content": "two\n"}),
        )
        done, asked = allowed_once(c, sid, "tidy my config")
        assert done["result"] == {"stopReason": "end_turn"}
        assert asked == (2 if preset == "asked" else 0)
        assert creds.read_text() == "[default]\nregion = x\n"
        assert canaries(data) == []

        c.take_notes()
        back, _ = allowed_once(c, sid, "/rewind")
        assert back["result"] == {"stopReason": "end_turn"}
        text = said(c, sid)
        for path in (creds, ssh_config):
            assert f"Not tracked: {path}: changed, not kept (outside the workspace)" in text
        assert f"Put back: {cwd / 'a.txt'}" in text
        assert (cwd / "a.txt").read_text() == "one\n"
        assert creds.read_text() == "[default]\nregion = x\n"
        assert ssh_config.read_text() == "Host *\n"
        assert canaries(data) == [] and SECRET not in blob_bytes(data)
        assert c.close() == 0
    assert server.refused == []


def test_an_additional_directory_is_kept_and_the_session_temp_is_not(tmp_path: Path) -> None:
    """An additional directory is a root: a write there is put back. The session's temp
    directory is not: a write there is named and left."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        extra = Path(c.scenario.vars["CWD2"])
        (extra / "b.txt").write_text("bee\n")
        c.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = c.result(
            "session/new",
            {
                "cwd": c.scenario.vars["CWD"],
                "mcpServers": [],
                "additionalDirectories": [str(extra)],
            },
        )["sessionId"]
        c.result(
            "session/set_config_option",
            {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
        )
        scratch = Path(session_temp(sid)).resolve() / "scratch.txt"
        turn(
            server,
            ("write", {"path": str(extra / "b.txt"), "content": "bee two\n"}),
            ("write", {"path": str(scratch), "content": "scratch\n"}),
        )
        ended(c, sid, "change both")
        done = c.result(REWIND, {"sessionId": sid})
        assert done["restored"] == [str(extra.resolve() / "b.txt")] and done["left"] == []
        assert done["untracked"] == [
            f"{scratch}: changed, not kept (in the session's temp directory)"
        ]
        assert (extra / "b.txt").read_text() == "bee\n"
        assert scratch.read_text() == "scratch\n"
        assert c.close() == 0


def test_a_change_recorded_outside_the_roots_is_left_by_a_rewind(tmp_path: Path) -> None:
    """A checkpoint row for a file outside the roots (kept before this rule, or the roots have
    changed since) is never acted on: the rewind leaves the file and names it."""
    root = home(tmp_path)
    creds = root / ".aws" / "credentials"
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        (cwd / "a.txt").write_text("one\n")
        (cwd / "b.txt").write_text("bee\n")
        sid = full(c)
        turn(
            server,
            ("write", {"path": "a.txt", "content": "two\n"}),
            ("write", {"path": "b.txt", "content": "bee two\n"}),
        )
        ended(c, sid, "change both")
        creds.write_text("two\n")  # what the turn "left" there, so it is not "changed since"
        with sqlite3.connect(data / "reasonix-acp.sqlite3") as db:
            db.execute(
                "UPDATE checkpoint_files SET path = ? WHERE path = ?",
                (str(creds), str(cwd / "a.txt")),
            )
        done = c.result(REWIND, {"sessionId": sid, "force": True})
        assert done["left"] == [{"path": str(creds), "reason": "outside the workspace"}]
        assert done["restored"] == [str(cwd / "b.txt")]
        assert creds.read_text() == "two\n" and (cwd / "b.txt").read_text() == "bee\n"
        assert c.close() == 0


def test_a_file_under_a_deny_rule_is_never_kept(tmp_path: Path) -> None:
    """private/token.txt inside the cwd, under `deny_paths`: the snapshot before a command never
    reads it into the blob store, and a change to it (by a script the command runs) is named."""
    with DeepSeek() as server:
        scenario_cwd = tmp_path / "ws"
        rule = f'[permissions]\ndeny_paths = ["{scenario_cwd.resolve()}/private/**"]\n'
        c = agent(tmp_path, config(server, rule))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        assert cwd == scenario_cwd
        (cwd / "private").mkdir()
        (cwd / "private" / "token.txt").write_bytes(DENIED)
        (cwd / "a.txt").write_text("one\n")
        (cwd / "run.sh").write_text("echo two > a.txt\necho rotated > private/token.txt\n")
        sid = full(c)
        turn(server, ("bash", {"command": "sh run.sh"}))
        ran, asked = allowed_once(c, sid, "run it")  # deny rules cannot see into a script:
        assert ran["result"] == {"stopReason": "end_turn"} and asked == 1  # asked, allowed
        assert (cwd / "private" / "token.txt").read_text() == "rotated\n"
        assert canaries(data) == []
        done = c.result(REWIND, {"sessionId": sid})
        token = cwd.resolve() / "private" / "token.txt"
        assert done["untracked"] == [f"{token}: changed, not kept (it may hold secrets)"]
        assert done["restored"] == [str(cwd.resolve() / "a.txt")]
        assert (cwd / "a.txt").read_text() == "one\n"
        assert (cwd / "private" / "token.txt").read_text() == "rotated\n"
        assert canaries(data) == []
        assert c.close() == 0
