"""What editors send with the user's words, through a real `acp` against the local
OpenAI-compatible server. CodeCompanion puts an `AGENTS.md` text block (and shared buffers)
before what the user typed: a `/command` typed after it still runs, and an attached file the
system prompt already carries is not sent to the model twice, while a block that holds more than
the file (a user's notes quoting it) reaches the model whole."""

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


def test_a_block_that_holds_more_than_the_file_reaches_the_model_whole(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    notes = repo / "notes.md"
    notes.write_text(f"{ROOT_RULE}Use pytest.\nNever touch the migrations folder.\n")
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        # The user's notes.md quotes AGENTS.md and adds their constraints: all of it is theirs.
        resource = {"uri": notes.as_uri(), "text": notes.read_text()}
        c.call("session/prompt", {"sessionId": sid, "prompt": [_res(resource), typed("go")]})
        assert last_user(server) == (
            f'<resource uri="{notes.as_uri()}">\n{notes.read_text()}\n</resource>\n\ngo'
        )
        # As a text block, the same; and in the editor's wrapper naming notes.md.
        for block in (typed(notes.read_text()), shared(notes)):
            c.call("session/prompt", {"sessionId": sid, "prompt": [block, typed("again")]})
            assert last_user(server) == f"{block['text']}\n\nagain"
        # AGENTS.md's own uri with more than its text (an unsaved edit): sent whole too.
        agents = repo / "AGENTS.md"
        edited = {"uri": agents.as_uri(), "text": f"{ROOT_RULE}Use pytest.\n"}
        c.call("session/prompt", {"sessionId": sid, "prompt": [_res(edited), typed("third")]})
        assert "Use pytest." in last_user(server)
        assert "already in the instructions" not in last_user(server)
        # The wrapper naming AGENTS.md around more than its text: sent whole.
        block = {
            "type": "text",
            "text": shared(agents)["text"].replace("---\n", "Use pytest.\n---\n", 1),
        }
        c.call("session/prompt", {"sessionId": sid, "prompt": [block, typed("fourth")]})
        assert "Use pytest." in last_user(server)
        # The file itself, as a resource, is still left out, and the model is told which file.
        note = f"[{agents}, sent by the editor: already in the instructions]"
        exact = {"uri": agents.as_uri(), "text": ROOT_RULE}
        c.call("session/prompt", {"sessionId": sid, "prompt": [_res(exact), typed("fifth")]})
        assert last_user(server) == f"{note}\n\nfifth"
        assert c.close() == 0


def test_the_file_in_an_editors_wrapper_or_under_another_uri_is_left_out_and_named(
    tmp_path: Path,
) -> None:
    repo, package = _repo(tmp_path)
    agents = repo / "AGENTS.md"
    attachment = (
        f'<attachment filepath="{agents}">Here is the content from the file:\n\n'
        f"````markdown\n{ROOT_RULE}\n````\n</attachment>"
    )
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        note = f"[{agents}, sent by the editor: already in the instructions]"
        c.call("session/prompt", {"sessionId": sid, "prompt": [typed(attachment), typed("one")]})
        assert last_user(server) == f"{note}\n\none"
        # The wrapper naming another file around AGENTS.md's text is that other file: sent.
        other = attachment.replace(str(agents), str(repo / "copy.md"))
        c.call("session/prompt", {"sessionId": sid, "prompt": [typed(other), typed("two")]})
        assert last_user(server) == f"{other}\n\ntwo"
        # A resource under another uri holding exactly the file's text: left out, both named.
        copy = {"uri": "zed:///untitled-1", "text": ROOT_RULE.strip()}
        c.call("session/prompt", {"sessionId": sid, "prompt": [_res(copy), typed("three")]})
        assert last_user(server) == (
            f"[zed:///untitled-1, sent by the editor: the text of {agents}, already in the "
            "instructions]\n\nthree"
        )
        assert c.close() == 0


def _res(resource: dict[str, Any]) -> dict[str, Any]:
    return {"type": "resource", "resource": resource}
