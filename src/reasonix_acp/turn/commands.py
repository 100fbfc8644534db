"""Prompts the agent answers itself: its own commands (`/help`, `/status`, `/mcp`, `/rewind`) and plugin
actions (`/<plugin>:<action>`), recorded like a turn. Plugin prompt templates are expanded
here and go to the model.

These run inside the turn (the turn machine is running), so a cancel reaches an action's form
questions and its command like any model turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reasonix_acp.machines.turn import STOP_REASON, Outcome
from reasonix_acp.protocol.errors import AcpError
from reasonix_acp.session import commands
from reasonix_acp.session.history import history_starts
from reasonix_acp.session.live import Session
from reasonix_acp.session.rewind import METHOD, Rewinds
from reasonix_acp.session.service import Sessions
from reasonix_acp.words import counted

if TYPE_CHECKING:
    from reasonix_acp.mcp_servers.prompts import PromptCommand

Events = list[tuple[str, dict[str, Any]]]


@dataclass
class ForModel:
    """A plugin entry that becomes a model turn: the prompt it expands to."""

    text: str
    events: Events  # surfaces to show first


class Commands:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    def answer(
        self, session: Session, blocks: list[dict[str, Any]], events: Events
    ) -> dict[str, Any]:
        """A prompt the agent answers itself, recorded like a turn, and never in the model's
        history: its events follow an empty `history` event, so a load, or a rewind, that
        reads a transcript from what it showed (one with no model turn yet) stops before them."""
        turn = session.record.turn_count + 1
        shown = [history_starts(), ("user_message", {"content": blocks}), *events]
        self.sessions.show(session, shown, turn)
        session.record.turn_count = turn
        # A cancel that came while the agent worked on it still wins.
        return {"stopReason": STOP_REASON[session.turn.settle(Outcome.END_TURN)]}

    def reply(self, session: Session, blocks: list[dict[str, Any]], text: str) -> dict[str, Any]:
        return self.answer(session, blocks, [("agent_message", {"text": text})])

    async def local(
        self, session: Session, name: str, rest: str, blocks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """`/help`, `/status`, `/mcp [reconnect [name]]`."""
        record = session.record
        if name == "help":
            prompts, left_out = session.prompt_commands()
            project = session.project
            shadowed = [*project.skills.shadowed, *left_out]
            text = commands.help_text(session.plugins, project.commands, shadowed, prompts)
        elif name == "status":
            text = (
                f"model {record.model} (effort {session.effort}), mode {record.mode}, "
                f"permissions {record.approval}, {counted(record.turn_count, 'turn')} stored, cwd {record.cwd}, "
                f"{session.sandbox.describe()}; {session.goal.describe()}; "
                f"{session.project.describe()}; {session.jobs.describe()}"
            )
        elif name == "mcp":
            text = await self._mcp(session, rest)
        elif name == "rewind":
            text = await self._rewind(session, rest.strip())
        else:
            raise ValueError(f"/{name} is not answered by the agent alone")
        return self.reply(session, blocks, text)

    async def _rewind(self, session: Session, rest: str) -> str:
        if rest and not (rest.isdigit() and int(rest) > 0):
            return "Usage: /rewind [N], N a number of prompts to go back (1 if not given)."
        try:
            done = await Rewinds(self.sessions).rewind(session, int(rest or 1))
        except AcpError as exc:
            return f"[warning] {str(exc).removeprefix(METHOD + ': ')}"
        return rewind_text(done)

    async def _mcp(self, session: Session, rest: str) -> str:
        servers = session.servers
        if not servers:
            return "No MCP servers in this session (the client sent none and config.toml has none)."
        word, _, name = rest.partition(" ")
        name = name.strip()
        if word == "reconnect":
            if name and name not in servers.links:
                return f"No MCP server named {name} in this session.\n\n{servers.status()}"
            await servers.reconnect(name or None)
        else:
            await servers.ready()
        return servers.status()

    async def plugin(
        self, session: Session, text: str, blocks: list[dict[str, Any]]
    ) -> dict[str, Any] | ForModel | None:
        """A `/<plugin>:<name>` or file command prompt: an answer, a prompt for the model, or
        None (not one)."""
        from_file = commands.file_entry(text, session.project.commands)
        if from_file is not None:
            command, rest = from_file
            return ForModel(command.expand(rest), [])
        if text.strip().startswith("/mcp__") and session.servers:
            await session.servers.settled()  # its prompts are known once it has connected
        prompt = _prompt_entry(text, session.prompt_commands()[0])
        if prompt is not None:
            found, rest = prompt
            try:
                return ForModel(await found.expand(rest), [])
            except ValueError as exc:
                return self.reply(session, blocks, f"[warning] {exc}")
            except Exception as exc:  # the server failed to answer
                return self.reply(session, blocks, f"[warning] /{found.name}: {exc}")
        entry = commands.plugin_entry(text, session.plugins)
        if entry is None:
            return None
        plugin, target, rest = entry
        # lazy: start-up (an entry was found: the session's plugins are loaded)
        from reasonix_acp.plugins.plugin import Template

        if isinstance(target, Template):
            return ForModel(target.expand(rest), [])
        done = await session.run_action(self.sessions.request, plugin, target, rest)
        if done.prompt is None:
            return self.answer(
                session, blocks, [*done.events, ("agent_message", {"text": done.reply})]
            )
        return ForModel(done.prompt, done.events)


def _prompt_entry(text: str, prompts: list[PromptCommand]) -> tuple[PromptCommand, str] | None:
    """(the MCP prompt command, the rest) when `text` starts with `/mcp__<server>__<prompt>`."""
    stripped = text.strip()
    if not stripped.startswith("/mcp__"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    found = next((p for p in prompts if p.name == name), None)
    return (found, rest.strip()) if found is not None else None


def rewind_text(done: dict[str, Any]) -> str:
    """What `/rewind` says it did."""
    count = done["prompts"]
    lines = [f"Went back {count} prompt{'s' if count != 1 else ''}."]
    for key, label in (("restored", "Put back"), ("removed", "Removed (made by those turns)")):
        if done[key]:
            lines.append(f"{label}: {', '.join(done[key])}")
    lines += [f"Left as it is: {left['path']} ({left['reason']})" for left in done["left"]]
    lines += [f"Not tracked: {note}" for note in done["untracked"]]
    lines.append(f"The conversation as it was is kept as session {done['keptAs']}.")
    return "\n".join(lines)
