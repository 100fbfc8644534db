"""The permission gate a tool call with an `access` passes before it runs: deny rules from
config.toml, then the session's preset, then the session's remembered answers ("always"),
then the user, asked with `session/request_permission` through the turn (turn/wiring.py).

A refused or failed question is a rejection; a cancelled one cancels the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.tools.base import ToolContext, ToolFailed
from reasonix_acp.tools.workspace import in_scope, needs_permission, scope_of

# (the tool call as shown, the options) → the chosen optionId, or None when cancelled.
Ask = Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[str | None]]
REFUSED = "refused by the user"


@dataclass
class Gate:
    """The permission gate: deny rules, the session's preset and remembered answers, and the
    question to the user."""

    deny: Callable[[str, str, str], bool] = lambda access, real, scope: False
    preset: Callable[[], str] = lambda: "workspace-write"
    grants: list[tuple[str, str, bool]] = field(default_factory=list)  # (access, scope, allow)
    ask: Ask | None = None

    async def permitted(
        self, tool: Any, args: dict[str, Any], shown: dict[str, Any], context: ToolContext
    ) -> bool:
        """Deny rules, then the preset, then the session's remembered answers, then the user."""
        real = tool.target(args, context)
        access = tool.access
        by_path = not hasattr(tool, "grant_scope")
        scope = scope_of(real) if by_path else tool.grant_scope(args, context)
        if self.deny(access, real, scope):
            raise ToolFailed("denied by the permission rules in config.toml")
        if not needs_permission(self.preset(), access, context.workspace.inside(real)):
            return True
        exact = f"exact {args.get('command', '')}" if access == "execute" else None
        for granted_access, granted, allowed in reversed(self.grants):
            if granted_access == access and (
                in_scope(real, granted) if by_path else granted in (scope, exact)
            ):
                return allowed
        if self.ask is None:
            return False
        options = [{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"}]
        if exact is not None:
            options.append(
                {
                    "optionId": "allow_always_exact",
                    "name": "Always allow this command in this session",
                    "kind": "allow_always",
                }
            )
        options += [
            {
                "optionId": "allow_always",
                "name": f"Allow {_what(access, scope)} for this session",
                "kind": "allow_always",
            },
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
            {
                "optionId": "reject_always",
                "name": f"Reject {_what(access, scope)} for this session",
                "kind": "reject_always",
            },
        ]
        visible = {k: v for k, v in shown.items() if not k.startswith("x-")}
        choice = await self.ask(visible, options)
        if choice is None:  # the client cancelled the request: the turn is cancelled
            raise asyncio.CancelledError
        if choice == "allow_always_exact" and exact is not None:
            self.grants.append((access, exact, True))
        elif choice in ("allow_always", "reject_always"):
            self.grants.append((access, scope, choice == "allow_always"))
        return choice in ("allow_once", "allow_always", "allow_always_exact")


def _what(access: str, scope: str) -> str:
    if access in ("mcp", "plugin"):
        return f"calls of {scope.removeprefix(access + ' ')}"
    if access == "execute":
        return f"`{scope.removeprefix('command ')}` commands"
    return f"{access}s under {scope}"
