"""Tools that put a question to the user: `ask_user` (the model asks, with 2 to 6 choices) and
`present_plan` (plan mode ends with the plan and the question whether to leave it).

`ask_user` goes as a form (`elicitation/create`: the choices as an enum, and a free-text
"other") when the client can show one (`ctx.elicit`), else as `session/request_permission`
with the choices as `allow_once` options and a `reject_once` "Decline to answer". The answer,
or that the user declined, is the tool's result for the model. A `session/cancel` while the
question is open cancels the turn (the permission request is answered `cancelled`).

`present_plan` is offered in plan mode only. Its question is a `switch_mode` tool call: *Start
in normal mode* switches the session to normal mode (`ToolResult.mode`: the turn goes on in
normal mode in the same prompt, and the client gets `current_mode_update`); *Stay in plan mode*
tells the model to revise.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema

DECLINED = "The user declined to answer."


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


class AskUser:
    name = "ask_user"
    kind = "other"
    schema = function_schema(
        "ask_user",
        "Ask the user a question with 2 to 6 choices when you cannot go on without their"
        " decision; the answer comes back as the result.",
        {
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        },
        ["question", "options"],
    )

    def _read(self, args: dict[str, Any]) -> tuple[str, list[str]]:
        question, options = args.get("question"), args.get("options")
        if not isinstance(question, str) or not question.strip():
            raise ToolFailed("ask_user: `question` must be a non-empty string")
        if (
            not isinstance(options, list)
            or not 2 <= len(options) <= 6
            or not all(isinstance(o, str) and o.strip() for o in options)
            or len(set(options)) != len(options)
        ):
            raise ToolFailed("ask_user: `options` must be 2 to 6 different non-empty strings")
        return question.strip(), [o.strip() for o in options]

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        question = args.get("question")
        return f"Ask: {question}" if isinstance(question, str) else "Ask the user"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        question, options = self._read(args)
        if ctx.elicit is not None:
            answer = await self._form(ctx, question, options)
        else:
            answer = await self._permission(ctx, question, options)
        text = DECLINED if answer is None else f"The user answered: {answer}"
        return ToolResult(text=text, content=_text(text), raw_output={"answer": answer})

    async def _form(self, ctx: ToolContext, question: str, options: list[str]) -> str | None:
        schema = {
            "type": "object",
            "properties": {
                "choice": {"type": "string", "title": question, "enum": options},
                "other": {"type": "string", "title": "Other (your own answer)"},
            },
        }
        reply = await ctx.elicit(question, schema)
        content = reply.get("content") or {} if reply.get("action") == "accept" else None
        if content is None:
            return None
        other, choice = content.get("other"), content.get("choice")
        if isinstance(other, str) and other.strip():
            return other.strip()
        return choice if choice in options else None

    async def _permission(self, ctx: ToolContext, question: str, options: list[str]) -> str | None:
        if ctx.ask is None:
            raise ToolFailed("ask_user: this client cannot be asked")
        offered = [
            {"optionId": f"choice-{i}", "name": option, "kind": "allow_once"}
            for i, option in enumerate(options, 1)
        ]
        offered.append({"optionId": "decline", "name": "Decline to answer", "kind": "reject_once"})
        shown = {
            "toolCallId": ctx.call_id,
            "title": question,
            "kind": "other",
            "status": "pending",
            "rawInput": {"question": question, "options": options},
        }
        chosen = await ctx.ask(shown, offered)
        picked = [o for i, o in enumerate(options, 1) if chosen == f"choice-{i}"]
        return picked[0] if picked else None


class PresentPlan:
    name = "present_plan"
    kind = "switch_mode"
    schema = function_schema(
        "present_plan",
        "In plan mode, when the plan is ready: present it and ask the user whether to start"
        " working on it (normal mode) or to stay in plan mode and revise it.",
        {"plan": {"type": "string"}},
        ["plan"],
    )

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return "Ready to leave plan mode and start?"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = args.get("plan")
        if not isinstance(plan, str) or not plan.strip():
            raise ToolFailed("present_plan: `plan` must be the plan, as text")
        if ctx.ask is None:
            raise ToolFailed("present_plan: this client cannot be asked")
        options = [
            {"optionId": "start", "name": "Start in normal mode", "kind": "allow_once"},
            {"optionId": "stay", "name": "Stay in plan mode and revise", "kind": "reject_once"},
        ]
        shown = {
            "toolCallId": ctx.call_id,
            "title": self.title(args, ctx),
            "kind": "switch_mode",
            "status": "pending",
            "content": _text(plan.strip()),
            "rawInput": {"plan": plan},
        }
        if await ctx.ask(shown, options) == "start":
            text = "The user accepted the plan: you are in normal mode now; carry it out."
            return ToolResult(text=text, content=_text(text), mode="normal")
        text = "The user wants to stay in plan mode: revise the plan and present it again."
        return ToolResult(text=text, content=_text(text))
