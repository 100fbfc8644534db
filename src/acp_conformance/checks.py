"""What a check looks at and how it judges. Every kind returns "" (passed) or why it failed.

On a response (`await` steps; `inspect` steps judge a captured value the same way): `result` (a result, not an error), `error` (an error, with
`codes` if given; with `only_if_refused`, SKIP when a result came; SKIP for an error code in
`skip_codes`), `served` (anything but -32601: a method the agent advertises is one it has), `still_serving`
(a result, or a refusal with an integer code and a message that is not -32700, -32600, -32601
nor one of `not_codes`: the agent still reads requests, though it may refuse session/new for
want of a model), `error_shape` (the error object against the schema's `Error`), `schema` (the
result against `def`), `schema_at` (the value at `path` against `def`), `equals` (`path` holds `value`), `nonempty_string` (`path`),
`answered` (a result or an error: the id was echoed), `known_fields` (the result's root holds
only what `def` defines), `contains` (the list at `path` has an
item whose `key` is `value`), `lacks` (it has none; with `absent_ok`, an absent list too),
`unique` (no two items of the list at `path` share their `key`; an absent list has none),
`member` (`path` holds the `key` of an item of the list at `among`; SKIP where `path` is
absent), `error_message` (the error's message is text on one line), `config_values` (every
select config option at `path` holds one of its own values; a boolean one only where the
client said it takes them, `booleans`).
On the notifications that came while a response was awaited: note_checks.py.
On a window of frames (`quiet` steps): `silent` (no frame at all), `no_response` (nothing
answered: notifications may come), `no_update` (no session/update of turn content: message
and thought chunks, tool calls, plans), `no_replay` (none that retells the conversation:
message and thought chunks, tool calls), `no_request` (no request
of the agent to the client).
Any check with `if_result` is SKIP when the request itself was refused (an error came).
Checks on a whole turn (the client's side, tool calls) are in turn_checks.py.
On the end of input (`eof` steps): `exits` (the process ended within the window), `exit_zero`.
On the whole run so far (`await` steps): `only_json` (no line on stdout that is not a JSON
object; blank lines aside), `utf8` (every line on stdout is UTF-8).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_conformance import schema


class NotApplicable(Exception):
    """The check has nothing to judge here (no such request came): it is SKIP, with why."""


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (to read what may be missing)."""
    return value if isinstance(value, dict) else {}


def at(frame: Any, path: str) -> Any:
    """The value at `path`: keys joined by ".", or a JSON Pointer (RFC 6901: "/a/b", "~1" for
    a "/" in a key) where keys have dots or slashes, as "_reasonix.io/session/status" does. A
    number picks from a list."""
    node = frame
    if path.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    else:
        parts = path.split(".")
    for part in parts:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(path)
    return node


def _result(frame: dict[str, Any], args: dict[str, Any]) -> str:
    if "result" in frame:
        return ""
    return f"an error came instead of a result: {_brief(frame.get('error'))}"


def _error(frame: dict[str, Any], args: dict[str, Any]) -> str:
    error = frame.get("error")
    if args.get("only_if_refused") and "result" in frame:
        raise NotApplicable("the agent accepted it (it may)")
    if not isinstance(error, dict):
        return f"a result came instead of an error: {_brief(frame.get('result'))}"
    if error.get("code") in args.get("skip_codes", ()):
        raise NotApplicable(f"the agent does not serve the method: {_brief(error)}")
    codes = args.get("codes")
    if codes and error.get("code") not in codes:
        return f"error code {error.get('code')!r}, expected one of {codes}"
    return ""


def _served(frame: dict[str, Any], args: dict[str, Any]) -> str:
    error = frame.get("error")
    if isinstance(error, dict) and error.get("code") == -32601:
        return f"the method is advertised and answered as unknown: {_brief(error)}"
    return ""


# The codes that say the request itself was not read as one: the frame before it broke the
# agent's reading, or the agent no longer knows the method.
UNREAD = (-32700, -32600, -32601)


def _still_serving(frame: dict[str, Any], args: dict[str, Any]) -> str:
    """A result, or a precise refusal of what was asked (an agent with no model configured
    refuses session/new, -32000 or -32602/-32603 with a message): either shows the agent still
    reads requests. Not an error that the request was unreadable or unknown, nor one with a
    code in `args["not_codes"]` (how the defect checked for would be refused)."""
    if "result" in frame:
        return ""
    error = frame.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(code, int) or isinstance(code, bool) or not isinstance(message, str):
        return f"an error came instead of a result, with no code or message: {_brief(error)}"
    if code in UNREAD or code in args.get("not_codes", ()) or not message.strip():
        return f"an error came instead of a result: {_brief(error)}"
    return ""


def _error_shape(frame: dict[str, Any], args: dict[str, Any]) -> str:
    if "error" not in frame:
        return "no error object"
    found = schema.problems(frame["error"], "Error")
    return "; ".join(found[:3])


def _schema(frame: dict[str, Any], args: dict[str, Any]) -> str:
    if "result" not in frame:
        return f"no result to validate: {_brief(frame.get('error'))}"
    found = schema.problems(frame["result"], args["def"])
    return "; ".join(found[:3])


def _schema_at(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        value = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    found = schema.problems(value, args["def"])
    return "; ".join(found[:3])


def _equals(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        value = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    return (
        "" if value == args["value"] else f"{args['path']} is {value!r}, expected {args['value']!r}"
    )


def _nonempty_string(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        value = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    return "" if isinstance(value, str) and value else f"{args['path']} is {value!r}"


def _known_fields(frame: dict[str, Any], args: dict[str, Any]) -> str:
    result = frame.get("result")
    if not isinstance(result, dict):
        return f"no result object: {_brief(frame.get('error', result))}"
    extra = sorted(set(result) - schema.fields(args["def"]))
    return (
        f"fields the spec does not define at the root: {extra} (put them in _meta)" if extra else ""
    )


def _answered(frame: dict[str, Any], args: dict[str, Any]) -> str:
    return "" if "result" in frame or "error" in frame else "neither a result nor an error"


def _contains(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        items = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    if not isinstance(items, list):
        return f"{args['path']} is not a list"
    if any(isinstance(i, dict) and i.get(args["key"]) == args["value"] for i in items):
        return ""
    return f"no item of {args['path']} has {args['key']} {args['value']!r}"


def _lacks(frame: dict[str, Any], args: dict[str, Any]) -> str:
    found = _contains(frame, args)
    if args.get("absent_ok") and found == f"{args['path']} is missing":
        return ""
    if found.startswith("no item"):
        return ""
    return found or f"{args['path']} still has an item whose {args['key']} is {args['value']!r}"


def _unique(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        items = at(frame, args["path"])
    except KeyError:
        return ""
    keys = (
        [i.get(args["key"]) for i in items if isinstance(i, dict)]
        if isinstance(items, list)
        else []
    )
    twice = sorted({repr(k) for k in keys if keys.count(k) > 1})
    return f"{args['key']} {', '.join(twice)} more than once in {args['path']}" if twice else ""


def _member(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        value = at(frame, args["path"])
    except KeyError:
        raise NotApplicable(f"no {args['path']}") from None
    try:
        items = at(frame, args["among"])
    except KeyError:
        return f"{args['among']} is missing"
    keys = (
        [i.get(args["key"]) for i in items if isinstance(i, dict)]
        if isinstance(items, list)
        else []
    )
    return "" if value in keys else f"{args['path']} is {value!r}, not one of {keys}"


def _error_message(frame: dict[str, Any], args: dict[str, Any]) -> str:
    error = frame.get("error")
    if not isinstance(error, dict):
        raise NotApplicable("no error came")
    message = error.get("message")
    if not isinstance(message, str) or not message.strip():
        return f"error message {message!r}: none to show"
    return "the error message runs over more than one line" if "\n" in message.strip() else ""


def _choices(option: dict[str, Any]) -> list[Any]:
    """A select option's values: its options, flat or in groups."""
    found: list[Any] = []
    for item in option.get("options") or []:
        if isinstance(item, dict) and isinstance(item.get("options"), list):
            found += [o.get("value") for o in item["options"] if isinstance(o, dict)]
        elif isinstance(item, dict):
            found.append(item.get("value"))
    return found


def _config_values(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        options = at(frame, args["path"])
    except KeyError:
        raise NotApplicable(f"no {args['path']}") from None
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        kind, current = option.get("type"), option.get("currentValue")
        if kind == "boolean" and not args.get("booleans"):
            return f"config option {option.get('id')!r} is a boolean the client did not ask for"
        if kind == "select" and current not in _choices(option):
            return f"config option {option.get('id')!r} holds {current!r}, not one of its values"
    return ""


ON_RESPONSE: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "result": _result,
    "error": _error,
    "error_shape": _error_shape,
    "served": _served,
    "still_serving": _still_serving,
    "schema": _schema,
    "schema_at": _schema_at,
    "equals": _equals,
    "nonempty_string": _nonempty_string,
    "answered": _answered,
    "known_fields": _known_fields,
    "contains": _contains,
    "lacks": _lacks,
    "unique": _unique,
    "member": _member,
    "error_message": _error_message,
    "config_values": _config_values,
}


def on_window(kind: str, frames: list[dict[str, Any]]) -> str:
    if kind == "silent":
        return f"{len(frames)} frame(s) came: {_brief(frames[0])}" if frames else ""
    if kind == "no_update":
        late = [f for f in frames if f.get("method") == "session/update" and _turn_content(f)]
        return f"{len(late)} session/update after the response: {_brief(late[0])}" if late else ""
    if kind == "no_replay":
        late = [f for f in frames if f.get("method") == "session/update" and _history(f)]
        return (
            f"{len(late)} replayed update(s) after the response: {_brief(late[0])}" if late else ""
        )
    if kind == "no_request":
        asked = [f for f in frames if "method" in f and "id" in f]
        return f"{len(asked)} request(s) after the response: {_brief(asked[0])}" if asked else ""
    if kind == "no_response":
        answered = [f for f in frames if "method" not in f and ("result" in f or "error" in f)]
        return f"answered: {_brief(answered[0])}" if answered else ""
    raise KeyError(kind)


HISTORY_UPDATES = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")


# What a turn says (its content): updates of session state (available_commands_update,
# usage_update, session_info_update, a mode or config change) may come at any time.
TURN_CONTENT = (
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
)


def _history(frame: dict[str, Any]) -> bool:
    """An update that retells the conversation: a message or thought chunk, a tool call. The
    session's plan is its state now, like its commands: it may follow a load's response."""
    kind = obj(obj(frame.get("params")).get("update")).get("sessionUpdate")
    return kind in (*HISTORY_UPDATES, "tool_call", "tool_call_update")


def _turn_content(frame: dict[str, Any]) -> bool:
    return obj(obj(frame.get("params")).get("update")).get("sessionUpdate") in TURN_CONTENT


def utf8(lines: list[str]) -> str:
    """`utf8`: every line the agent wrote on stdout so far was UTF-8."""
    if not lines:
        return ""
    return f"{len(lines)} line(s) on stdout that are not UTF-8: {_brief(lines[0])}"


def only_json(unparsed: list[str]) -> str:
    """`only_json`: every line the agent wrote on stdout so far was a JSON object."""
    if not unparsed:
        return ""
    return (
        f"{len(unparsed)} line(s) on stdout that are not JSON-RPC messages: {_brief(unparsed[0])}"
    )


def on_exit(kind: str, code: int | None, seconds: float) -> str:
    if kind == "exits":
        return "" if code is not None else f"still running {seconds:g} s after end of input"
    if kind == "exit_zero":
        return "" if code == 0 else f"exit status {code!r}"
    raise KeyError(kind)


def brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


_brief = brief
