"""`mcpServers` entries as clients send them, made into one shape, or refused precisely.

Accepted, per entry:
- stdio: no `type` (the spec's default) or `type: "stdio"`; `command` required; `args` and
  `env` optional (absent means empty).
- `type: "http"` (also `streamable-http`, `streamable_http`) and `type: "sse"`; `url` required
  (http or https); `headers` optional.
- `type: "acp"` (MCP over ACP: a server the client provides itself); `serverId` required. Not
  in config.toml, which has no client to provide it.
- `env` and `headers` as the official `[{name, value}]` list or the older `{"NAME": "value"}`
  map (both seen from real clients).
`type` is compared trimmed and lowercased. Anything else is an `InvalidParams` naming the method,
the entry (index and name) and the field; no entry is ever dropped silently. Names must be
unique within one list, since tools are namespaced by server name.

The result is the official shape (stdio without `type`, lists for env and headers), which is
what the session stores and what the generated models validate afterwards. A client's entry
never names the directory its server starts in; a config.toml entry may (`from_config`: `cwd`,
absolute), and its relative command path is config.toml's directory's, never the workspace's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, unquote, unquote_plus, urlparse, urlsplit, urlunsplit

from reasonix_acp.protocol.errors import InvalidParams

HTTP_ALIASES = {"http": "http", "streamable-http": "http", "streamable_http": "http", "sse": "sse"}
# What a config.toml entry may hold besides its name (the table's) and `cwd` (`_config_cwd`).
ENTRY_KEYS = ("type", "command", "args", "env", "url", "headers", "_meta")
PAIR_SHAPE = 'an array of {"name", "value"} objects or a {"NAME": "value"} map'


def _pairs(where: str, field: str, value: Any) -> list[dict[str, str]]:
    if value is None:
        return []
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if not isinstance(item, str):
                raise InvalidParams(f"{where}: {field}.{key} must be a string")
            out.append({"name": str(key), "value": item})
        return out
    if not isinstance(value, list):
        raise InvalidParams(f"{where}: {field} must be {PAIR_SHAPE}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InvalidParams(f"{where}: {field}[{i}] must be a {{name, value}} object")
        name, val = item.get("name"), item.get("value", "")
        if not isinstance(name, str) or not name.strip():
            raise InvalidParams(f"{where}: {field}[{i}].name is required")
        if not isinstance(val, str):
            raise InvalidParams(f"{where}: {field}[{i}].value must be a string")
        out.append({"name": name, "value": val})
    return out


def normalise_entry(method: str, index: int, entry: Any) -> dict[str, Any]:
    at = f"{method}: mcpServers[{index}]"
    if not isinstance(entry, dict):
        raise InvalidParams(f"{at} must be an object")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParams(f"{at}.name: MCP server name is required")
    name = name.strip()
    where = f'{at} ("{name}")'
    raw_type = entry.get("type")
    if raw_type is not None and not isinstance(raw_type, str):
        raise InvalidParams(f"{where}.type must be a string")
    kind = (raw_type or "").strip().lower() or "stdio"
    extra = {k: v for k, v in entry.items() if k == "_meta"}
    if kind == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            raise InvalidParams(f'{where}.command: MCP server "{name}" command is required')
        args = entry.get("args")
        if args is None:
            args = []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise InvalidParams(f"{where}.args must be an array of strings")
        env = _pairs(where, "env", entry.get("env"))
        return {"name": name, "command": command, "args": args, "env": env, **extra}
    if kind == "acp":
        server_id = entry.get("serverId")
        if not isinstance(server_id, str) or not server_id:
            raise InvalidParams(f'{where}.serverId: MCP server "{name}" serverId is required')
        return {"type": "acp", "name": name, "serverId": server_id, **extra}
    transport = HTTP_ALIASES.get(kind)
    if transport is None:
        raise InvalidParams(
            f'{where}.type: MCP server "{name}" uses unsupported transport "{raw_type}" '
            "(accepted: stdio, http, streamable-http, sse, acp)"
        )
    url = entry.get("url")
    if not isinstance(url, str) or not url.strip():
        raise InvalidParams(f'{where}.url: MCP server "{name}" url is required')
    parsed = urlparse(url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InvalidParams(f"{where}.url must be an http:// or https:// URL")
    headers = _pairs(where, "headers", entry.get("headers"))
    return {"type": transport, "name": name, "url": url.strip(), "headers": headers, **extra}


def normalise(method: str, entries: Any) -> list[dict[str, Any]]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise InvalidParams(f"{method}: mcpServers must be an array")
    out = [normalise_entry(method, i, e) for i, e in enumerate(entries)]
    seen: dict[str, int] = {}
    for i, spec in enumerate(out):
        if spec["name"] in seen:
            raise InvalidParams(
                f'{method}: mcpServers[{i}].name: "{spec["name"]}" is also the name of '
                f"mcpServers[{seen[spec['name']]}]; server names must be unique"
            )
        seen[spec["name"]] = i
    return out


def normalise_params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The codec's hook for session/new, load and resume: params with `mcpServers` made
    official, before the generated model validates them."""
    if not isinstance(params, dict) or "mcpServers" not in params:
        return params
    return {**params, "mcpServers": normalise(method, params["mcpServers"])}


def from_config(table: Any, base: Path) -> list[dict[str, Any]]:
    """`[mcp_servers.<name>]` tables of config.toml, in the same shape (ValueError on a bad one).
    A relative `command` path is made absolute against `base`, config.toml's directory; a
    stdio entry may name the absolute directory its server starts in, `cwd`."""
    if not isinstance(table, dict):
        raise ValueError("mcp_servers must be a table of [mcp_servers.<name>] tables")
    entries, places = [], []
    for name, body in table.items():
        if not isinstance(body, dict):
            raise ValueError(f"mcp_servers.{name} must be a table")
        places.append(_config_cwd(name, body))
        # Only the keys an entry has are read, so a typo (`comand`) is named as unknown with
        # the nearest key (config/keys.py) rather than swallowed by reading the table whole.
        entries.append({**{k: body[k] for k in ENTRY_KEYS if k in body}, "name": name})
    try:
        servers = normalise("config.toml", entries)
    except InvalidParams as exc:
        raise ValueError(str(exc)) from None
    for server, place in zip(servers, places, strict=True):
        if server.get("type") == "acp":
            raise ValueError(
                f'mcp_servers.{server["name"]}: type "acp" is a server a client provides over '
                "its connection; config.toml cannot name one"
            )
        command = server.get("command")
        if isinstance(command, str) and "/" in command and not os.path.isabs(command):
            server["command"] = os.path.join(os.path.abspath(base), command)
        if place is not None:
            server["cwd"] = place
    return servers


def each_from_config(table: Any, path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """config.toml's (at `path`) `[mcp_servers.<name>]` tables, each on its own: the servers
    that hold, and a sentence for each left out (the others still start)."""
    if not isinstance(table, dict):
        return [], [f"ignoring [mcp_servers] of {path}: it must be a table of tables"]
    servers: list[dict[str, Any]] = []
    left_out: list[str] = []
    for name in table:
        try:
            servers += from_config({name: table[name]}, path.parent)
        except ValueError as exc:
            left_out.append(f"ignoring [mcp_servers.{name}] of {path}: {exc}")
    return servers, left_out


def _config_cwd(name: str, body: dict[str, Any]) -> str | None:
    """A config entry's `cwd`: absolute, and for a stdio server only; None when not given."""
    if "cwd" not in body:
        return None
    cwd = body["cwd"]
    if not isinstance(cwd, str):
        raise ValueError(f"mcp_servers.{name}.cwd must be a string (an absolute directory)")
    kind = body.get("type")
    if isinstance(kind, str) and kind.strip().lower() not in ("", "stdio"):
        raise ValueError(f"mcp_servers.{name}.cwd: only a stdio server starts in a directory")
    if not os.path.isabs(cwd):
        raise ValueError(
            f'mcp_servers.{name}.cwd: "{cwd}" is a relative path; give the absolute directory '
            "the server starts in"
        )
    return cwd


def secret_values(servers: list[dict[str, Any]]) -> list[str]:
    """The values of the servers' `headers` and `env`, and the credentials in their URLs:
    secrets, whatever their names."""
    return [
        *(
            str(pair.get("value") or "")
            for server in servers
            for key in ("headers", "env")
            for pair in server.get(key) or []
            if isinstance(pair, dict)
        ),
        *(
            secret
            for server in servers
            if isinstance(server.get("url"), str)
            for secret in url_secrets(server["url"])
        ),
    ]


WITHHELD = "x-withheld"  # in a stored server: what was left out of it ("url", "headers", "env")


def names_only(servers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The servers as stored and shown: `headers` and `env` keep their names, never values, and
    the URL loses its credentials (`stored_url`); `x-withheld` lists what lost something (a
    client sends its servers again on load and resume)."""
    out = []
    for server in servers:
        copy = dict(server)
        withheld = []
        if isinstance(server.get("url"), str):
            copy["url"] = stored_url(server["url"])
            if copy["url"] != server["url"]:
                withheld.append("url")
        for key in ("headers", "env"):
            if isinstance(server.get(key), list):
                pairs = [pair for pair in server[key] if isinstance(pair, dict)]
                copy[key] = [{"name": pair.get("name"), "value": ""} for pair in pairs]
                if any(pair.get("value") for pair in pairs):
                    withheld.append(key)
        if withheld:
            copy[WITHHELD] = withheld
        out.append(copy)
    return out


_SECRET_NAMES = frozenset(("key", "sig", "auth", "pwd", "pass"))
_SECRET_ENDINGS = (
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "token",
    "secret",
    "password",
    "passwd",
    "signature",
    "credential",
    "credentials",
)


def secret_param(name: str) -> bool:
    """Whether a query parameter of this name holds a credential: `key`, `sig`, `auth`, or a
    name ending in token, secret, password, signature, credential or api/access/private key,
    in any case and spelling (`api_key`, `accessToken`, `X-Amz-Signature`, `client_secret`)."""
    bare = re.sub(r"[^a-z0-9]", "", unquote_plus(name).lower())
    return bare in _SECRET_NAMES or bare.endswith(_SECRET_ENDINGS)


def _params(text: str, mark: str | None) -> tuple[str, list[str]]:
    """A query (or fragment) with the values of secret-named parameters replaced by `mark`,
    every other byte as it was; and those values."""
    kept, secrets = [], []
    for piece in text.split("&"):
        name, eq, value = piece.partition("=")
        if eq and value and secret_param(name):
            secrets.append(unquote_plus(value))
            piece = f"{name}={mark}"
        kept.append(piece)
    return "&".join(kept), secrets


def _split(url: str) -> tuple[SplitResult, str] | None:
    """The URL's parts and its host[:port] without userinfo; None for one that cannot be read."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        return None
    return parts, parts.netloc.rpartition("@")[2]


def stored_url(url: str) -> str:
    """A server URL as it may be stored and shown: no userinfo, the values of secret-named query
    (and fragment) parameters `[redacted]`, everything else exactly as given."""
    split = _split(url)
    if split is None:
        return "(an unreadable URL)"
    parts, host = split
    query, _ = _params(parts.query, "[redacted]")
    fragment, _ = _params(parts.fragment, "[redacted]")
    return urlunsplit((parts.scheme, host, parts.path, query, fragment))


def url_secrets(url: str) -> list[str]:
    """The credentials `stored_url` leaves out: userinfo's password (its user when there is none:
    a token as user), the secret-named parameters' values."""
    split = _split(url)
    if split is None:
        return [url]
    parts, _ = split
    user = parts.password if parts.password is not None else parts.username
    users = [unquote(user)] if user else []
    return [*users, *_params(parts.query, None)[1], *_params(parts.fragment, None)[1]]


def shown_url(url: str) -> str:
    """A server URL as chat text, `acp doctor` and the log may show it: the stored form."""
    return stored_url(url)
