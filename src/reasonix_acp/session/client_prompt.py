"""A client's `systemPrompt` on session/new, load, resume and fork (unstable, advertised as
`sessionCapabilities.systemPrompt` with no `mode`: `append` only).

Rules:
- Only `append` is taken: its text follows the agent's own instructions and the project's in
  the system message (turn/instructions.py `with_client`). `override`, an `_`-prefixed mode or any
  other is -32602 and nothing is opened; so is an empty `content` or a block that is not text.
  Override is not offered because the agent's own instructions carry its tool rules (plan mode's
  "do not change files", goal mode's goal_update reports), which a client's text cannot be
  trusted to restate.
- The text is the blocks' texts joined by a blank line, kept as given (the client's words,
  not scrubbed), stored with the session and never logged.
- Omitted or null on load, resume or fork: the stored one is kept (a fork takes its source's),
  so the model is sent the same bytes and the provider's cached prefix holds. Given: it is the
  session's from then on, stored, and the next turn's system message carries it.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.protocol.errors import InvalidParams


def given(method: str, params: Any) -> str | None:
    """The text of `params.systemPrompt`, None when it is omitted or null; -32602 when it
    cannot be applied as `append`."""
    prompt = getattr(params, "system_prompt", None)  # the light decoder's params have none
    if prompt is None:
        return None
    if prompt.mode != "append":
        raise InvalidParams(
            f"{method}: systemPrompt mode {prompt.mode!r} is not supported (only 'append')"
        )
    if not prompt.content:
        raise InvalidParams(f"{method}: systemPrompt content is empty")
    texts: list[str] = []
    for i, block in enumerate(prompt.content):
        if block.type != "text":
            raise InvalidParams(
                f"{method}: systemPrompt content[{i}] is {block.type!r}; only text is supported"
            )
        texts.append(block.text)
    return "\n\n".join(texts)
