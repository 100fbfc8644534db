"""Params in their plainest shape, decoded without pydantic; anything else goes to the model.

Importing pydantic costs more than everything else opening a session does, and most session
requests are plain: `session/new` `{"cwd": ..., "mcpServers": []}`, `session/load` and
`session/resume` the same with a `sessionId`, `session/list` `{}` or a `cwd`/`cursor`,
`session/prompt` a `sessionId` and text blocks (`{"type": "text", "text": ...}` and nothing
else: a prompt typed and sent at once does not wait for pydantic). A light
decoder accepts only shapes the generated model accepts with exactly the same values, and returns
None for everything else, so the model still decides every error, every lenient fallback and
every extra field. tests/protocol/test_light.py checks that against the models on generated
params.
"""

from __future__ import annotations

from typing import Any

OPEN_KEYS = frozenset({"cwd", "mcpServers", "additionalDirectories", "_meta"})
LIST_KEYS = frozenset({"cwd", "cursor", "_meta"})
PROMPT_KEYS = frozenset({"sessionId", "prompt", "_meta"})
TEXT_BLOCK_KEYS = frozenset({"type", "text"})
_ABSENT = object()


class OpenParams:
    """`session/new`, `load` or `resume` params with no MCP server: what the handlers read."""

    __slots__ = ("additional_directories", "cwd", "field_meta", "mcp_servers", "session_id")

    def __init__(
        self,
        cwd: str,
        additional_directories: list[str] | None,
        meta: dict[str, Any] | None,
        session_id: str | None = None,
        mcp_servers: list[Any] | None = None,
    ) -> None:
        self.cwd = cwd
        self.additional_directories = additional_directories
        self.field_meta = meta
        self.session_id = session_id
        self.mcp_servers = mcp_servers


class ListParams:
    """`archived` is never given here (a request that names it goes to the model)."""

    __slots__ = ("archived", "cursor", "cwd", "field_meta")

    def __init__(self, cwd: str | None, cursor: str | None, meta: dict[str, Any] | None) -> None:
        self.cwd, self.cursor, self.field_meta = cwd, cursor, meta
        self.archived: str | None = None


class PromptParams:
    """`session/prompt` params whose blocks are all plain text, the blocks as the transcript
    keeps them (what the model's `model_dump` gives for them); no vendor fields."""

    __slots__ = ("action", "field_meta", "prompt", "recovery_id", "session_id")

    def __init__(
        self, session_id: str, prompt: list[dict[str, Any]], meta: dict[str, Any] | None
    ) -> None:
        self.session_id, self.prompt, self.field_meta = session_id, prompt, meta
        self.action: str | None = None
        self.recovery_id: str | None = None


def _strings(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _meta_ok(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return meta is None or type(meta) is dict


def _opening(params: dict[str, Any], with_id: bool, servers_optional: bool) -> OpenParams | None:
    if not params.keys() <= (OPEN_KEYS | {"sessionId"} if with_id else OPEN_KEYS):
        return None
    cwd = params.get("cwd")
    dirs = params.get("additionalDirectories")
    servers = params.get("mcpServers", _ABSENT)
    session_id = params.get("sessionId") if with_id else None
    if (
        type(cwd) is not str
        or not (servers == [] or (servers is _ABSENT and servers_optional))
        or not (dirs is None or _strings(dirs))
        or not _meta_ok(params)
        or (with_id and type(session_id) is not str)
    ):
        return None
    return OpenParams(
        cwd,
        None if dirs is None else list(dirs),
        params.get("_meta"),
        session_id,
        None if servers is _ABSENT else [],
    )


def new_session(params: dict[str, Any]) -> OpenParams | None:
    return _opening(params, with_id=False, servers_optional=False)


def load_session(params: dict[str, Any]) -> OpenParams | None:
    return _opening(params, with_id=True, servers_optional=False)


def resume_session(params: dict[str, Any]) -> OpenParams | None:
    return _opening(params, with_id=True, servers_optional=True)


def list_sessions(params: dict[str, Any]) -> ListParams | None:
    cwd, cursor = params.get("cwd"), params.get("cursor")
    if (
        not params.keys() <= LIST_KEYS
        or not (cwd is None or type(cwd) is str)
        or not (cursor is None or type(cursor) is str)
        or not _meta_ok(params)
    ):
        return None
    return ListParams(cwd, cursor, params.get("_meta"))


def prompt_request(params: dict[str, Any]) -> PromptParams | None:
    session_id, blocks = params.get("sessionId"), params.get("prompt")
    if (
        not params.keys() <= PROMPT_KEYS
        or type(session_id) is not str
        or type(blocks) is not list
        or not _meta_ok(params)
    ):
        return None
    texts: list[dict[str, Any]] = []
    for block in blocks:
        if (
            type(block) is not dict
            or block.keys() != TEXT_BLOCK_KEYS
            or block["type"] != "text"
            or type(block["text"]) is not str
        ):
            return None
        texts.append({"type": "text", "text": block["text"]})
    return PromptParams(session_id, texts, params.get("_meta"))
