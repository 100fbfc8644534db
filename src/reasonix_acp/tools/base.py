"""The tool interface the turn runner drives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from reasonix_acp.tools.workspace import Workspace


class ToolFailed(Exception):
    """The tool ran and failed; the message goes back to the model and to the client (as text
    content, or, with `meta`, as that `_meta` with the call's content left as it was)."""

    def __init__(self, message: str, meta: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.meta = meta


@dataclass
class ToolResult:
    """A tool's answer: the text for the model, the content for the client, and what else
    the turn shows."""

    text: str  # what the model sees
    content: list[dict[str, Any]] | None = field(
        default_factory=list
    )  # for the client; None: unchanged
    raw_output: Any = None
    plan: list[dict[str, Any]] | None = None  # a plan update to send before the result
    meta: dict[str, Any] | None = None  # `_meta` of the final tool_call_update
    mode: str | None = None  # the session's mode from now on (plan mode left: tools/ask.py)
    # The turn ends after this round of calls: a question put in the conversation waits for
    # the user's next prompt (tools/ask.py).
    ends_turn: bool = False


@dataclass
class ToolContext:
    """What a tool call may use: the session's workspace and sandbox, the client's files and
    terminals, and the turn runner's callbacks."""

    cwd: str
    session_id: str
    workspace: Workspace = field(default_factory=lambda: Workspace("/"))
    files: Any = None  # tools/bridge.ClientFiles when the client offers its file system
    terminal: Any = None  # tools/bridge.ClientTerminal when the client offers terminals
    progress: Any = None  # set per call by the turn runner: progress(content) → in_progress update
    call_id: str = ""  # set per call by the turn runner
    shell: str = "bash"
    terminal_meta: bool = False  # the client renders Zed's `_meta.terminal_*` display convention
    publish: Any = None  # (plugin id, surfaces) → shown to the client (extension_surface.py)
    sandbox: Any = None  # tools/sandbox.Sandbox: the session's sandbox for commands
    warn: Any = None  # set by the turn runner: warn(text) → a `[warning]` chunk
    # Set per call by the turn runner: rerun(why) → whether the user lets a command the
    # sandbox stopped run again outside it (asked once; tools/shell.py).
    rerun: Any = None
    # Set per call by the turn runner: ask(tool call shown, options) → the optionId chosen
    # (session/request_permission through the gate; a cancel cancels the turn).
    ask: Any = None
    # Where the client can show a form: elicit(message, requestedSchema) → its answer
    # ({"action": accept|decline|cancel, "content": ...}; turn/wiring.py).
    elicit: Any = None
    # Set per call by the turn runner: say(text) → an agent message of its own, shown now
    # (tools/ask.py: a question, or the plan where `propose` is not set).
    say: Any = None
    # Set per call by the turn runner: propose(text, said) → the plan put to the user in plan
    # mode, shown once: by id to clients that advertise `plan`, else as the message `said`
    # (session/projector.py).
    propose: Any = None
    # charge(amount, currency, what) → a priced call that is not the model's (a search),
    # counted in the session's cost (turn/wiring.py).
    charge: Any = None
    jobs: Any = None  # tools/background.Jobs: the session's background commands
    checkpoint: Any = None  # checkpoints/recorder.Recorder: what the turn's calls change
    # Set per call by the permission gate (turn/gate.py): the real path it judged, the one
    # the call may touch (`judged_target`); None until the gate has judged the call.
    judged: str | None = None

    def __post_init__(self) -> None:
        if self.workspace.cwd == "/" and self.cwd != "/":
            self.workspace = Workspace(self.cwd)


class Tool(Protocol):
    """A tool may also declare `access` ("read" or "write"), `target(args, ctx)` (the real
    path it touches) and `locations(args, ctx)`; tools with `access` go through the permission
    check of the turn runner."""

    name: str
    kind: str
    schema: dict[str, Any]

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str: ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


def function_schema(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    """A tool's schema as the model is given it (an OpenAI-style function)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def string_arg(args: dict[str, Any], key: str = "path", default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str) or not value:
        raise ToolFailed(f"`{key}` must be a non-empty string")
    return value


def text_content(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


def judged_target(tool: Any, args: dict[str, Any], ctx: ToolContext) -> str:
    """The real path a file or search tool touches as it runs: its `target` now, which must be
    the one the permission gate judged (`ctx.judged`, what the user was asked about). A link
    changed since (swapped by a background command while the question was open) fails the
    call, nothing read or written: the call never reaches a place nobody judged."""
    now: str = tool.target(args, ctx)
    judged = ctx.judged
    if judged is not None and now != judged:
        shown = ctx.workspace.display
        given = args.get("path", args.get("pattern"))
        raise ToolFailed(
            f"{tool.name}: {given!r} led to {shown(judged)} when the call was judged and leads "
            f"to {shown(now)} now (a link changed): nothing was done; make the call again"
        )
    return now
