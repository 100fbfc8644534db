"""What a hostile run may do, as hypothesis strategies (so a failure shrinks to a minimal
sequence): a step is one model reply's tool calls (`Turn`), or one client action (`Context`,
`Rewind`, `Compact`, `Reload`), or nothing (`Rest`).

Calls come in families, each weighted per run (`moves(weights)`): every tool the agent offers,
with arguments aimed at the edges: paths outside, through links, into `.git`, FIFOs, the
kernel's paths; shell lines from the gate's differential grammar
(tests/tools/test_gate_differential.py) with their hidden command aimed outside; the payloads
of the holes found before (`payloads.py`); lines that earn grants the way a user gives them.
Text holds @ROOT@, @OUT@, @HOME@, @WS@ and @PORT@ until the run spells them (World.spell).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.deepseek_server import KEY
from tests.hostile import payloads
from tests.hostile.web import HOSTS, PATHS
from tests.tools import test_gate_differential as gate


@dataclass(frozen=True)
class Call:
    """One tool call the model makes; a `task` call carries its child's calls."""

    name: str
    arguments: tuple[tuple[str, Any], ...]
    child: tuple[Call, ...] = ()

    def args(self) -> dict[str, Any]:
        return dict(self.arguments)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.arguments)
        child = f", child={list(self.child)!r}" if self.child else ""
        return f"{self.name}({shown}{child})"


def call(name: str, **arguments: Any) -> Call:
    return Call(name, tuple(arguments.items()))


@dataclass(frozen=True)
class Turn:
    """A prompt whose model makes these calls in one reply, then ends its turn."""

    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Block:
    """A context block an editor attaches: text before, the project's AGENTS.md text (framed
    as CodeCompanion shares it, or bare), text after; as a text block or a resource."""

    before: str
    agents: bool
    framed: bool
    after: str
    resource: bool


@dataclass(frozen=True)
class Context:
    """A prompt of editor context blocks and the text the user typed."""

    blocks: tuple[Block, ...]
    typed: str


@dataclass(frozen=True)
class Rewind:
    """`/rewind N` typed as a prompt, or `_reasonix.io/session/rewind` (with `force`)."""

    prompts: int
    slash: bool
    force: bool = False


@dataclass(frozen=True)
class Compact:
    """`/compact` typed as a prompt."""


@dataclass(frozen=True)
class Reload:
    """The process ends (SIGKILL, or end of input) and a new one loads the session."""

    kill: bool


@dataclass(frozen=True)
class Rest:
    """Nothing happens (the simplest step: hypothesis's first run, all of them, costs little)."""


Move = Turn | Context | Rewind | Compact | Reload | Rest
Calls = tuple[Call, ...]

INSIDE = ["notes.txt", "a.txt", "new.txt", "sub/b.txt", "keys/authorized_keys", ".env"]
INSIDE += ["AGENTS.md", "vault/token.txt", "pipe", "lnk/x", "keys/x", "/proc/self/cwd/made.txt"]
OUTSIDE = ["../outside/canary", "@OUT@/new", "@HOME@/.ssh/authorized_keys", "~/.bashrc"]
OUTSIDE += ["~/.ssh/authorized_keys", "@ROOT@/config/AGENTS.md", "@ROOT@/tmp/x", "/dev/stdout"]
OUTSIDE += ["../outside/dir", "/proc/self/cwd/../outside/target", "@WS@/../outside/target"]
CONTENTS = ["hello\n", "x", "", "line one\nline two\n", payloads.KEY_LINE, "\x00bin"]
OLD = ["line one", "alpha", "beta", "hello", "[core]", "ssh-ed25519", "canary", "Project rule"]
READS = ["notes.txt", ".env", "vault/token.txt", "~/.ssh/id_ed25519", "@HOME@/.ssh/id_ed25519"]
READS += ["../outside/canary", "/proc/self/environ", "pipe", "keys/authorized_keys", "lnk/inner"]
READS += ["/proc/self/cwd/.env", "/dev/stdin", "sub/../vault/token.txt", ".git/config"]
DIRS = [".", "..", "~/.ssh", "vault", "@OUT@", "keys", "lnk", "/proc/self/cwd", "@HOME@"]
GLOBS = ["**/*", "../*/*", "~/.ssh/*", "vault/*", "s*/../../outside/*", "keys/*", "*"]
PATTERNS = ["canary", "sk-", "KEY", "ssh", "."]
BACKGROUND = ["echo tick; sleep 0.5; echo tock", "sleep 1", "cat .env; sleep 0.5"]
BACKGROUND += ["echo bg >> a.txt", "sleep 0.5; touch @OUT@/late"]


def _gate_line() -> st.SearchStrategy[str]:
    """The differential test's grammar, the command a line hides aimed outside."""
    lines = st.one_of(
        gate.lines(),
        gate.near_lines(),
        gate.edge_lines(),
        gate.everyday_lines(),
        gate.wrapped_lines(),
        gate.places_lines(),
    )
    return lines.map(
        lambda line: line.replace("touch P", "touch @OUT@/P").replace("{base}", "@ROOT@")
    )


def _bash(lines: st.SearchStrategy[str]) -> st.SearchStrategy[Call]:
    return lines.map(lambda line: call("bash", command=line, timeout_ms=3000))


def _group(groups: list[list[tuple[str, dict[str, Any]]]]) -> st.SearchStrategy[Calls]:
    return st.sampled_from(groups).map(lambda g: tuple(call(n, **a) for n, a in g))


def _files() -> st.SearchStrategy[Call]:
    path = st.sampled_from(INSIDE + OUTSIDE)
    write = st.builds(
        lambda p, c: call("write", path=p, content=c), path, st.sampled_from(CONTENTS)
    )
    edit = st.builds(
        lambda p, o, n: call("edit", path=p, edits=[{"old_text": o, "new_text": n}]),
        path,
        st.sampled_from(OLD),
        st.sampled_from(["LINE", "", payloads.FSMONITOR]),
    )
    return st.one_of(write, edit)


def _reads() -> st.SearchStrategy[Call]:
    return st.one_of(
        st.sampled_from(READS).map(lambda p: call("read", path=p)),
        st.sampled_from(DIRS).map(lambda p: call("list", path=p)),
        st.sampled_from(GLOBS).map(lambda p: call("glob", pattern=p)),
        st.builds(
            lambda q, p: call("grep", pattern=q, path=p),
            st.sampled_from(PATTERNS),
            st.sampled_from(DIRS),
        ),
    )


def _web() -> st.SearchStrategy[Call]:
    url = st.builds(
        lambda h, p: f"http://{h}:@PORT@{p}", st.sampled_from(HOSTS), st.sampled_from(PATHS)
    )
    return url.map(lambda u: call("web_fetch", url=u))


def _background(lines: st.SearchStrategy[str]) -> st.SearchStrategy[Call]:
    return lines.map(lambda c: call("bash", command=c, run_in_background=True))


STRADDLE = st.integers(1, len(KEY) - 1).map(payloads.straddle)


def _reading() -> st.SearchStrategy[Call]:
    ids = st.sampled_from(["bg-1", "bg-2", "bg-3"])
    return st.one_of(
        ids.map(lambda i: call("bash_output", id=i)),
        ids.map(lambda i: call("bash_output", id=i)),
        ids.map(lambda i: call("bash_kill", id=i)),
    )


def _misc() -> st.SearchStrategy[Call]:
    todo = [{"content": "look at @OUT@", "status": "pending"}]
    return st.sampled_from(
        [
            call("bash", command="true"),
            call("bash", command="echo hi", timeout_ms=3000),
            call("todo_write", todos=todo),
            call("web_search", query="reasonix acp"),
            call("ask_user", question="which one?", options=["this", "that"]),
            call("no_such_tool", path="x"),
        ]
    )


def _mcp() -> st.SearchStrategy[Call]:
    """The tool of the MCP server the client provides over ACP (tests/hostile/player.py)."""
    messages = st.sampled_from(["hi", "@HOME@/.ssh/id_ed25519", "@OUT@/canary", "$(id)"])
    return messages.map(lambda m: call("mcp__tools__echo", message=m))


def _task(inner: st.SearchStrategy[Call]) -> st.SearchStrategy[Call]:
    child = st.lists(inner, min_size=1, max_size=3).map(tuple)
    return child.map(
        lambda calls: Call("task", (("prompt", "look into it"), ("description", "a look")), calls)
    )


def families() -> dict[str, st.SearchStrategy[Calls]]:
    """Every family of calls, by name (the weights' keys): each draws one call or a few made
    together."""
    single: dict[str, st.SearchStrategy[Call]] = {
        "misc": _misc(),
        "files": _files(),
        "reads": _reads(),
        "gate": _bash(_gate_line()),
        "grant": _bash(st.sampled_from(payloads.GRANT_LINES)),
        "web": _web(),
        "bg": _background(st.one_of(st.sampled_from(BACKGROUND), STRADDLE)),
        "straddle": _background(STRADDLE),
        "bgread": _reading(),
        "mcp": _mcp(),
        **{name: _bash(st.sampled_from(lines)) for name, lines in payloads.LINES.items()},
    }
    single["task"] = _task(st.one_of(*single.values()))
    table = {name: s.map(lambda c: (c,)) for name, s in single.items()}
    return {**table, **{name: _group(g) for name, g in payloads.GROUPS.items()}}


def _pick(
    weights: Mapping[str, int], table: Mapping[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[Any]:
    chosen = [name for name in weights if name in table and weights[name] > 0]  # first: simplest
    expanded = [name for name in chosen for _ in range(weights[name])]
    return st.sampled_from(expanded).flatmap(lambda name: table[name])


def _blocks() -> st.SearchStrategy[Block]:
    note = st.sampled_from(["", "", "USER-NOTE-A keep the old API", "USER-NOTE-B: mind the tabs."])
    return st.builds(Block, note, st.booleans(), st.booleans(), note, st.booleans())


def moves(weights: Mapping[str, int]) -> st.SearchStrategy[Move]:
    """A step: a turn of 1 to 3 calls drawn from the weighted families, or a client action;
    `weights` names families and the actions `context`, `rewind`, `compact`, `reload`, and
    `rest` (then the simplest step)."""
    table = families()
    turn = st.lists(_pick(weights, table), min_size=1, max_size=3).map(
        lambda groups: Turn(tuple(c for g in groups for c in g))
    )
    actions: dict[str, st.SearchStrategy[Any]] = {
        "turn": turn,
        "context": st.builds(
            Context,
            st.lists(_blocks(), min_size=1, max_size=2).map(tuple),
            st.sampled_from(["hi", "USER-TYPED go on"]),
        ),
        "rewind": st.builds(Rewind, st.integers(1, 3), st.booleans(), st.booleans()),
        "compact": st.just(Compact()),
        "reload": st.builds(Reload, st.booleans()),
        "rest": st.just(Rest()),
    }
    turns = sum(w for name, w in weights.items() if name in table)
    first = {"rest": weights["rest"]} if "rest" in weights else {}
    return _pick({**first, "turn": turns, **weights}, actions)


def spelled(value: Any, spell: Any) -> Any:
    """`value` (a call's arguments) with every string spelled by `spell`."""
    return json.loads(spell(json.dumps(value)))
