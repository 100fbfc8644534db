"""Message ids: every chunk of one message carries the same `messageId`, a new message a new
one, and a load replays each chunk with the id it had live (stored with the event)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.client import Client
from tests.test_sessions import updates_of

CHUNKS = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")


def messages(updates: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(kind, messageId, text) per message, consecutive chunks of one id joined."""
    joined: list[tuple[str, str, str]] = []
    for update in updates:
        if update["sessionUpdate"] not in CHUNKS:
            continue
        kind, mid = update["sessionUpdate"], update["messageId"]
        text = update["content"].get("text", "")
        if joined and joined[-1][:2] == (kind, mid):
            joined[-1] = (kind, mid, joined[-1][2] + text)
        else:
            joined.append((kind, mid, text))
    return joined


def test_chunks_carry_their_message_id_live_and_replayed(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    for text in ("Plan:\n- one\n- two", "think about it, then answer"):
        answer = c.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        )
        assert answer["result"]["stopReason"] == "end_turn", answer
    live = updates_of(c.take_notes(), sid)
    live_messages = messages(live)
    kinds = [kind for kind, _, _ in live_messages]
    assert "agent_thought_chunk" in kinds and "agent_message_chunk" in kinds, kinds
    # Streamed in pieces: several chunks to a message.
    assert sum(u["sessionUpdate"] in CHUNKS for u in live) > len(live_messages)
    # Each reply is a message, and a thought is one apart from the reply it precedes.
    assert kinds.count("agent_message_chunk") == 2, live_messages
    ids = [mid for _, mid, _ in live_messages]
    assert len(set(ids)) == len(ids), "an id comes back after another message"
    assert all(len(mid) == 36 for mid in ids)

    c.result("session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []})
    replayed = messages(updates_of(c.take_notes(), sid))
    users = [m for m in replayed if m[0] == "user_message_chunk"]
    assert [text for _, _, text in users] == ["Plan:\n- one\n- two", "think about it, then answer"]
    assert len({mid for _, mid, _ in users}) == 2
    assert [m for m in replayed if m[0] != "user_message_chunk"] == live_messages
    # A second load gives the same ids again: they are stored, not made at the replay.
    c.result("session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []})
    assert messages(updates_of(c.take_notes(), sid)) == replayed
    assert c.close() == 0


def test_a_command_answer_and_its_prompt_are_messages_too(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    c.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/help"}]})
    live = messages(updates_of(c.take_notes(), sid))
    assert [kind for kind, _, _ in live] == ["agent_message_chunk"]
    c.result("session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []})
    replayed = messages(updates_of(c.take_notes(), sid))
    assert [kind for kind, _, _ in replayed] == ["user_message_chunk", "agent_message_chunk"]
    assert replayed[1] == live[0]
    assert c.close() == 0
