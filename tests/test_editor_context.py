"""What editors send with the user's words, through a real `acp` against the local
OpenAI-compatible server. CodeCompanion puts an `AGENTS.md` text block (and shared buffers)
before what the user typed: a `/command` typed after it still runs, and an attached file the
system prompt already carries is not sent to the model twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.sse_server import Server
from tests.test_project_instructions import _client, _repo

ROOT_RULE = "Root rule: run `make check` before finishing.\n"


def shared(path: Path) -> dict[str, Any]:
    """CodeCompanion's rules block for a file (`Sharing <path>:` and the text between rules)."""
    return {"type": "text", "text": f"Sharing `{path}`:\n\n---\n{path.read_text()}\n---"}


def typed(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def last_user(server: Server) -> str:
    messages = json.loads(server.bodies[-1])["messages"]
    return str([m for m in messages if m["role"] == "user"][-1]["content"])


def said(notes: list[dict[str, Any]]) -> str:
    return "".join(
        n["params"]["update"]["content"]["text"]
        for n in notes
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )


def test_a_command_typed_after_the_editors_context_runs(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        c.take_notes()
        prompt = [shared(repo / "AGENTS.md"), typed("/status")]
        reply = c.call("session/prompt", {"sessionId": sid, "prompt": prompt})
        assert reply["result"] == {"stopReason": "end_turn"}
        assert server.bodies == [], "/status went to the model"
        assert said(c.take_notes()).startswith("model openai/m1")
        # Typed text that is not a command still goes to the model, context and all.
        prompt = [shared(package / "AGENTS.md"), typed("/etc/hosts looks wrong")]
        c.call("session/prompt", {"sessionId": sid, "prompt": prompt})
        assert last_user(server).endswith("\n\n/etc/hosts looks wrong")
        assert c.close() == 0


def test_an_attached_agents_md_the_instructions_carry_is_not_sent_twice(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        note = f"[{repo / 'AGENTS.md'}, sent by the editor: already in the instructions]"
        prompt = [shared(repo / "AGENTS.md"), typed("hello")]
        c.call("session/prompt", {"sessionId": sid, "prompt": prompt})
        assert last_user(server) == f"{note}\n\nhello"
        system = json.loads(server.bodies[-1])["messages"][0]["content"]
        assert system.count(ROOT_RULE.strip()) == 1
        # As an embedded resource, the same.
        resource = {"uri": (repo / "AGENTS.md").as_uri(), "text": ROOT_RULE}
        prompt = [{"type": "resource", "resource": resource}, typed("again")]
        c.call("session/prompt", {"sessionId": sid, "prompt": prompt})
        assert last_user(server) == f"{note}\n\nagain"
        # More than the file (a buffer that quotes it, say) is sent as it is.
        block = typed(f"{ROOT_RULE}\n" + "and a long note the file does not hold. " * 20)
        c.call("session/prompt", {"sessionId": sid, "prompt": [block, typed("third")]})
        assert last_user(server) == f"{block['text']}\n\nthird"
        # What the user typed is theirs, even when it is the file's text.
        c.call("session/prompt", {"sessionId": sid, "prompt": [typed(ROOT_RULE)]})
        assert last_user(server) == ROOT_RULE.strip()
        assert c.close() == 0


def test_a_file_command_typed_after_context_brings_the_context(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    commands = repo / ".reasonix" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review $ARGUMENTS carefully.\n")
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        buffer = typed("Sharing the following file as context: pkg/main.py")
        prompt = [shared(repo / "AGENTS.md"), buffer, typed("/review main.py")]
        c.call("session/prompt", {"sessionId": sid, "prompt": prompt})
        note = f"[{repo / 'AGENTS.md'}, sent by the editor: already in the instructions]"
        assert (
            last_user(server).strip() == f"{note}\n\n{buffer['text']}\n\nReview main.py carefully."
        )
        assert c.close() == 0
