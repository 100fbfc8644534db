from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.client import Client
from tests.test_sessions import damaged_session
from tests.transcript import acp_command


def acp(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*acp_command(), "sessions", *args, "--data-dir", str(tmp / "data")],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_list_show_export_delete(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    sid = client.start()
    client.result(
        "session/prompt",
        {"sessionId": sid, "prompt": [{"type": "text", "text": "Todo:\n- alpha\n- beta"}]},
    )
    assert client.close() == 0

    listed = acp(tmp_path, "list")
    assert (
        listed.returncode == 0 and sid in listed.stdout and "Todo: - alpha - beta" in listed.stdout
    )
    shown = acp(tmp_path, "show", sid)
    assert "turn_count" in shown.stdout and "offline/default" in shown.stdout
    ndjson = acp(tmp_path, "export", sid, "--format", "ndjson")
    kinds = [json.loads(line)["sessionUpdate"] for line in ndjson.stdout.splitlines()]
    assert kinds[0] == "user_message_chunk" and "tool_call" in kinds and "plan" in kinds
    assert "x-tool" not in ndjson.stdout
    md = acp(tmp_path, "export", sid, "--format=markdown")
    assert (
        md.stdout.startswith("# Todo: - alpha - beta")
        and "## User" in md.stdout
        and "`todo_write`" in md.stdout
    )
    assert acp(tmp_path, "export", sid, "--format", "pdf").returncode == 2
    assert acp(tmp_path, "show", "nope").returncode == 1
    deleted = acp(tmp_path, "delete", sid)
    assert deleted.returncode == 0
    assert acp(tmp_path, "list").stdout == "no sessions\n"


def test_delete_refuses_a_session_open_elsewhere(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    sid = client.start()
    refused = acp(tmp_path, "delete", sid)
    assert refused.returncode == 1 and "in use by process" in refused.stderr
    assert client.close() == 0


def test_prefixes_and_sessions_never_prompted(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    quiet = client.start()
    spoken = client.result("session/new", {"cwd": client.scenario.vars["CWD"], "mcpServers": []})[
        "sessionId"
    ]
    client.result(
        "session/prompt", {"sessionId": spoken, "prompt": [{"type": "text", "text": "hello"}]}
    )
    assert client.close() == 0
    listed = acp(tmp_path, "list").stdout
    assert spoken in listed and quiet not in listed
    assert quiet in acp(tmp_path, "list", "--all").stdout
    shown = acp(tmp_path, "show", spoken[:8])
    assert shown.returncode == 0 and spoken in shown.stdout
    ambiguous = acp(tmp_path, "show", "")
    assert ambiguous.returncode in (1, 2)
    helped = acp(tmp_path, "--help")
    assert helped.returncode == 0 and "unique prefix" in helped.stdout


@pytest.mark.parametrize("fmt", ["ndjson", "markdown"])
def test_export_skips_an_event_without_its_shape_and_says_so(tmp_path: Path, fmt: str) -> None:
    """A damaged or hand-edited row (a JSON object that is not the event its kind says) is left
    out of an export with a warning naming it; the rest is exported."""
    _, sid = damaged_session(tmp_path, "agent_message", '{"text": 5}')
    exported = acp(tmp_path, "export", sid, "--format", fmt)
    assert exported.returncode == 0, exported.stderr
    assert "hello" in exported.stdout
    assert "is not a agent_message event; skipped" in exported.stderr


def test_archived_sessions_are_listed_with_all_and_marked(tmp_path: Path) -> None:
    """As session/list by default: an archived session is left out of `list`; `list --all`
    shows it, marked, beside the others."""
    client = Client(tmp_path, "--model", "offline")
    kept = client.start()
    cwd = client.scenario.vars["CWD"]
    stored = client.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
    for sid, text in ((kept, "kept work"), (stored, "stored work")):
        client.result(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        )
    client.result("session/archive", {"sessionId": stored})
    assert client.close() == 0
    listed = acp(tmp_path, "list").stdout
    assert kept in listed and stored not in listed
    every = {line.split()[0]: line for line in acp(tmp_path, "list", "--all").stdout.splitlines()}
    assert "[archived] stored work" in every[stored]
    assert "[archived]" not in every[kept] and "kept work" in every[kept]
