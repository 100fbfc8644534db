"""What the model is told besides the conversation: the system message for each mode, and
the notes the agent adds to the history (a steer's preamble, a goal's continuation). They stay the same from request
to request of a session (the provider's prompt cache depends on an unchanged prefix)."""

from __future__ import annotations

from typing import Any

SYSTEM_PROMPT = (
    "You are Reasonix, a coding agent working in the user's workspace through an editor. "
    "Use the tools when they help; keep the user informed of your plan with todo_write."
)
# A goal's continuation (turn/goal.py): added after everything the model has seen.
CONTINUE_NOTE = (
    "[goal] Continue working toward the goal: {objective}\nWhen it is met, call goal_update"
    " with status complete; if you cannot go on without the user, call it with status blocked."
)
STEER_NOTE = (
    "[The user added this while you were working. It is guidance for the current task, "
    "not a new task; apply it after the step you are on.]\n"
)


def with_client(project: str, client: str | None) -> str:
    """The instructions after the agent's own: the project's, then the text a client's
    `systemPrompt` appends (session/client_prompt.py), as given."""
    return "\n\n".join(part for part in (project, client) if part)


def system_message(mode: str, project: str = "") -> dict[str, Any]:
    """The system message for `mode`, with the project's instructions (project/instructions.py)
    after it: both fixed for the session until it reloads, so the prefix stays cached."""
    extra = {
        "plan": " You are in plan mode: investigate and propose a plan; do not change files.",
        "goal": (
            " You are in goal mode: the prompt that started it is the goal (each continuation"
            " note restates it); keep working until it is met or you are blocked. Report with the goal_update tool: status"
            " `complete` when the goal is met, `blocked` when you cannot go on without the"
            " user, `continue` while work remains."
        ),
    }.get(mode, "")
    content = SYSTEM_PROMPT + extra
    return {"role": "system", "content": f"{content}\n\n{project}" if project else content}
