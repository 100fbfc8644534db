"""Tools that put a question to the user: `ask_user` (the model asks, with 2 to 6 choices) and
`present_plan` (plan mode ends with the plan and the question whether to leave it).

`ask_user` goes as a form (`elicitation/create`: the choices as an enum, and a free-text
"other") when the client can show one (`ctx.elicit`). Elsewhere it is asked in the conversation:
the question and its numbered choices as an agent message, which every client shows (a
permission request will not do: some clients draw its options by kind alone, and several
`allow_once` choices then look the same), and the turn ends (`ToolResult.ends_turn`). The user's
next prompt is the answer: a bare choice number is read as that choice (`choice_note`),
anything else as their own words. The answer, or that the user declined the form, is the
tool's result for the model. A `session/cancel` while a form is open cancels the turn.

`present_plan` is offered in plan mode only. The plan's text goes to the client once, as an
agent message, the one thing every client draws (CodeCompanion draws neither a `plan` update
nor a question's input; agent-shell draws a call's `rawInput.plan` as a "Proposed plan" block,
and the plan list as well): no `plan` update, and neither the call nor the question carries
the plan (`shown_input`). Then the question, a `switch_mode` tool call: *Start in normal mode*
switches the session to normal mode (`ToolResult.mode`: the turn goes on in normal mode in the
same prompt, and the client gets `current_mode_update`); *Stay in plan mode* tells the model to
revise. Both are `allow_*` options: some clients cancel the turn on a `reject_once` answer, and
staying in plan mode is not a reason to end it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema

DECLINED = "The user declined to answer."
# The model's result of a question asked in the conversation: the turn ends with it.
AWAITING = (
    "The question and its numbered choices are shown to the user; this turn ends here. "
    "The user's next message is the answer."
)
_NUMBER = re.compile(r"\s*(\d{1,2})\s*[.)]?\s*")


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
        return question.strip() if isinstance(question, str) and question.strip() else "A question"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        question, options = self._read(args)
        if ctx.elicit is None:
            return self._in_conversation(ctx, question, options)
        answer = await self._form(ctx, question, options)
        text = DECLINED if answer is None else f"The user answered: {answer}"
        return ToolResult(text=text, content=_text(text), raw_output={"answer": answer})

    def _in_conversation(self, ctx: ToolContext, question: str, options: list[str]) -> ToolResult:
        """The question and its numbered choices said in the conversation; the turn ends."""
        if ctx.say is None:
            raise ToolFailed("ask_user: this client cannot be asked")
        numbered = "\n".join(f"{i}. {option}" for i, option in enumerate(options, 1))
        ctx.say(
            f"**{question}**\n\n{numbered}\n\n"
            "Answer with the number of a choice, or in your own words."
        )
        return ToolResult(
            text=AWAITING,
            content=_text("Asked in the conversation: your next message is the answer."),
            raw_output={"question": question, "options": options, "answer": None},
            ends_turn=True,
        )

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

    def shown_input(self, args: dict[str, Any]) -> None:
        """Nothing of the arguments: the plan is said as a message (`run`)."""
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = args.get("plan")
        if not isinstance(plan, str) or not plan.strip():
            raise ToolFailed("present_plan: `plan` must be the plan, as text")
        if ctx.ask is None:
            raise ToolFailed("present_plan: this client cannot be asked")
        plan = plan.strip()
        said = f"**The plan**\n\n{plan}"
        if ctx.propose is not None:  # said once, in the shape the client draws
            ctx.propose(plan, said)
        elif ctx.say is not None:
            ctx.say(said)
        options = [
            {"optionId": "start", "name": "Start in normal mode", "kind": "allow_once"},
            {"optionId": "stay", "name": "Stay in plan mode and revise", "kind": "allow_always"},
        ]
        shown = {
            "toolCallId": ctx.call_id,
            "title": self.title(args, ctx),
            "kind": "switch_mode",
            "status": "pending",
        }
        if await ctx.ask(shown, options) == "start":
            text = "The user accepted the plan: you are in normal mode now; carry it out."
            return ToolResult(text=text, content=_text(text), mode="normal")
        text = "The user wants to stay in plan mode: revise the plan and present it again."
        return ToolResult(text=text, content=_text(text))


def choice_note(history: list[dict[str, Any]], typed: str) -> str | None:
    """What a bare number answers, for the model: when the history ends with a question asked
    in the conversation and `typed` is the number of one of its choices, a note naming that
    choice; else None."""
    number = _NUMBER.fullmatch(typed)
    if number is None:
        return None
    waiting: set[str] = set()
    for message in reversed(history):
        if message.get("role") != "tool":
            break
        if message.get("content") == AWAITING:
            waiting.add(str(message.get("tool_call_id")))
    for message in reversed(history):
        for call in message.get("tool_calls") or []:
            if call.get("id") in waiting and call["function"].get("name") == "ask_user":
                options = _options_of(call["function"].get("arguments"))
                n = int(number.group(1))
                if 1 <= n <= len(options):
                    return f"(choice {n} of your question: {options[n - 1]})"
        if message.get("role") == "assistant":
            return None
    return None


def _options_of(arguments: Any) -> list[str]:
    try:
        options = json.loads(arguments or "{}").get("options")
    except (ValueError, AttributeError):
        return []
    return [o.strip() for o in options if isinstance(o, str)] if isinstance(options, list) else []
