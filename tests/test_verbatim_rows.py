"""Transcript rows a load sends as stored (src/reasonix_acp/session/verbatim.py).

- Property (hypothesis; VERBATIM_EXAMPLES examples, 300 unless set; the seed is printed and
  VERBATIM_SEED=N replays it): for any `tool_call_update` body, the row the store writes is
  either marked and then read back without decoding as its call id and status, with a frame
  byte for byte what encoding the decoded body writes; or unmarked, when its shape is not one a
  load may send as stored. A marked row changed in any one character is decoded.
- Through a real `acp`: a session's tool output rows are stored marked and its load replays
  what the live turn showed; a row changed behind the agent's back (a different object, a torn
  one) is decoded, so the load replays the edit, or skips the torn row with a warning (and
  ends the call it no longer sees ended, as for any interrupted call).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import zlib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.protocol.framing import encode, notification
from reasonix_acp.session import verbatim
from reasonix_acp.session.projector import updates, well_formed
from reasonix_acp.session.store_rows import DB_NAME, stored_text, undecoded
from tests.client import Client
from tests.test_sessions import GOLDEN, updates_of

EXAMPLES = int(os.environ.get("VERBATIM_EXAMPLES", "300"))
SEED = int(os.environ.get("VERBATIM_SEED", str(random.SystemRandom().randrange(1 << 32))))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
print(f"VERBATIM_SEED={SEED}")

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["", "a\nb", '"quoted"', "\\", '{"x-a":1}', "é漢\u2028", '"status":"completed"']
)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
keys = texts | st.sampled_from(["x-model-text", "x-", "status", "content", "title"])


@st.composite
def bodies(draw: Any) -> dict[str, Any]:
    """A tool_call_update body: often the shape a load may send as stored, sometimes not (no
    id first, a status elsewhere or not a string, a private key)."""
    body: dict[str, Any] = {}
    if draw(st.booleans()):
        body["toolCallId"] = draw(texts)
    if draw(st.booleans()):
        body["status"] = draw(st.sampled_from(["completed", "failed", "in_progress"]) | texts)
    if draw(st.booleans()):
        body["content"] = [{"type": "content", "content": {"type": "text", "text": draw(texts)}}]
    for key, value in draw(st.dictionaries(keys, values, max_size=3)).items():
        body.setdefault(key, value)
    if draw(st.booleans()) and body:  # keys in another order
        order = draw(st.permutations(list(body)))
        body = {key: body[key] for key in order}
    return body


def frame(session_id: str, update: dict[str, Any]) -> bytes:
    return encode(notification(SESSION_UPDATE, {"sessionId": session_id, "update": update}))


def may_send_as_stored(body: dict[str, Any]) -> bool:
    keys = list(body)
    return (
        bool(keys)
        and keys[0] == "toolCallId"
        and type(body["toolCallId"]) is str
        and ("status" not in body or (keys[1] == "status" and type(body["status"]) is str))
        and not any(key.startswith("x-") for key in keys)
        and well_formed("tool_call_update", body)  # what a load checks of a decoded row
    )


@seed(SEED)
@SETTINGS
@given(bodies(), st.data())
def test_a_marked_row_reads_back_as_its_frame_and_any_change_is_decoded(
    body: dict[str, Any], data: Any
) -> None:
    text = stored_text("tool_call_update", body)
    sendable = may_send_as_stored(body)
    mark = f',"x-crc":{zlib.crc32(text[: text.rfind(",")].encode())}}}'
    assert text.endswith(mark) == sendable, f"VERBATIM_SEED={SEED}"
    assert json.loads(text) == (
        {**body, "x-crc": json.loads(text)["x-crc"]} if sendable else body
    ), f"VERBATIM_SEED={SEED}"
    read = undecoded("tool_call_update", text)
    if not sendable:
        assert read is None, f"VERBATIM_SEED={SEED}"
        return
    assert type(read) is verbatim.Verbatim, f"VERBATIM_SEED={SEED}"
    assert dict(read) == {k: body[k] for k in ("toolCallId", "status") if k in body}
    assert read.decoded() == body
    [update] = updates("tool_call_update", read)
    expected = frame("s-1", {"sessionUpdate": "tool_call_update", **body})
    assert verbatim.frame({}, "s-1", update) == expected, f"VERBATIM_SEED={SEED}"
    assert update.decoded() == json.loads(expected)["params"]["update"]
    # one character changed anywhere (a damaged or edited row): decoded, never sent as stored
    at = data.draw(st.integers(0, len(text) - 1))
    other = data.draw(st.characters(blacklist_categories=("Cs",)).filter(lambda c: c != text[at]))
    assert undecoded("tool_call_update", text[:at] + other + text[at + 1 :]) is None
    assert undecoded("tool_call", text) is None  # only tool_call_update rows


def _tool_session(tmp: Path) -> tuple[Client, str, list[dict[str, Any]]]:
    """A closed session of two turns with tool calls; what its turns showed live."""
    script = str(GOLDEN / "scripts" / "tool_round.jsonl")
    live = Client(tmp, "--model", "offline", "--script", script)
    sid = live.start()
    live.take_notes()
    for text in ("Plan the work", "Use a tool that is not there"):
        live.result(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        )
    shown = [
        u for u in updates_of(live.take_notes(), sid) if u["sessionUpdate"] == "tool_call_update"
    ]
    assert live.close() == 0
    return live, sid, shown


def _load(tmp: Path, live: Client, sid: str) -> tuple[list[dict[str, Any]], bytes]:
    again = Client(tmp, "--model", "offline", scenario=live.scenario)
    again.result("initialize", {"protocolVersion": 1})
    cwd = live.scenario.vars["CWD"]
    again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    replay = updates_of(again.take_notes(), sid)
    assert again.close() == 0
    return [u for u in replay if u["sessionUpdate"] == "tool_call_update"], again.agent.stderr


def test_tool_output_rows_are_stored_marked_and_replay_as_shown(tmp_path: Path) -> None:
    live, sid, shown = _tool_session(tmp_path)
    db = sqlite3.connect(Path(live.scenario.vars["DATA"]) / DB_NAME)
    rows = db.execute(
        "SELECT kind, body FROM events WHERE session_id = ? ORDER BY seq", (sid,)
    ).fetchall()
    db.close()
    marked = [kind for kind, body in rows if '"x-crc":' in body]
    assert marked == ["tool_call_update"] * len(shown) and len(shown) == 2
    replayed, _ = _load(
        tmp_path, live, sid
    )  # the agent runs with REASONIX_ACP_DEBUG: frames checked
    assert replayed == shown


def test_a_marked_row_changed_behind_the_agents_back_is_decoded(tmp_path: Path) -> None:
    live, sid, shown = _tool_session(tmp_path)
    db = sqlite3.connect(Path(live.scenario.vars["DATA"]) / DB_NAME)
    first, second = db.execute(
        "SELECT seq, body FROM events WHERE session_id = ? AND kind = 'tool_call_update' "
        "ORDER BY seq",
        (sid,),
    ).fetchall()
    edited = json.loads(first[1])
    edited["status"] = "failed"  # another object, its mark kept: the mark no longer fits
    db.execute("UPDATE events SET body = ? WHERE seq = ?", (json.dumps(edited), first[0]))
    db.execute("UPDATE events SET body = ? WHERE seq = ?", (second[1][:-9], second[0]))  # torn
    db.commit()
    db.close()
    replayed, stderr = _load(tmp_path, live, sid)
    assert shown[0]["status"] != "failed"
    del edited["x-crc"]  # a private key: never sent
    assert replayed[0] == {"sessionUpdate": "tool_call_update", **edited}
    # the torn row is skipped, so its call reads as unfinished and the load ends it
    [(closed, status, said)] = [
        (u["toolCallId"], u["status"], u["content"][0]["content"]["text"]) for u in replayed[1:]
    ]
    assert (closed, status) == (shown[1]["toolCallId"], "failed") and "interrupted" in said
    assert f"transcript row {second[0]} is corrupt".encode() in stderr
