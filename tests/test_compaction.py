"""Compaction through a real `acp` and a real HTTP endpoint: before a request that would pass
`compact_at` of the window, on `/compact`, and when the provider says the request is too long;
what the client sees with and without `session.compaction`; cancel; a load after it."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.session.history import SUMMARY_NOTE
from tests.client import Client
from tests.sse_server import Server, chunk
from tests.test_history_exact import converse, text_stream
from tests.test_sessions import updates_of
from tests.test_sessions_cli import acp as acp_sessions
from tests.transcript import Scenario

# A 4608-token window: the tool schemas (about 4 KB) and three 2 KB prompts fit under 80 % of
# it, a fourth does not (before the provider reports a rate, a byte counts a third of a token).
CONFIG = '[context.windows]\n"openai/m1" = 4608\n'
CAPABLE = {"session": {"compaction": {}}}


def client(tmp: Path, server: Server, config: str = CONFIG) -> Client:
    scenario = Scenario(tmp)
    scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-compact-0123456"})
    (tmp / "config").mkdir(exist_ok=True)
    (tmp / "config" / "config.toml").write_text(config, encoding="utf-8")
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def start(c: Client, capabilities: dict[str, Any] | None = None) -> str:
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities or {}})
    sid: str = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})[
        "sessionId"
    ]
    return sid


def words(n: int, letter: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": f"{letter} " * (n // 2)}]


def bodies(server: Server) -> list[dict[str, Any]]:
    return [json.loads(b) for b in server.bodies]


def four_turns(c: Client, sid: str) -> None:
    for letter in "abcd":
        answer = converse(c, sid, words(2000, letter))
        assert answer["result"] == {"stopReason": "end_turn"}, answer


def replies() -> list[Any]:
    return [
        text_stream("one"),
        text_stream("two"),
        text_stream("three"),
        text_stream("SUMMARY: the user sent a and b."),  # the summary request
        text_stream("four"),
    ]


def test_a_request_past_the_threshold_compacts_first_and_keeps_the_prefix(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(replies())
        c = client(tmp_path, server)
        sid = start(c, CAPABLE)
        four_turns(c, sid)
        assert c.close() == 0
    sent = bodies(server)
    assert len(sent) == 5
    third, summary, fourth = sent[2], sent[3], sent[4]
    # The summary request reads the cached prefix: the same tools, the same first messages.
    asked = summary["messages"][:-1]
    assert summary["tools"] == third["tools"] and asked == third["messages"][: len(asked)]
    assert summary["messages"][-1]["content"].startswith("[Compaction]")
    # The next request: the same system message and tools, the summary, then the newest
    # messages word for word, from a prompt or a reply on (at most two prompts).
    before = [*third["messages"], {"role": "assistant", "content": "three"}]
    assert fourth["messages"][0] == third["messages"][0] and fourth["tools"] == third["tools"]
    assert "SUMMARY: the user sent a and b." in fourth["messages"][1]["content"]
    kept = fourth["messages"][2:-1]
    assert kept and kept == before[len(before) - len(kept) :]
    assert kept[0]["role"] in ("user", "assistant") and len(asked) + len(kept) == len(before)
    assert sum(m["role"] == "user" for m in kept) <= 2
    assert fourth["messages"][-1]["content"].startswith("d d d")
    stream = updates_of(c.notes, sid)
    kinds = [u["sessionUpdate"] for u in stream]
    started = kinds.index("compaction_update")
    assert stream[started]["status"] == "in_progress"
    chunk = kinds.index("compaction_summary_chunk")
    done = next(
        u
        for u in stream
        if u["sessionUpdate"] == "compaction_update" and u["status"] != "in_progress"
    )
    assert done["status"] == "completed"
    assert done["summary"] == [{"type": "text", "text": "SUMMARY: the user sent a and b."}]
    assert (
        started
        < chunk
        < stream.index(done)
        < kinds.index("agent_message_chunk", stream.index(done))
    )
    assert not any("[compacted" in json.dumps(u) for u in stream)  # no fallback text for it


def test_a_client_without_the_capability_gets_a_short_message(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(replies())
        c = client(tmp_path, server)
        sid = start(c)
        four_turns(c, sid)
        assert c.close() == 0
    stream = updates_of(c.notes, sid)
    assert not any(u["sessionUpdate"].startswith("compaction") for u in stream)
    texts = [u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_message_chunk"]
    said = [t for t in texts if t.startswith("\n\n[compacted ")]
    assert len(said) == 1 and re.fullmatch(
        r"\n\n\[compacted \d+ earlier messages? to save context\]\n\n", said[0]
    )


def test_a_load_replays_the_compaction_once_and_the_history_after_it(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend([*replies(), text_stream("five")])
        c = client(tmp_path, server)
        sid = start(c, CAPABLE)
        four_turns(c, sid)
        c.kill()
        again = Client(tmp_path, "--model", "openai/m1", scenario=c.scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": CAPABLE})
        cwd = c.scenario.vars["CWD"]
        again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        replayed = updates_of(again.take_notes(), sid)
        answer = converse(again, sid, [{"type": "text", "text": "and then?"}])
        assert answer["result"] == {"stopReason": "end_turn"}
        assert again.close() == 0
    compactions = [u for u in replayed if u["sessionUpdate"].startswith("compaction")]
    assert [(u["sessionUpdate"], u["status"]) for u in compactions] == [
        ("compaction_update", "completed")
    ]
    sent = bodies(server)
    fourth, fifth = sent[4], sent[5]
    assert fifth["messages"][: len(fourth["messages"])] == fourth["messages"]
    assert fifth["messages"][len(fourth["messages"])]["content"] == "four"


def test_slash_compact_with_instructions(tmp_path: Path) -> None:
    config = "[context]\nkeep_turns = 1\n"
    with Server() as server:
        server.behaviours.extend(
            [text_stream("one"), text_stream("two"), text_stream("Kept: the API design.")]
        )
        c = client(tmp_path, server, config)
        sid = start(c, CAPABLE)
        converse(c, sid, [{"type": "text", "text": "design the API"}])
        converse(c, sid, [{"type": "text", "text": "now the tests"}])
        answer = converse(c, sid, [{"type": "text", "text": "/compact keep the API design"}])
        assert answer["result"] == {"stopReason": "end_turn"}
        c.result("session/list", {})
        commands = next(
            u for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "available_commands_update"
        )
        assert c.close() == 0
    assert "compact" in [x["name"] for x in commands["availableCommands"]]
    summary = bodies(server)[2]
    assert summary["messages"][-1]["content"].endswith("The user asks: keep the API design")
    assert [m["content"] for m in summary["messages"][1:-1]] == ["design the API", "one"]
    stream = updates_of(c.notes, sid)
    done = [
        u
        for u in stream
        if u["sessionUpdate"] == "compaction_update" and u["status"] == "completed"
    ]
    assert done and done[0]["summary"][0]["text"] == "Kept: the API design."
    usage = [u for u in stream if u["sessionUpdate"] == "usage_update"]
    assert usage[-1]["used"] < usage[-2]["used"] + 1000  # measured again after it


def test_slash_compact_with_nothing_to_compact_says_so(tmp_path: Path) -> None:
    with Server() as server:
        c = client(tmp_path, server)
        sid = start(c)
        answer = converse(c, sid, [{"type": "text", "text": "/compact"}])
        assert answer["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
        assert server.bodies == []
    texts = [
        u["content"]["text"]
        for u in updates_of(c.notes, sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert any(t.startswith("Nothing to compact yet") for t in texts)


def test_the_context_meter_is_one_measure_after_a_turn_and_after_a_compact(
    tmp_path: Path,
) -> None:
    """`usage_update.used` is one measure, the provider's count, after a turn and after
    `/compact` alike (scaled by how the compaction changed the context): a `/compact` that
    leaves the history as it was (its summary request failed) leaves the meter where it was."""
    refused = json.dumps({"error": {"message": "summaries are not served today"}}).encode()
    with Server() as server:
        server.behaviours.extend([text_stream("one", 1234), *[(400, refused)] * 3])
        c = client(tmp_path, server)
        sid = start(c)
        for text in ("first", "/compact"):
            converse(c, sid, [{"type": "text", "text": text}])
        assert c.close() == 0
        assert len(server.bodies) >= 2, "a summary was asked for"
    used = [u["used"] for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "usage_update"]
    assert len(used) == 2 and used[0] == used[1], used
    assert used[0] == 1234 + 10, "the count is the provider's"


def test_too_long_for_the_provider_compacts_once_and_tries_the_same_request_again(
    tmp_path: Path,
) -> None:
    too_long = json.dumps({"error": {"message": "This model's maximum context length is 4096"}})
    config = '[context.windows]\n"openai/m1" = 200000\n'  # the gauge sees no reason to compact
    with Server() as server:
        server.behaviours.extend(
            [
                text_stream("one"),
                text_stream("two"),
                (400, too_long.encode()),
                text_stream("SUMMARY."),
                text_stream("three"),
                (400, too_long.encode()),
                text_stream("SUMMARY again."),
                (400, too_long.encode()),
            ]
        )
        c = client(tmp_path, server, config)
        sid = start(c)
        for text in ("a", "b", "c"):
            assert converse(c, sid, [{"type": "text", "text": text}])["result"] == {
                "stopReason": "end_turn"
            }
        failed = converse(c, sid, [{"type": "text", "text": "d"}])
        # Still a live session: it answers the next request.
        assert c.result("session/list", {})["sessions"]
        assert c.close() == 0
    sent = bodies(server)
    assert sent[3]["messages"][-1]["content"].startswith("[Compaction]")
    assert sent[4]["messages"][-1] == sent[2]["messages"][-1]  # the same request, compacted
    assert failed["error"]["code"] == -32603
    assert (
        "/compact" in failed["error"]["message"]
        and "maximum context length" in failed["error"]["message"]
    )


def test_a_cancel_during_the_summary_cancels_the_compaction(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend([text_stream("one"), text_stream("two"), text_stream("three")])
        c = client(tmp_path, server)
        sid = start(c, CAPABLE)
        for letter in "abc":
            converse(c, sid, words(2000, letter))
        server.behaviours.append("hang")  # the summary request gets no answer
        server.behaviours.extend([text_stream("SUMMARY."), text_stream("four")])
        c._id += 1
        prompt_id = c._id
        c.send(
            {
                "jsonrpc": "2.0",
                "id": prompt_id,
                "method": "session/prompt",
                "params": {"sessionId": sid, "prompt": words(2000, "d")},
            }
        )
        while True:
            frame = c.agent.receive()
            c.notes.append(frame)
            update = frame.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "compaction_update":
                break
        time.sleep(0.2)
        c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        while (frame := c.agent.receive()).get("id") != prompt_id:
            c.notes.append(frame)
        assert frame["result"] == {"stopReason": "cancelled"}
        server.lingering.set()
        # The history is as it was: the next prompt compacts (the same part) and goes on.
        again = converse(c, sid, words(2000, "e"))
        assert again["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    statuses = [
        u["status"] for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "compaction_update"
    ]
    assert statuses[:2] == ["in_progress", "cancelled"]
    assert statuses[-1] == "completed"


def test_a_kill_during_the_summary_leaves_the_history_uncompacted(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend([text_stream("one"), text_stream("two"), text_stream("three")])
        server.behaviours.append("hang")  # the summary request gets no answer
        c = client(tmp_path, server)
        sid = start(c, CAPABLE)
        for letter in "abc":
            converse(c, sid, words(2000, letter))
        c._id += 1
        c.send(
            {
                "jsonrpc": "2.0",
                "id": c._id,
                "method": "session/prompt",
                "params": {"sessionId": sid, "prompt": words(2000, "d")},
            }
        )
        while frame := c.agent.receive():
            if frame.get("params", {}).get("update", {}).get("sessionUpdate") == (
                "compaction_update"
            ):
                break
        deadline = time.monotonic() + 10
        while len(server.bodies) < 4:  # killed once the summary request is out, not before
            assert time.monotonic() < deadline, "the summary request never came"
            time.sleep(0.01)
        c.kill()
        server.lingering.set()
        server.behaviours.extend([text_stream("SUMMARY."), text_stream("four")])
        again = Client(tmp_path, "--model", "openai/m1", scenario=c.scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": CAPABLE})
        cwd = c.scenario.vars["CWD"]
        again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        replayed = updates_of(again.take_notes(), sid)
        assert not any(u["sessionUpdate"].startswith("compaction") for u in replayed)
        answer = converse(again, sid, words(2000, "e"))
        assert answer["result"] == {"stopReason": "end_turn"}
        assert again.close() == 0
    sent = bodies(server)
    lost, retried = sent[3]["messages"], sent[4]["messages"]
    assert lost[-1]["content"].startswith("[Compaction]")
    assert retried[-1]["content"].startswith("[Compaction]")
    # The new process compacts the history again, from its own messages: nothing of the lost
    # attempt remains. (Its history is longer by the new prompt, so its cut may fall later.)
    assert not any(str(m["content"]).startswith(SUMMARY_NOTE) for m in retried)
    assert retried[2 : len(lost) - 1] == lost[2:-1]


def test_the_export_shows_the_compaction_where_it_happened(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend([text_stream("one"), text_stream("two"), text_stream("SUMM.")])
        c = client(tmp_path, server, "[context]\nkeep_turns = 1\n")
        sid = start(c)
        converse(c, sid, [{"type": "text", "text": "first"}])
        converse(c, sid, [{"type": "text", "text": "second"}])
        converse(c, sid, [{"type": "text", "text": "/compact"}])
        assert c.close() == 0
    md = acp_sessions(tmp_path, "export", sid, "--format", "markdown").stdout
    assert md.index("first") < md.index("## Compacted (2 earlier messages)") < md.index("SUMM.")
    ndjson = acp_sessions(tmp_path, "export", sid, "--format", "ndjson").stdout
    kinds = [json.loads(line)["sessionUpdate"] for line in ndjson.splitlines()]
    assert kinds.count("compaction_update") == 1 and "history" not in ndjson


def test_one_huge_tool_result_cannot_fill_the_context(tmp_path: Path) -> None:
    """A 5 MB `cat`: the model reads its start and end around a note naming the 0600 file that
    keeps it whole; the session goes on."""
    call = {
        "index": 0,
        "id": "call_cat",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "cat huge.txt"})},
    }
    cat = [
        chunk({"role": "assistant", "tool_calls": [call]}),
        chunk({}, finish="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    with Server() as server:
        server.behaviours.extend([cat, text_stream("It is long."), text_stream("Next.")])
        c = client(tmp_path, server, '[context.windows]\n"openai/m1" = 32768\n')
        huge = Path(c.scenario.vars["CWD"]) / "huge.txt"
        lines = [f"line {i:07d} of the huge file\n" for i in range(170_000)]
        huge.write_text("".join(lines), encoding="utf-8")
        sid = start(c)
        allow = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
        for text in ("show huge.txt", "and then?"):
            answer = converse(c, sid, [{"type": "text", "text": text}], lambda _: allow)
            assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert c.close() == 0
    sent = bodies(server)
    result = sent[1]["messages"][-1]
    # 32,768 tokens: a result takes at most 16 KiB (half a byte per token), plus the note
    assert result["role"] == "tool" and len(result["content"].encode()) < 16_384 + 300
    assert result["content"].startswith("line 0000000 of the huge file")
    # The files the cuts name (the command's own cut, then the model's) are 0600, and one of
    # them holds the output whole.
    named = [Path(p) for p in re.findall(r"is in (\S+?)\]", result["content"])]
    assert named and all(p.stat().st_mode & 0o777 == 0o600 for p in named)
    assert huge.read_text(encoding="utf-8") in [p.read_text(encoding="utf-8") for p in named]
    assert len(sent[2]["messages"]) == len(sent[1]["messages"]) + 2  # no compaction needed


@pytest.mark.parametrize(
    "capabilities",
    [CAPABLE, {"session": {"notices": {}}}, {}],
    ids=["compaction", "notices", "neither"],
)
def test_a_failed_compaction_is_said_once_and_changes_nothing(
    tmp_path: Path, capabilities: dict[str, Any]
) -> None:
    refused = json.dumps({"error": {"message": "the summary model is down"}}).encode()
    with Server() as server:
        server.behaviours.extend(
            # refused as the history is, then as its text (turn/compaction.py)
            [
                text_stream("one"),
                text_stream("two"),
                (400, refused),
                (400, refused),
                text_stream("three"),
            ]
        )
        c = client(tmp_path, server, "[context]\nkeep_turns = 1\n")
        sid = start(c, capabilities)
        converse(c, sid, [{"type": "text", "text": "first"}])
        converse(c, sid, [{"type": "text", "text": "second"}])
        answer = converse(c, sid, [{"type": "text", "text": "/compact"}])
        assert answer["result"] == {"stopReason": "end_turn"}
        converse(c, sid, [{"type": "text", "text": "third"}])
        assert c.close() == 0
    stream = updates_of(c.notes, sid)
    failed = [u for u in stream if u.get("status") == "failed"]
    notices = [u for u in stream if u["sessionUpdate"] == "notice"]
    warned = [u for u in stream if "[warning] compaction failed" in json.dumps(u)]
    if capabilities is CAPABLE:
        assert len(failed) == 1 and "the summary model is down" in failed[0]["error"]
        assert not notices and not warned
    elif "notices" in capabilities.get("session", {}):
        assert not failed and not warned
        assert [n["title"] for n in notices] == ["Compaction failed"]
    else:
        assert not failed and not notices and len(warned) == 1
    said = [u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_message_chunk"]
    assert any(t.startswith("Compaction failed: ") for t in said)  # the answer to /compact
    # The history is as it was: the next request holds every message.
    last = bodies(server)[-1]["messages"]
    assert [m["content"] for m in last[1:]] == ["first", "one", "second", "two", "third"]
