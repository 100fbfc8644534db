"""The user stand-in of a hostile run: it answers `session/request_permission` by the run's
policy and remembers the exact text of every question it allowed (title, rawInput, content and
diff, locations), which is what the invariants let a change or a secret be excused by.

- `reject-all`: every question rejected (once);
- `allow-once`: every question allowed once, as shown;
- `grant-names`: "allow always" where the question offers a grant of command names all in the
  run's chosen set (the way a user grants them), or of reads or writes under a folder of the
  workspace; every other question rejected.

`names(path)` says whether an allowed question named a path: its absolute spelling, its
spelling relative to the workspace, with `~/` or through a link in the workspace, or a folder
above it so spelled and the rest of the path as a word;
`names_above(path)` whether one named a folder above it, as a word of its own;
`searched(path, request, frame)` whether an allowed question of a tool that reads or searches
(`read`, `list`, `glob`, `grep`) named, in its title and its locations, the place it read:
`path` or a folder above it, and was answered before the model request `request` was made
and before the client frame `frame` came (`Consent`: what the question consented to, and
when). The user who allows `Search '.' in ~/.ssh` lets what is under it be shown, from then on.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonix_acp.turn.gate import ADRIFT

NAMED = re.compile(r"`([^`]*)`")
SCOPE = re.compile(r"Allow (?:reads|writes) under (/.*)/\*\* for this session")


@dataclass(frozen=True)
class Consent:
    """An allowed question of a tool that reads or searches: the real place it named (in its
    title and its locations), and when it was answered."""

    place: str
    requests: int  # model requests made by then
    frames: int  # client frames come by then, the question's own included


class User:
    """Answers questions by `policy`; `allowed` holds the text of each question it allowed,
    `asked` every question's params in order (with the answer given), `consents` what each
    allowed question of a reading or searching tool let be read. `requests` and `frames` count
    the model requests made and the client frames come so far (the run sets them)."""

    def __init__(self, policy: str, grants: tuple[str, ...], ws: Path, home: Path) -> None:
        self.policy = policy
        self.grants = set(grants)
        self.ws = ws
        self.home = home
        self.allowed: list[str] = []
        self.seen: list[dict[str, list[str]]] = []  # the links as each allowed question met them
        self.asked: list[tuple[dict[str, Any], str]] = []
        self.consents: list[Consent] = []
        self.requests: Callable[[], int] = lambda: 0
        self.frames: Callable[[], int] = lambda: 0

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The result of an agent's request (only permission questions are expected)."""
        assert request["method"] == "session/request_permission", request
        params = request["params"]
        choice = self.choose(params)
        self.asked.append((params, choice))
        if choice.startswith("allow"):
            self.allowed.append(json.dumps(params.get("toolCall"), ensure_ascii=False))
            self.seen.append(self.links())
            self.consents += self._consents(params.get("toolCall"))
        return {"outcome": {"outcome": "selected", "optionId": choice}}

    def _consents(self, call: Any) -> list[Consent]:
        """What an allowed question let be read: the places a `read`, `list`, `glob` or `grep`
        question names in its locations and, spelled whole, in its title."""
        if not isinstance(call, dict) or call.get("name") not in ("read", "list", "glob", "grep"):
            return []
        title = str(call.get("title", ""))
        places = [p.get("path") for p in call.get("locations") or [] if isinstance(p, dict)]
        return [
            Consent(place, self.requests(), self.frames())
            for place in places
            if isinstance(place, str)
            and any(self._word(s).search(title) for s in self._shown(place))
        ]

    def _shown(self, place: str) -> list[str]:
        """How a question's title writes a real place: from the workspace when under it (as
        the agent shows it), else whole or with `~/`."""
        if place == str(self.ws):
            return ["."]
        if place.startswith(f"{self.ws}/"):
            return [os.path.relpath(place, self.ws)]
        home = str(self.home)
        tilde = ["~" + place[len(home) :]] if place == home or place.startswith(home + "/") else []
        return [place, *tilde]

    @staticmethod
    def _word(spelled: str) -> re.Pattern[str]:
        return re.compile(r"(?<![\w./~-])" + re.escape(spelled) + r"/?(?![\w./*-])")

    def searched(self, path: str, request: int | None = None, frame: int | None = None) -> bool:
        """Whether an allowed question of a reading or searching tool named `path` or a folder
        above it as the place it read, answered before model request `request` was made and
        client frame `frame` came (None: at any time)."""
        return any(
            (path == c.place or path.startswith(c.place.rstrip("/") + "/"))
            and (request is None or request >= c.requests)
            and (frame is None or frame >= c.frames)
            for c in self.consents
        )

    def choose(self, params: dict[str, Any]) -> str:
        options = {o["optionId"]: o for o in params.get("options", [])}
        wanted = "reject_once"
        if self.policy == "allow-once":
            wanted = "allow_once"
        elif self.policy == "grant-names" and "allow_always" in options:
            offered = options["allow_always"]["name"]
            listed = NAMED.findall(offered)
            under = SCOPE.match(offered)
            names = bool(listed) and set(listed) <= self.grants
            place = under is not None and f"{os.path.realpath(under[1])}/".startswith(f"{self.ws}/")
            if names or place:
                wanted = "allow_always"
        if wanted in options:
            return wanted
        rejecting = [i for i, o in options.items() if o.get("kind", "").startswith("reject")]
        return rejecting[0] if rejecting else next(iter(options))

    def links(self) -> dict[str, list[str]]:
        """Where each link in the workspace leads, and its names from the workspace."""
        found: dict[str, list[str]] = {}
        for folder, dirs, files in os.walk(self.ws):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in [*dirs, *files]:
                link = os.path.join(folder, name)
                if os.path.islink(link):
                    found.setdefault(os.path.realpath(link), []).append(
                        os.path.relpath(link, self.ws)
                    )
        return found

    def spellings(self, path: str, links: dict[str, list[str]] | None = None) -> list[str]:
        """The ways a question may write `path`: as it is, from the workspace, from `~`, and
        through a link in the workspace that leads there (`sub` after `ln -s PATH sub`)."""
        out = [path, os.path.relpath(path, self.ws)]
        home = str(self.home)
        if path == home or path.startswith(home + "/"):
            out.append("~" + path[len(home) :])
        return out + (self.links() if links is None else links).get(path, [])

    def names(self, path: str) -> bool:
        """Whether an allowed question named `path`: spelled whole, or a folder above it
        spelled and the rest of the path from there as a word (`cd ~ && mkdir -p a/b`), or, in
        a question saying the line may run in any folder (turn/gate.py ADRIFT), the rest from
        any folder; through a link as the links were when it was asked, or are now."""
        now = self.links()
        for text, links in self._texts(now):
            if any(s in text for s in self.spellings(path, links)):
                return True
            anywhere = ADRIFT in text
            folder = os.path.dirname(path)
            while folder not in ("/", ""):
                rest = re.escape(os.path.relpath(path, folder))
                word = re.compile(r"(?<![\w.-])" + rest + r"(?![\w.-])")
                spelled = anywhere or any(f in text for f in self.spellings(folder, links))
                if spelled and word.search(text):
                    return True
                folder = os.path.dirname(folder)
        return False

    def _texts(self, now: dict[str, list[str]]) -> list[tuple[str, dict[str, list[str]]]]:
        """Each allowed question's text, with the links it may name: those of when it was
        asked (a link the same turn removes after it was followed) and those of now."""
        out = []
        for n, text in enumerate(self.allowed):
            then = self.seen[n] if n < len(self.seen) else {}
            out.append((text, {p: [*then.get(p, []), *now.get(p, [])] for p in {*then, *now}}))
        return out

    def names_above(self, path: str) -> bool:
        """Whether an allowed question named a folder `path` is in, as a word of its own (what
        `rm -r DIR` removes is named by DIR), through links as for `names`."""
        for text, links in self._texts(self.links()):
            folder = os.path.dirname(path)
            while folder not in ("/", ""):
                for spelled in self.spellings(folder, links):
                    word = re.compile(r"(?<![\w./~-])" + re.escape(spelled) + r"/?(?![\w./*-])")
                    if word.search(text):
                        return True
                folder = os.path.dirname(folder)
        return False
