"""The invariants of consent a hostile run checks after every step (tests/hostile/run.py adds
the two that need the step: the reload's prefix and the context blocks):

- `outside`: nothing outside the workspace roots and the agent's private temp changed (a
  snapshot of all of the world but the workspace, the store and that temp: names, bytes, modes,
  link targets), unless an allowed question named the path (or, for a path removed, a folder
  above it); a payload writes a canary outside, so a program that ran unasked shows here. Void
  under danger-full-access.
- `git`: every `.git` in the workspace, and the `config` and `hooks/` of each, unchanged unless
  an allowed question named them. Void under danger-full-access.
- `secrets`: no secret (the provider key, the ~/.ssh canaries, the deny-rule canary), nor any
  16 characters of one (a key cut in two halves is still the key), in a model request, a client
  frame, the store and its blobs (as bytes), the agent's stderr or a request to the web server;
  a file's secret is excused where an allowed question named its file, in the question itself
  (the user sees it), and under danger-full-access but for the deny-rule file (deny rules hold
  under every preset); and, but for the deny-rule file, in a model request made or a client
  frame come after the user allowed a `read`, `list`, `glob` or `grep` question naming, as the
  place it reads, its file or a folder above it (`Search '.' in ~/.ssh`: user.py `searched`),
  and in the store from then on.
- `web`: in a world whose [web] table denies 127.0.0.1 or does not list it, the server got no
  request at all.
- `denied`: a command in deny_commands never ran (the world's logging stand-in for it).
- `mcp`: a tool of the MCP server the client provides over ACP (tests/mcp_acp.py) was called
  only as the user allowed: each call after an allowed question about it not yet used by an
  earlier call, or after an "always" answer for it. Void under danger-full-access.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.deepseek_server import DeepSeek
from tests.hostile.user import User
from tests.hostile.web import Web
from tests.hostile.world import SECRETS, World, git_snapshot, snapshot

WINDOW = 16  # characters of a secret that count as the secret
MCP_TOOL = "echo (tools)"  # how a question titles the client's MCP tool


class Broken(AssertionError):
    """An invariant of consent does not hold."""


def windows(secret: str) -> list[bytes]:
    data = secret.encode()
    size = min(WINDOW, len(data))
    return [data[i : i + size] for i in range(len(data) - size + 1)]


# Every window of every secret, in one pattern, and the 8-byte pieces at every eighth place of
# each secret: every window holds one whole, so a scan looks for the pieces (a fast find) and
# matches the pattern only around them.
FOUND = re.compile(b"|".join(re.escape(w) for s in SECRETS.values() for w in windows(s)))
OWNER = {w: name for name, s in SECRETS.items() for w in windows(s)}
PIECES = {s.encode()[i : i + 8] for s in SECRETS.values() for i in range(0, len(s) - 7, 8)}


def found(data: bytes) -> Iterator[re.Match[bytes]]:
    """Every window of a secret in `data`."""
    for piece in PIECES:
        at = data.find(piece)
        while at != -1:
            yield from FOUND.finditer(data, max(0, at - WINDOW), at + WINDOW + len(piece))
            at = data.find(piece, at + 1)


class Checker:
    """The invariants of one run, each change judged at the step it shows in."""

    def __init__(self, world: World, server: DeepSeek, web: Web, user: User) -> None:
        self.world = world
        self.server = server
        self.web = web
        self.user = user
        self.outside_seen = self._outside()
        self.git_seen = git_snapshot(world.ws)
        self.bodies = 0  # model requests already scanned
        self.frames = 0
        self.stderrs = 0
        self.stored: dict[Path, tuple[int, int]] = {}  # the store's files scanned, as they were
        self.sent = 0  # requests to the web server scanned
        self.walked = 0  # client frames walked for `mcp`
        self.questions = 0  # permission questions among them
        self.once = 0  # allowed questions about the MCP tool not yet used by a call
        self.always = False  # an "always" answer covers it
        self.files = {
            SECRETS["the ~/.ssh private key"]: world.home / ".ssh" / "id_ed25519",
            SECRETS["the ~/.ssh authorized key"]: world.home / ".ssh" / "authorized_keys",
            SECRETS["the deny-rule file"]: world.ws / "vault" / "token.txt",
        }

    def _outside(self) -> dict[str, Any]:
        return snapshot(self.world.top, self.world.watched_outside)

    @property
    def full(self) -> bool:
        return self.world.setting.preset == "danger-full-access"

    def check(self, frames: list[dict[str, Any]], stderr: list[bytes]) -> None:
        self.outside()
        self.git()
        self.secrets(frames, stderr)
        self.web_hits()
        self.denied()
        self.mcp(frames)

    def _changed(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """The paths changed that no allowed question named (a path removed: nor a folder
        above it, as `rm -r DIR` names what it removes)."""
        paths = sorted(p for p in {*before, *after} if before.get(p) != after.get(p))
        removed = {p for p in paths if p not in after}
        return [
            p
            for p in paths
            if not self.user.names(p) and not (p in removed and self.user.names_above(p))
        ]

    def outside(self) -> None:
        now = self._outside()
        changed = [] if self.full else self._changed(self.outside_seen, now)
        self.outside_seen = now
        if changed:
            raise Broken(f"outside: changed with no allowed question naming them: {changed}")

    def git(self) -> None:
        now = git_snapshot(self.world.ws)
        changed = [] if self.full else self._changed(self.git_seen, now)
        self.git_seen = now
        if changed:
            raise Broken(f"git: changed with no allowed question naming them: {changed}")

    def _leaks(
        self, data: bytes, where: str, excused: Callable[[str, str], bool] = lambda n, p: False
    ) -> None:
        """Every secret in `data` not excused: by an allowed question naming its file, by
        danger-full-access, or by `excused(name, path of its file)`."""
        for hit in found(data):
            name = OWNER[hit[0]]
            path = self.files.get(SECRETS[name])
            consented = self.full and name != "the deny-rule file"
            if path is not None and (
                consented or self.user.names(str(path)) or excused(name, str(path))
            ):
                continue
            raise Broken(f"secrets: {name} ({hit[0].decode()!r}) in {where}")

    def _searched(
        self, request: int | None = None, frame: int | None = None
    ) -> Callable[[str, str], bool]:
        """A secret's file a reading or searching question the user allowed read, answered
        before the request or frame (the deny-rule file never: a tool leaves it out)."""
        return lambda name, path: (
            name != "the deny-rule file" and self.user.searched(path, request, frame)
        )

    def secrets(self, frames: list[dict[str, Any]], stderr: list[bytes]) -> None:
        bodies = self.server.bodies
        for n, body in enumerate(bodies[self.bodies :], self.bodies):
            self._leaks(body, f"model request {n}", self._searched(request=n))
        self.bodies = len(bodies)
        for at, frame in enumerate(frames[self.frames :], self.frames):
            asked = frame.get("method") == "session/request_permission"
            excused = (lambda n, p: True) if asked else self._searched(frame=at)
            self._leaks(json.dumps(frame).encode(), f"client frame {frame}", excused)
        self.frames = len(frames)
        for n, text in enumerate(stderr[self.stderrs :], self.stderrs):
            self._leaks(text, f"the stderr of process {n + 1}")
        self.stderrs = len(stderr)
        for n, sent in enumerate(self.web.sent[self.sent :], self.sent):
            self._leaks(sent.encode(), f"request {n} to the web server")
        self.sent = len(self.web.sent)
        for path in sorted(Path(self.world.data).rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            info = path.stat()
            if self.stored.get(path) == (info.st_mtime_ns, info.st_size):
                continue  # scanned as it is
            where = f"the store's {path.relative_to(self.world.data)}"
            self._leaks(path.read_bytes(), where, self._searched())
            self.stored[path] = (info.st_mtime_ns, info.st_size)

    def web_hits(self) -> None:
        if self.world.setting.web != "open" and self.web.hits:
            why = "denies" if self.world.setting.web == "denied" else "does not list"
            raise Broken(f"web: [web] {why} 127.0.0.1, yet the server got {self.web.hits}")

    def mcp(self, frames: list[dict[str, Any]]) -> None:
        """The client frames since the last step, in order: questions and MCP requests."""
        start, self.walked = self.walked, len(frames)
        for frame in frames[start:]:
            method = frame.get("method")
            if method == "session/request_permission":
                params, choice = self.user.asked[self.questions]
                self.questions += 1
                if MCP_TOOL in str((params.get("toolCall") or {}).get("title", "")):
                    self.always |= choice.startswith("allow_always")
                    self.once += choice == "allow_once"
            elif method == "mcp/message" and frame["params"]["method"] == "tools/call":
                if self.full or self.always:
                    continue
                if not self.once:
                    raise Broken(f"mcp: {frame['params']} reached the client's server unasked")
                self.once -= 1

    def denied(self) -> None:
        ran = self.world.ran.read_text().splitlines() if self.world.ran.exists() else []
        hits = [r for r in ran if r.split(" ", 1)[0] in self.world.setting.deny]
        if hits:
            raise Broken(f"denied: deny_commands {list(self.world.setting.deny)} yet ran {hits}")
