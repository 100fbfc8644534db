"""One hostile run, and the state machine hypothesis drives it with.

`Run` builds the world, starts the web server, the DeepSeek stand-in and a real `acp`, plays
each move (a turn's calls queued as the model's reply, `task` children's calls queued under
their task's key, client actions sent as a client sends them) and checks every invariant after
it: the checker's (invariants.py), and the two that need the step:

- `reload`: after a reload, the next model request starts with the bytes the live session
  would have sent (the last request before the reload, but its closing: tests/test_deepseek.py
  `stable`), unless a rewind or a compaction rewrote the history in between; its system message
  may differ only where an AGENTS.md changed (each opening reads them);
- `context`: every context block's user text, and the typed text, reach the model in what the
  turn says as the user; a block that does not reach it whole leaves a note naming AGENTS.md.

`machine(settings, weights, base)` is a RuleBasedStateMachine whose first rule draws the
world's `Setting` and whose every other step is one move drawn by `moves(weights)`.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import traceback
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.deepseek_server import DeepSeek, common_prefix
from tests.hostile.invariants import Broken, Checker
from tests.hostile.moves import (
    Block,
    Call,
    Compact,
    Context,
    Move,
    Reload,
    Rewind,
    Turn,
    moves,
    spelled,
)
from tests.hostile.player import Player
from tests.hostile.user import User
from tests.hostile.web import Web
from tests.hostile.world import AGENTS_MD, Setting, World
from tests.test_deepseek import stable

NOTE_MARK = "AGENTS.md"
STATUS = "_reasonix.io/session/status"


class Run:
    """A world, its servers, the agent and the user, and the state the step checks need."""

    def __init__(self, setting: Setting, top: Path) -> None:
        self.world = World(top, setting)
        self.world.build()
        self.web = Web().__enter__()
        self.server = DeepSeek().__enter__()
        self.user = User(setting.policy, setting.grants, self.world.ws, self.world.home)
        self.player = Player(self.world, self.server, self.user)
        self.user.requests = lambda: len(self.server.bodies)
        self.user.frames = lambda: len(self.player.frames)
        self.checker = Checker(self.world, self.server, self.web, self.user)
        self.prompts = 0
        self.tasks = 0
        self.last_main: int | None = None  # the last request of the last model turn
        self.pending: int | None = None  # that request, when a reload came after it
        self.loaded_with = self.instructions()  # AGENTS.md when the process opened the session
        self.opened_with = self.loaded_with  # ... and when the process of `pending` did

    def spell(self, value: Any) -> Any:
        port = str(self.web.port)
        return spelled(value, lambda text: self.world.spell(text).replace("@PORT@", port))

    def _reply(self, calls: tuple[Call, ...]) -> dict[str, Any]:
        made = []
        for c in calls:
            arguments = self.spell(c.args())
            if c.name == "task":
                self.tasks += 1
                key = f"TASK-{self.tasks}"
                arguments["prompt"] = f"{key}: {arguments['prompt']}"
                self.server.tasks[key] = deque([self._reply(c.child)])
            made.append({"name": c.name, "arguments": arguments})
        return {"thought": "Doing it.", "tool_calls": made}

    def play(self, move: Move) -> None:
        start = len(self.server.bodies)
        if isinstance(move, Turn):
            self.server.replies.extend(
                [self._reply(move.calls), {"thought": "Done it.", "text": "Done."}]
            )
            self._turn(self.player.text(f"step {self.prompts}"), start)
            if any(c.args().get("run_in_background") for c in move.calls):
                self._settled()
        elif isinstance(move, Context):
            self._context(move, start)
        elif isinstance(move, Rewind):
            self.last_main = self.pending = None
            if move.slash:
                self.player.text(f"/rewind {move.prompts}")
            else:
                self.player.rewind(move.prompts, move.force)
        elif isinstance(move, Compact):
            self.last_main = self.pending = None
            self.player.text("/compact")
        elif isinstance(move, Reload):
            if self.pending is None:
                self.pending, self.opened_with = self.last_main, self.loaded_with
            self.player.reload(move.kill)
            self.loaded_with = self.instructions()
        self.server.replies.clear()
        self.server.tasks.clear()

    def _settled(self) -> None:
        """Wait (2 s at most) until no background command runs, so that what a later read
        finds does not depend on the machine's speed."""
        for _ in range(20):
            status = self.player.call(STATUS, {"sessionId": self.player.sid})
            if not status.get("result", {}).get("backgroundCommands"):
                return
            time.sleep(0.1)

    def _turn(self, answer: dict[str, Any], start: int) -> None:
        """After a model turn: the reload's prefix, and which request was the turn's last."""
        self.prompts += 1
        assert "result" in answer, f"a prompt failed: {answer}"
        mains = [
            n for n in range(start, len(self.server.bodies)) if not _child(self.server.bodies[n])
        ]
        if not mains:
            return
        if self.pending is not None:
            self._reloaded(self.server.bodies[self.pending], self.server.bodies[mains[0]])
            self.pending = None
        self.last_main = mains[-1]

    def _reloaded(self, before: bytes, after: bytes) -> None:
        """The first request after a reload starts with the live session's last one, but its
        closing. Else its messages are the same, but for the system one where an AGENTS.md
        changed since the live process opened the session (the instructions are read at each
        opening)."""
        live = stable(before)
        if after.startswith(live):
            return
        was, now = json.loads(before)["messages"], json.loads(after)["messages"]
        same_system = was[0] == now[0] or self.opened_with != self.instructions()
        if same_system and was[1:] == now[1 : len(was)]:
            return
        at = common_prefix(live, after)
        raise Broken(
            f"reload: the request after it is not the live one's, from byte {at}:\n"
            f"live:   {live[at - 300 : at + 300]!r}\nloaded: {after[at - 300 : at + 300]!r}"
        )

    def instructions(self) -> list[bytes | None]:
        """The AGENTS.md files a session opening reads (the user's and the workspace's), as
        they are now (None: not a readable file)."""
        found: list[bytes | None] = []
        for path in (self.world.root / "config" / "AGENTS.md", self.world.ws / "AGENTS.md"):
            try:
                found.append(path.read_bytes())
            except OSError:
                found.append(None)
        return found

    def _context(self, move: Context, start: int) -> None:
        path = str(self.world.ws / "AGENTS.md")
        blocks = [_block(b, path) for b in move.blocks] + [{"type": "text", "text": move.typed}]
        self._turn(self.player.prompt(blocks), start)
        if self.last_main is None or self.last_main < start:
            return
        first = next(
            n for n in range(start, len(self.server.bodies)) if not _child(self.server.bodies[n])
        )
        said = _said(self.server.bodies[first])
        for block in move.blocks:
            for text in (block.before, block.after):
                if text and text not in said:
                    raise Broken(f"context: the user's {text!r} did not reach the model: {said!r}")
            whole = _text_of(block, path).strip()
            if whole not in said and NOTE_MARK not in said:
                raise Broken(f"context: a block was dropped without a note: {said!r}")
        if move.typed not in said:
            raise Broken(f"context: what the user typed did not reach the model: {said!r}")

    def check(self) -> None:
        self.checker.check(self.player.frames, self.player.stderr)

    def close(self) -> None:
        try:
            if self.player.alive():
                self.player.end(kill=False)
            self.check()
        finally:
            if self.player.alive():
                self.player.client.kill()
            self.server.__exit__(None, None, None)
            self.web.__exit__(None, None, None)


@contextlib.contextmanager
def _shown(what: str) -> Iterator[None]:
    """A failure printed as it happens (with `-s`): hypothesis replays a failing run to report
    it, and a failure that depends on timing may not come back the same way, which it reports
    as flaky data generation instead."""
    try:
        yield
    except BaseException:
        print(f"\nhostile run: {what} failed:\n{traceback.format_exc()}", file=sys.stderr)
        raise


def _child(body: bytes) -> bool:
    """Whether a request is a `task` child's (its first user message opens with its key)."""
    messages = json.loads(body)["messages"]
    first = next((m for m in messages if m["role"] == "user"), {})
    return str(first.get("content", "")).startswith("TASK-")


def _said(body: bytes) -> str:
    """What a request's last turn says as the user: its user messages after the last
    assistant one (the prompt, and notes the agent adds, as of a background command ended)."""
    messages = json.loads(body)["messages"]
    last = max((n for n, m in enumerate(messages) if m["role"] == "assistant"), default=0)
    return "\n\n".join(str(m.get("content")) for m in messages[last:] if m["role"] == "user")


def _text_of(block: Block, path: str) -> str:
    agents = AGENTS_MD if block.agents else ""
    if block.framed:
        agents = f"Sharing `{path}`:\n\n---\n{agents}\n---"
    return "\n".join(p for p in (block.before, agents, block.after) if p)


def _block(block: Block, path: str) -> dict[str, Any]:
    text = _text_of(block, path) or "(empty)"
    if block.resource:
        return {"type": "resource", "resource": {"uri": Path(path).as_uri(), "text": text}}
    return {"type": "text", "text": text}


def settings_of(**fixed: Any) -> st.SearchStrategy[Setting]:
    """Settings drawn for a free run; `fixed` pins any field (a strategy or a value)."""
    from tests.hostile.payloads import POOL
    from tests.hostile.world import POLICIES, PRESETS, WEBS

    drawn: dict[str, st.SearchStrategy[Any]] = {
        "policy": st.sampled_from(POLICIES),
        "preset": st.sampled_from(PRESETS),
        "git": st.booleans(),
        "web": st.sampled_from(sorted(WEBS)),
        "deny": st.sampled_from([(), ("rm",)]),
        "grants": st.lists(st.sampled_from(POOL), unique=True, min_size=2).map(tuple),
    }
    for name, value in fixed.items():
        drawn[name] = value if isinstance(value, st.SearchStrategy) else st.just(value)
    return st.builds(Setting, **drawn)


def machine(
    settings: st.SearchStrategy[Setting], weights: dict[str, int], base: Any
) -> type[RuleBasedStateMachine]:
    """The state machine of a run: `base` makes each run's directory (pytest's factory)."""

    class Hostile(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.run: Run | None = None

        @initialize(setting=settings)
        def world(self, setting: Setting) -> None:
            self.run = Run(setting, base.mktemp("hostile"))

        @rule(move=moves(weights))
        def step(self, move: Move) -> None:
            assert self.run is not None
            with _shown(f"step {move!r}"):
                self.run.play(move)

        @invariant()
        def consent(self) -> None:
            if self.run is not None:
                with _shown("the invariants"):
                    self.run.check()

        def teardown(self) -> None:
            if self.run is not None:
                self.run.close()

    return Hostile
