"""What a prompt asks for, decided before anything changes: its blocks and the text the model
reads, or one of the agent's own commands, or a recovery (`/continue-checks`,
`final_readiness_recovery`; `/recover-context`, `protocol_recovery`).

Prompt content: `text`; `resource` with embedded text; `resource_link` (a `file://` link inside
the workspace is read, any other is passed to the model as a note naming it); `image` (and
image resource blobs) when the session's model takes images (session/images.py). `audio` is
not advertised and is refused with -32602 saying so.

Editors send context with what the user typed (CodeCompanion a rules file and shared buffers,
as text blocks before it): the user's own words are the prompt's last text block. An agent
command is a prompt whose first block, or whose typed text after such context, starts with
`/NAME`; the context before it goes to the model with a command that becomes a model turn (a
file command, a plugin template, an MCP prompt). A context block that is an AGENTS.md file the
system prompt already carries (its text, or its text in an editor's wrapper naming it) is not
sent to the model again: a note naming it stands in its place (project/repeats.py); a block
holding more than the file is sent whole.

A prompt that cannot be served is refused here, with nothing published or stored: -32602 for
bad params, -32600 for a recovery that names no open offer. A queued follow-up is read the
same way; what would refuse a prompt is its answer instead (`Intent.reply`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reasonix_acp.project.instructions import Instructions
from reasonix_acp.project.repeats import repeat_note
from reasonix_acp.protocol.errors import AcpError, InvalidParams, InvalidRequest
from reasonix_acp.reasonix_io import recovery
from reasonix_acp.reasonix_io.readiness import DEFAULT_GUIDANCE
from reasonix_acp.session import commands, images
from reasonix_acp.session.history import flatten, typed_at
from reasonix_acp.session.live import Session

METHOD = "session/prompt"
ACTIONS = (None, "final_readiness_recovery", "protocol_recovery")


@dataclass
class Intent:
    """What a prompt asks for once read: the words kept and the words sent, or an agent
    command, or a reply with no model call."""

    blocks: list[dict[str, Any]]  # the user's words, as the transcript keeps them
    text: str  # what the model reads
    command: tuple[str, str] | None = None  # an agent command (help, status, mcp) and its rest
    entry: str = ""  # the text from where a `/NAME` starts (the user's), "" when none does
    context: str = ""  # what the model reads of the blocks before that
    owed: list[str] | None = None  # a readiness check resumed: the files it is owed for
    reply: str | None = None  # answered with this text; no model call
    closes_offers: bool = True  # the readiness checkpoint and the recovery offer end with it


def blocks_of(params: Any) -> list[dict[str, Any]]:
    # A plain prompt (protocol/light.py) carries its blocks as the dicts the models dump to.
    blocks: list[dict[str, Any]] = [
        b if type(b) is dict else b.model_dump(mode="json", by_alias=True, exclude_unset=True)
        for b in params.prompt
    ]
    for i, block in enumerate(blocks):
        if block["type"] == "audio":
            raise InvalidParams(
                f"{METHOD}: prompt[{i}] is {block['type']} content, which this agent does not "
                f"accept (promptCapabilities.{block['type']} is false)"
            )
    return blocks


def read(
    session: Session,
    blocks: list[dict[str, Any]],
    action: str | None = None,
    recovery_id: str | None = None,
) -> Intent:
    """The prompt's intent, or the AcpError to refuse it with (nothing has changed)."""
    roots = [session.record.cwd, *session.record.additional_directories]
    model = session.queued.get("model", session.record.model)
    fix = _image_fix(session, model)
    has_images = images.check(blocks, model, session.config.takes_images(model), fix)
    typed = typed_at(blocks)
    instructions = session.project.instructions
    sent = [b if i == typed else _unrepeated(b, instructions) for i, b in enumerate(blocks)]
    text = flatten(sent, roots, images=True)
    if not text and not has_images and action != "protocol_recovery":
        raise InvalidParams(f"{METHOD}: empty prompt")
    if action == "protocol_recovery" and not recovery_id:
        raise InvalidParams(f"{METHOD}: missing recoveryId")
    if action not in ACTIONS:
        raise InvalidParams(f"{METHOD}: unsupported action {action}")
    start = 0 if _slashed(blocks, 0) else typed if _slashed(blocks, typed) else None
    entry = flatten(blocks[start:], roots, images=True) if start is not None else ""
    context = flatten(sent[:start], roots, images=True) if start else ""
    command = commands.parse(entry)
    name = command[0] if command is not None else None
    sole = len(blocks) == 1 and blocks[0].get("type") == "text"
    if name in ("continue-checks", "recover-context") and not sole:
        raise InvalidRequest(f"{METHOD}: /{name} must be the prompt's only content")
    if action == "final_readiness_recovery" or name == "continue-checks":
        return _continue_checks(session, text, command)
    if action == "protocol_recovery" or name == "recover-context":
        wanted, guidance = (
            (recovery_id, text)
            if action == "protocol_recovery"
            else recovery.parse_command(command[1] if command else "")
        )
        return _recover(session, wanted, guidance)
    if name == "compact" or (command is not None and name in commands.LOCAL):
        # `/compact`: the model writes the summary, but no turn of the conversation. The
        # agent's own commands leave both one-shot offers open.
        return Intent(blocks, text, command=command, closes_offers=False)
    return Intent(blocks, text, entry=entry, context=context)


def _slashed(blocks: list[dict[str, Any]], at: int | None) -> bool:
    """Whether block `at` is text starting with `/`."""
    if at is None or at >= len(blocks) or blocks[at].get("type") != "text":
        return False
    return str(blocks[at].get("text", "")).lstrip().startswith("/")


def _unrepeated(block: dict[str, Any], instructions: Instructions) -> dict[str, Any]:
    """The block, or a note in its place when it is an instruction file the system prompt
    carries (project/repeats.py)."""
    note = repeat_note(block, instructions)
    return block if note is None else {"type": "text", "text": note}


def _image_fix(session: Session, model: str) -> str:
    provider = session.config.provider_for(model)
    if provider is None or provider.kind != "openai":
        return "switch to a model that does (the model config option)"
    return (
        f"set `vision = true` in [providers.{provider.name}] of config.toml if it does, or "
        "switch to a model that does (the model config option)"
    )


def _continue_checks(session: Session, text: str, command: tuple[str, str] | None) -> Intent:
    if session.checkpoint is None:
        raise InvalidRequest(f"{METHOD}: no pending final-readiness check to continue")
    guidance = text
    if command is not None and command[0] == "continue-checks":
        guidance = command[1] or DEFAULT_GUIDANCE
    return Intent([{"type": "text", "text": guidance}], guidance, owed=session.checkpoint)


def _recover(session: Session, wanted: str | None, guidance: str) -> Intent:
    offer = session.recovery
    if offer is None or (wanted and wanted != offer.id):
        raise InvalidRequest(f"{METHOD}: {recovery.STALE}")
    guidance = guidance or recovery.DEFAULT_GUIDANCE
    return Intent([{"type": "text", "text": guidance}], offer.note(guidance))


def follow_up(session: Session, text: str) -> Intent:
    """A queued follow-up's intent: read as a prompt; a refusal becomes its answer."""
    blocks = [{"type": "text", "text": text}]
    try:
        return read(session, blocks)
    except AcpError as exc:
        return Intent(blocks, text, reply=f"\n\n[warning] {exc.message}", closes_offers=False)
