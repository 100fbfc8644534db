"""Params in their plainest shape, decoded without pydantic; anything else goes to the model.

Importing pydantic costs more than everything else opening a session does, and most session
requests are plain: `session/new` `{"cwd": ..., "mcpServers": []}`, `session/load` and
`session/resume` the same with a `sessionId`, `session/list` `{}` or a `cwd`/`cursor`. A light
decoder accepts only shapes the generated model accepts with exactly the same values, and returns
None for everything else, so the model still decides every error, every lenient fallback and
every extra field. tests/protocol/test_light.py checks that against the models on generated
params.
"""

from __future__ import annotations

from typing import Any

OPEN_KEYS = frozenset({"cwd", "mcpServers", "additionalDirectories", "_meta"})
LIST_KEYS = frozenset({"cwd", "cursor", "_meta"})
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
    __slots__ = ("cursor", "cwd", "field_meta")

    def __init__(self, cwd: str | None, cursor: str | None, meta: dict[str, Any] | None) -> None:
        self.cwd, self.cursor, self.field_meta = cwd, cursor, meta


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
