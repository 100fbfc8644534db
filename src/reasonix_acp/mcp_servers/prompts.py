"""MCP prompts as slash commands: each connected server's `prompts/list` offers
`/mcp__<server>__<prompt>` (named as its tools are), advertised once the servers have connected.

`/mcp__docs__review src/app.py focus=style`: arguments are given by name (`key=value`, a
declared argument's name) or by position in the order the prompt declares them; quotes group
words (`"two words"`). A required argument missing, an unknown name or one word too many is
answered with what the prompt takes, and the model is not called. The prompt's messages (their
text, and the text of embedded resources) become the turn's input, as the user's words.

A name already taken (the agent's own commands, the project's and the user's files) is left
out and reported (`shadowed`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from reasonix_acp.mcp_servers.acp_link import ServerLink
from reasonix_acp.mcp_servers.hub import ServerSet
from reasonix_acp.mcp_servers.naming import model_name


@dataclass(frozen=True)
class PromptCommand:
    """One MCP prompt offered as a slash command."""

    name: str
    link: ServerLink
    prompt: Any  # mcp.types.Prompt

    @property
    def declared(self) -> list[Any]:
        return list(getattr(self.prompt, "arguments", None) or [])

    @property
    def description(self) -> str:
        text = getattr(self.prompt, "description", None)
        return str(text or f"The {self.prompt.name} prompt of the MCP server {self.link.name}")

    @property
    def hint(self) -> str | None:
        words = [a.name if a.required else f"[{a.name}]" for a in self.declared]
        return " ".join(words) or None

    def arguments(self, rest: str) -> dict[str, str]:
        """The arguments `rest` gives, by name or position; ValueError saying what is wrong."""
        try:
            words = shlex.split(rest)
        except ValueError as exc:
            raise ValueError(f"/{self.name}: {exc}") from None
        names = [a.name for a in self.declared]
        given: dict[str, str] = {}
        positional = []
        for word in words:
            key, sep, value = word.partition("=")
            if sep and key in names:
                given[key] = value
            else:
                positional.append(word)
        free = [n for n in names if n not in given]
        if len(positional) > len(free):
            raise ValueError(f"/{self.name} takes {self.hint or 'no arguments'}: too many words")
        given.update(zip(free, positional, strict=False))
        missing = [a.name for a in self.declared if a.required and a.name not in given]
        if missing:
            raise ValueError(f"/{self.name} takes {self.hint}: `{missing[0]}` is missing")
        return given

    async def expand(self, rest: str) -> str:
        """The prompt's messages as the turn's input (ValueError: bad arguments)."""
        result = await self.link.get_prompt(self.prompt.name, self.arguments(rest))
        parts = []
        for message in result.messages:
            content = message.content
            text = getattr(content, "text", None)
            resource = getattr(content, "resource", None)
            if text is None and resource is not None:
                text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else f"[{content.type} content left out]")
        return "\n\n".join(parts)


def offered(servers: ServerSet | None, taken: set[str]) -> tuple[list[PromptCommand], list[str]]:
    """The connected servers' prompts as commands, and the ones left out (a taken name)."""
    found: list[PromptCommand] = []
    shadowed: list[str] = []
    for link in servers.links.values() if servers else ():
        if link.state != "connected":
            continue
        for prompt in link.prompts:
            name = model_name(link.name, prompt.name)
            if name in taken:
                shadowed.append(f"/{name} from the MCP server {link.name} (another wins)")
                continue
            taken = {*taken, name}
            found.append(PromptCommand(name, link, prompt))
    return found, shadowed
