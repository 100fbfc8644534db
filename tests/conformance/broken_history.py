"""The conversations of broken_reasonix.py's sessions: each turn asks the scripted model at
SCRIPTED_MODEL (broken_model.py), offering a `write` tool it runs itself on the disk, and keeps
the messages the model was sent turn by turn, with the ids of the messages its chunks named and
what each file it wrote held before. A fork or a rewind at a message id (the reply that ends a
turn, inclusive) keeps the turns up to it; a rewind puts back the files of the turns after it.
Sessions are made, listed, loaded (each turn's prompt and reply replayed) and forked here too.
Correct by default; the faults (BREAK) it knows:

  fork-msg-broken   a fork answers with the source's id in the wrong shape, and a refused one
                    creates a session all the same
  fork-msg-unserved a fork cannot be prompted (an unknown session)
  msg-all           a fork at a message copies every turn; a rewind to one goes back over all
  msg-none          a fork at a message copies no turn; a rewind to one goes back over none
  msg-lax           any message id is a point: a user's prompt, an unknown id (the last turn),
                    the last turn's reply (a rewind of nothing)
  msg-reworded      the turns a fork or a rewind keeps are sent the model with their reply
                    reworded
"""

from __future__ import annotations

import json
import os
import uuid

from broken_model import ask_model

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
SYSTEM = {"role": "system", "content": "You are a small agent the conformance runner tests."}
WRITE = {
    "type": "function",
    "function": {
        "name": "write",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
}
ROUNDS = 8  # model requests a turn makes at most
SAID_ALONE = "On it."  # the reply of a turn that reached no model


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class Turn:
    """One turn as kept: its prompt, the ids of the user's message and of the reply that ends
    it, the reply, the messages of the turn (the user's, the model's and the tools', in order)
    and each file it wrote as it was before (a plain class: dataclasses costs a start-up)."""

    def __init__(
        self,
        prompt: str,
        user_id: str,
        reply_id: str,
        reply: str,
        messages: list[dict[str, Any]],
        before: dict[str, str | None] | None = None,
    ) -> None:
        self.prompt, self.user_id, self.reply_id, self.reply = prompt, user_id, reply_id, reply
        self.messages = messages
        self.before: dict[str, str | None] = {} if before is None else before


def _write(path: str, content: str, before: dict[str, str | None]) -> str:
    if path not in before:
        try:
            with open(path, encoding="utf-8") as f:
                before[path] = f.read()
        except OSError:
            before[path] = None
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
    except OSError as exc:
        return f"not written: {exc}"
    return f"wrote {path}"


def _run(call: dict[str, Any], before: dict[str, str | None]) -> dict[str, Any]:
    function = call.get("function") or {}
    try:
        args = json.loads(function.get("arguments") or "{}")
    except ValueError:
        args = {}
    if function.get("name") == "write" and isinstance(args, dict):
        said = _write(str(args.get("path", "")), str(args.get("content", "")), before)
    else:
        said = f"no tool {function.get('name')!r}"
    return {"role": "tool", "tool_call_id": call.get("id"), "content": said}


def _reworded(turn: Turn) -> Turn:
    """The turn with its reply said otherwise to the model (BREAK msg-reworded)."""
    messages = [*turn.messages[:-1], {**turn.messages[-1], "content": f"{turn.reply} (kept)"}]
    return Turn(turn.prompt, turn.user_id, turn.reply_id, turn.reply, messages, turn.before)


class Conversation:
    def __init__(self, turns: list[Turn] | None = None) -> None:
        self.turns = turns or []

    def ask(self, prompt: str | None) -> Turn:
        """A turn for `prompt`: the model asked until it answers with text, its writes made.
        Safe off the main thread: it reads the turns, and the caller adds the one it makes."""
        before: dict[str, str | None] = {}
        said = [{"role": "user", "content": prompt or ""}]
        history = [SYSTEM, *(m for t in self.turns for m in t.messages)]
        reply = None
        for _ in range(ROUNDS if prompt else 0):
            message = ask_model([*history, *said], [WRITE])
            if message is None:
                break
            calls = message.get("tool_calls") or []
            said.append(
                {
                    "role": "assistant",
                    "content": message.get("content"),
                    **({"tool_calls": calls} if calls else {}),
                }
            )
            if not calls:
                reply = str(message.get("content") or "")
                break
            said += [_run(call, before) for call in calls]
        if reply is None:
            reply = SAID_ALONE
            said.append({"role": "assistant", "content": reply})
        ids = str(uuid.uuid4()), str(uuid.uuid4())
        return Turn(prompt or "", ids[0], ids[1], reply, said, before)

    def point(self, method: str, given: Any) -> int:
        """The index of the turn whose reply ends with message `given` (-32602 otherwise)."""
        if type(given) is not str or not given:
            raise Refused(-32602, f"{method}: messageId must be a message id")
        for index, turn in enumerate(self.turns):
            if turn.reply_id == given:
                return index
            if turn.user_id == given and "msg-lax" not in BREAK:
                raise Refused(-32602, f"{method}: message {given} is the user's prompt")
        if "msg-lax" in BREAK:
            return len(self.turns) - 1
        raise Refused(-32602, f"{method}: no message {given} in this session")

    def kept(self, index: int) -> list[Turn]:
        """The turns a fork or rewind at turn `index` keeps (BREAK msg-all, msg-none)."""
        count = index + 1
        if "msg-all" in BREAK:
            count = len(self.turns)
        if "msg-none" in BREAK:
            count = 0
        turns = self.turns[:count]
        return [_reworded(t) for t in turns] if "msg-reworded" in BREAK else turns

    def fork(self, method: str, meta: Any) -> Conversation:
        """A copy, up to the reply `_meta["reasonix.io"].messageId` names if it names one."""
        ours = meta.get("reasonix.io") if isinstance(meta, dict) else None
        if not isinstance(ours, dict) or "messageId" not in ours:
            return Conversation(list(self.turns))
        return Conversation(self.kept(self.point(method, ours["messageId"])))

    def rewind(self, method: str, given: Any) -> dict[str, Any]:
        """Back to just after message `given`, the later turns' files put back; → the rewind's
        answer but its sessionId."""
        index = self.point(method, given)
        if index == len(self.turns) - 1 and "msg-lax" not in BREAK:
            raise Refused(-32602, f"{method}: message {given} ends the last turn: nothing to undo")
        if "msg-all" in BREAK:
            index = -1
        if "msg-none" in BREAK:
            index = len(self.turns) - 1
        gone = self.turns[index + 1 :]
        self.turns = self.kept(index) if "msg-reworded" in BREAK else self.turns[: index + 1]
        restored, removed = self.put_back(gone)
        return {"keptAs": str(uuid.uuid4()), "prompts": len(gone), "restored": restored,
                "removed": removed, "left": [], "untracked": []}  # fmt: skip

    def put_back(self, gone: list[Turn]) -> tuple[list[str], list[str]]:
        restored, removed = [], []
        for turn in reversed(gone):
            for path, text in turn.before.items():
                if text is None:
                    if os.path.exists(path):
                        os.remove(path)
                    removed.append(path)
                else:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                    restored.append(path)
        return sorted(set(restored)), sorted(set(removed) - set(restored))

    def replay(self, sid: str) -> list[dict[str, Any]]:
        """The session/update notifications a load replays: each turn's prompt and reply."""
        updates = []
        for turn in self.turns:
            for kind, message, text in (
                ("user_message_chunk", turn.user_id, turn.prompt),
                ("agent_message_chunk", turn.reply_id, turn.reply),
            ):
                update = {"sessionUpdate": kind, "messageId": message,
                          "content": {"type": "text", "text": text}}  # fmt: skip
                updates.append({"jsonrpc": "2.0", "method": "session/update",
                                 "params": {"sessionId": sid, "update": update}})  # fmt: skip
        return updates


class Sessions:
    """session/new, session/list, session/load and session/fork, over sessions that each have
    an `id`, a `cwd` and a `conversation` (broken_reasonix.py's Agent makes them)."""

    def __init__(self) -> None:
        self.sessions: dict[str, Any] = {}

    def make(self, cwd: str) -> Any:
        raise NotImplementedError

    def open(self, cwd: str, conversation: Conversation | None = None) -> Any:
        session = self.make(cwd)
        session.conversation = conversation or session.conversation
        self.sessions[session.id] = session
        return session

    def new(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"sessionId": self.open(p["cwd"]).id}

    def listed(self, p: dict[str, Any]) -> dict[str, Any]:
        found = [s for s in self.sessions.values() if s.cwd == p.get("cwd", s.cwd)]
        return {"sessions": [{"sessionId": s.id, "cwd": s.cwd} for s in found]}

    def load(self, session: Any, send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        for update in session.conversation.replay(session.id):
            send(update)
        return {}

    def fork(self, source: Any, p: dict[str, Any]) -> dict[str, Any]:
        """A copy of the source's conversation, up to the reply a message id names."""
        try:
            conversation = source.conversation.fork("session/fork", p.get("_meta"))
        except Refused:
            if "fork-msg-broken" in BREAK:
                self.open(p["cwd"], Conversation(list(source.conversation.turns)))
            raise
        fork = self.open(p["cwd"], conversation)
        if "fork-msg-unserved" in BREAK:
            del self.sessions[fork.id]
        if "fork-msg-broken" in BREAK:
            return {"sessionId": source.id, "modes": "normal"}
        return {"sessionId": fork.id}
