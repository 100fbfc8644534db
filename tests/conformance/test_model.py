"""The scripted model's tool calls: chosen by role among the tools offered, streamed as
OpenAI `tool_calls` deltas or whole, and a reason when no offered tool fits."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from acp_conformance import roles
from acp_conformance.model import ModelServer
from reasonix_acp.tools.todo import TodoWrite


def tool(name: str, *params: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    return {"type": "function", "function": {"name": name, "parameters": {"properties": props}}}


OFFERED = [
    tool("edit", "path", "old_text", "new_text"),
    tool("view_file", "file_path"),
    tool("save_file", "file_path", "text"),
    tool("run", "cmd", "timeout"),
]


def test_roles_are_chosen_by_name_and_parameter_names() -> None:
    write = roles.choose("write", OFFERED)
    assert write is not None and write.name == "save_file"
    assert roles.arguments(write, {"path": "/w/a", "content": "x"}) == {
        "file_path": "/w/a",
        "text": "x",
    }
    read = roles.choose("read", OFFERED)
    assert read is not None and read.name == "view_file"
    shell = roles.choose("shell", OFFERED)
    assert shell is not None and roles.arguments(shell, {"command": "ls"}) == {"cmd": "ls"}
    assert roles.choose("read", [tool("edit", "path", "old_text")]) is None
    assert roles.missing("shell", OFFERED[:1]) == "agent offers no shell-like tool"
    assert roles.missing("shell", None) == "the agent offers its model no tools"
    named = [tool("mcp__conformance__conformance_elicit"), tool("other_conformance_elicitx")]
    chosen = roles.choose("named", named, "conformance_elicit")
    assert chosen is not None and chosen.name == "mcp__conformance__conformance_elicit"
    assert roles.choose("named", named[1:], "conformance_elicit") is None


def function(name: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": params}}


def todos(key: str, item: dict[str, Any], required: list[str], **top: Any) -> dict[str, Any]:
    """The parameters of a todo tool: an array `key` of objects `item` (`required` of them)."""
    items = {"type": "object", "properties": item, "required": required}
    return {"type": "object", "properties": {key: {"type": "array", "items": items}, **top}}


STATUSES = {"type": "string", "enum": ["pending", "in_progress", "completed"]}
# Real agents' todo tools, as they offer them: Claude Code's TodoWrite (activeForm required),
# Codex's update_plan, Kimi's SetTodoList (its own status words, its array nullable: `anyOf`
# with null), Cursor's todo_write (merge and ids required), opencode's todowrite (ids and a
# priority required, as strings), Mistral Vibe's todo (pydantic's: a nullable array of `$ref`
# items defined under `$defs`, statuses by `$ref` too, and an `action` that reads or writes
# required); beside them tools that are no todo list (a subagent, a plan as text).
CLAUDE = function(
    "TodoWrite",
    todos(
        "todos",
        {"content": {"type": "string"}, "status": STATUSES, "activeForm": {"type": "string"}},
        ["content", "status", "activeForm"],
    ),
)
CODEX = function(
    "update_plan",
    todos("plan", {"step": {"type": "string"}, "status": STATUSES}, ["step", "status"]),
)
KIMI_LIST = todos(
    "todos",
    {"title": {"type": "string"}, "status": {"enum": ["Pending", "In Progress", "Done"]}},
    ["title", "status"],
)["properties"]["todos"]
KIMI = function(
    "SetTodoList",
    {"type": "object", "properties": {"todos": {"anyOf": [KIMI_LIST, {"type": "null"}]}}},
)
CURSOR = function(
    "todo_write",
    {
        **todos(
            "todos",
            {"id": {"type": "string"}, "content": {"type": "string"}, "status": STATUSES},
            ["id", "content", "status"],
            merge={"type": "boolean"},
        ),
        "required": ["merge", "todos"],
    },
)
OPENCODE = function(
    "todowrite",
    todos(
        "todos",
        {p: {"type": "string"} for p in ("content", "status", "priority", "id")},
        ["content", "status", "priority", "id"],
    ),
)


def vibe(action: dict[str, Any], defs: str = "$defs") -> dict[str, Any]:
    """Mistral Vibe's todo tool, its `action` as given, its definitions under `defs`."""
    ref = {"$ref": f"#/{defs}/TodoItem"}
    item = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "content": {"type": "string"},
            "status": {"$ref": f"#/{defs}/TodoStatus", "default": "pending"},
            "priority": {"$ref": f"#/{defs}/TodoPriority", "default": "medium"},
        },
        "required": ["id", "content"],
    }
    statuses = ["pending", "in_progress", "completed", "cancelled"]
    return function(
        "todo",
        {
            "type": "object",
            "properties": {
                "action": action,
                "todos": {"anyOf": [{"type": "array", "items": ref}, {"type": "null"}]},
            },
            "required": ["action"],
            defs: {
                "TodoItem": item,
                "TodoStatus": {"type": "string", "enum": statuses},
                "TodoPriority": {"type": "string", "enum": ["low", "medium", "high"]},
            },
        },
    )


VIBE = vibe({"type": "string", "enum": ["read", "write"]})
DECOYS = [
    function("Task", {"properties": {"description": {"type": "string"}, "prompt": {}}}),
    function("present_plan", {"properties": {"plan": {"type": "string"}}}),
]
GIVEN = {
    "items": [
        {"content": "Read the code", "status": "completed"},
        {"content": "Write the tests", "status": "in_progress"},
    ]
}


def todo_call(tool: dict[str, Any], *others: dict[str, Any]) -> dict[str, Any]:
    chosen = roles.choose("todo", [*DECOYS, *others, tool])
    assert chosen is not None and chosen.name == tool["function"]["name"]
    return roles.arguments(chosen, GIVEN)


def test_the_todo_role_fills_each_agents_own_todo_tool() -> None:
    assert todo_call(CLAUDE) == {
        "todos": [
            {"content": "Read the code", "status": "completed", "activeForm": "Read the code"},
            {
                "content": "Write the tests",
                "status": "in_progress",
                "activeForm": "Write the tests",
            },
        ]
    }
    assert todo_call(TodoWrite.schema, CODEX) == {
        "todos": [
            {"content": "Read the code", "status": "completed"},
            {"content": "Write the tests", "status": "in_progress"},
        ]
    }
    assert todo_call(CODEX) == {
        "plan": [
            {"step": "Read the code", "status": "completed"},
            {"step": "Write the tests", "status": "in_progress"},
        ]
    }
    assert todo_call(KIMI)["todos"] == [
        {"title": "Read the code", "status": "Done"},
        {"title": "Write the tests", "status": "In Progress"},
    ]
    assert todo_call(CURSOR) == {
        "merge": False,
        "todos": [
            {"id": "1", "content": "Read the code", "status": "completed"},
            {"id": "2", "content": "Write the tests", "status": "in_progress"},
        ],
    }
    assert todo_call(OPENCODE)["todos"] == [
        {"content": "Read the code", "status": "completed", "priority": "medium", "id": "1"},
        {"content": "Write the tests", "status": "in_progress", "priority": "medium", "id": "2"},
    ]
    vibe_todos = [
        {"id": "1", "content": "Read the code", "status": "completed"},
        {"id": "2", "content": "Write the tests", "status": "in_progress"},
    ]
    assert todo_call(VIBE) == {"action": "write", "todos": vibe_todos}
    assert roles.choose("todo", DECOYS) is None
    assert roles.missing("todo", DECOYS) == "agent offers no todo-like tool"
    claude = roles.choose("todo", [CLAUDE])
    assert claude is not None and roles.arguments(claude, {"items": []}) == {"todos": []}


def test_what_a_todo_tool_requires_is_filled_by_its_name_and_schema() -> None:
    """A required enum with a write-like verb gets it (the call writes the list, never reads
    it); a priority its enum's `medium`, or `medium`; an action with no enum `write`; a
    text-like name the item's text, any other string its place. Definitions are read under
    `definitions` as under `$defs`, and a nullable `oneOf` as a nullable `anyOf`."""
    given = {"items": [{"content": "Read the code", "status": "pending"}]}

    def filled(tool: dict[str, Any]) -> dict[str, Any]:
        chosen = roles.choose("todo", [tool])
        assert chosen is not None
        return roles.arguments(chosen, given)

    first = {"id": "1", "content": "Read the code", "status": "pending"}
    assert filled(vibe({"type": "string"})) == {"action": "write", "todos": [first]}
    actions = {"enum": ["read", "write", "save", "restore"]}
    assert filled(vibe(actions, "definitions"))["action"] == "write"
    assert filled(vibe({"enum": ["get", "set"]}))["action"] == "set"
    assert filled(vibe({"enum": ["get", "list"]}))["action"] == "get"
    item = {
        "task": {"type": "string"},
        "priority": {"enum": ["high", "low"]},
        "activeForm": {"type": "string"},
        "owner": {"type": "string"},
        "tags": {"type": "array"},
        "estimate": {"oneOf": [{"type": "null"}, {"type": "integer"}]},
    }
    plan = todos("steps", item, list(item))
    nullable = {"oneOf": [{"type": "null"}, plan["properties"]["steps"]]}
    tool = function("plan", {**plan, "properties": {"steps": nullable}})
    assert filled(tool) == {
        "steps": [
            {
                "task": "Read the code",
                "priority": "high",
                "activeForm": "Read the code",
                "owner": "1",
                "tags": [],
                "estimate": 1,
            }
        ]
    }


def post(model: ModelServer, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        model.url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        data: bytes = reply.read()
        return data


def test_a_tool_call_streamed_then_the_next_reply_for_the_follow_up() -> None:
    script = [[{"text": "Writing."}, {"call": "write", "args": {"path": "/w/a", "content": "hi"}}]]
    model = ModelServer([*script, [{"text": "Done."}]])
    try:
        raw = post(model, {"stream": True, "tools": OFFERED, "messages": []}).decode()
        chunks = [json.loads(line[6:]) for line in raw.split("\n\n") if line[6:11] == '{"id"']
        deltas = [c["choices"][0]["delta"].get("tool_calls") for c in chunks]
        calls = [d[0] for d in deltas if d]
        assert calls[0]["id"] == "call_1" and calls[0]["function"]["name"] == "save_file"
        arguments = "".join(c["function"]["arguments"] for c in calls)
        assert json.loads(arguments) == {"file_path": "/w/a", "text": "hi"}
        assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
        follow_up = [{"role": "user"}, {"role": "assistant"}, {"role": "tool"}]
        whole = json.loads(post(model, {"tools": OFFERED, "messages": follow_up}))
        assert whole["choices"][0]["message"]["content"] == "Done."
        assert model.calls == [{"id": "call_1", "name": "save_file", "arguments": arguments}]
        assert len(model.requests) == 2 and model.missing == ""
    finally:
        model.close()


def test_a_whole_tool_call_and_a_tool_not_offered() -> None:
    model = ModelServer([[{"call": "shell", "args": {"command": "ls"}}]])
    try:
        whole = json.loads(post(model, {"tools": OFFERED, "messages": []}))
        choice = whole["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert choice["message"]["tool_calls"][0]["function"] == {
            "name": "run",
            "arguments": '{"cmd": "ls"}',
        }
        answer = json.loads(post(model, {"tools": OFFERED[:1], "messages": []}))
        assert answer["choices"][0]["finish_reason"] == "stop"
        assert model.missing == "agent offers no shell-like tool"
    finally:
        model.close()


def test_replies_are_placed_by_the_conversation_not_by_arrival() -> None:
    """A request without tools (a title asked on the side: it holds no text of the prompt)
    gets the default reply and uses up nothing; a retry gets the same reply; each prompt starts
    at its own turn of the script."""
    script = [[{"call": "shell", "args": {"command": "ls"}}], [{"text": "one"}], [{"text": "two"}]]
    model = ModelServer(script)
    user, reply = {"role": "user"}, {"role": "assistant"}

    def answer(body: dict[str, Any]) -> Any:
        choice = json.loads(post(model, body))["choices"][0]
        return choice["message"].get("content") or choice["message"]["tool_calls"][0]["id"]

    try:
        model.new_turn()
        assert answer({"messages": [user]}) == "Conformance"
        assert answer({"tools": OFFERED, "messages": [user]}) == "call_1"
        assert answer({"tools": OFFERED, "messages": [user]}) == "call_2"  # a retry
        assert answer({"tools": [], "messages": [user, reply]}) == "Conformance"
        assert answer({"tools": OFFERED, "messages": [user, reply, {"role": "tool"}]}) == "one"
        model.new_turn()
        history = [user, reply, {"role": "tool"}, reply, user]
        assert answer({"tools": OFFERED, "messages": history}) == "two"
        model.new_turn()
        assert answer({"tools": OFFERED, "messages": [*history, reply, user]}) == "two"
    finally:
        model.close()


def test_an_agent_that_offers_no_tools_gets_a_script_that_needs_none() -> None:
    """gptme offers its model no tools (they are text in its replies): its turn's request,
    which holds the prompt, gets the script; a side request (a title, without the prompt's
    text) the default reply. Once a request offered tools, one without is a side request; a
    script that needs a tool call is never played without tools."""

    def answer(model: ModelServer, body: dict[str, Any]) -> Any:
        return json.loads(post(model, body))["choices"][0]["message"]["content"]

    prompt = {"role": "user", "content": [{"type": "text", "text": "write a long answer"}]}
    title = {"role": "user", "content": "A title for: a conversation"}
    model = ModelServer([[{"text": "Scripted."}]])
    try:
        model.new_turn(["write a long answer"])
        assert answer(model, {"messages": [title]}) == "Conformance"
        assert answer(model, {"messages": [{"role": "system"}, prompt]}) == "Scripted."
        assert answer(model, {"tools": OFFERED, "messages": [prompt]}) == "Scripted."
        assert answer(model, {"messages": [prompt]}) == "Conformance"
        assert model.scripted == 2
    finally:
        model.close()
    model = ModelServer([[{"call": "shell", "args": {"command": "ls"}}]])
    try:
        model.new_turn(["write a long answer"])
        assert answer(model, {"messages": [prompt]}) == "Conformance"
        assert model.scripted == 0 and model.why_no_call == "the agent offers its model no tools"
    finally:
        model.close()


def test_another_model_api_is_refused_and_named() -> None:
    """A Gemini client pointed at the server (generateContent) is answered 404, and the reason
    a scenario's tool call was not made names the path it asked for."""
    model = ModelServer([[{"call": "shell", "args": {"command": "ls"}}]])
    path = "/v1/models/conformance-model:generateContent"
    try:
        request = urllib.request.Request(
            model.url.removesuffix("/v1") + path, data=b"{}", method="POST"
        )
        try:
            urllib.request.urlopen(request, timeout=5)
            raise AssertionError("answered")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
            assert b"not served: this is a Chat Completions server" in exc.read()
        assert model.requests == []
        assert model.why_no_call == f"the agent speaks another model API: it asked for {path}"
        assert model.exchanges[-1]["path"] == path
    finally:
        model.close()
