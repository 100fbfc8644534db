"""A small ACP agent over stdio that the conformance runner calibrates against: correct by
default, and wrong in the ways BREAK (a comma-separated list) names, so every check of the
runner is seen failing at least once (tests/conformance/test_runner.py). A turn is one chunk,
then the scripted model at SCRIPTED_MODEL is asked (broken_tools.py: tool calls through the
client, with their own faults); when it makes no tool call, a short pause a cancel can land in.

Faults:
  version        answers the client's protocolVersion, whatever it is
  schema         initialize without protocolVersion; sessionId a number; list, close and
                 prompt results of the wrong shape
  accept-all     accepts what it should refuse: relative or missing cwd, unknown sessions,
                 unknown config options and modes, a missing "jsonrpc" or protocolVersion,
                 positional params, mcpServers that is not a list, prompts to closed sessions
  unknown-result answers unknown methods (plain and `_`-prefixed) with a result
  wrong-codes    refuses with the wrong codes
  bad-error      error objects without a message
  answer-notes   answers notifications
  parse-silent   no answer to a line that is not JSON, nor to an invalid request
  die-on-bad     exits at the first line it cannot serve (bad JSON, batch, empty line, ...)
  die-after-error  exits right after it answers with an error
  die-after-note   exits right after a notification
  stuck          after its first error, answers every request -32600 (it reads none any more)
  mangle-ids     echoes integer ids (but initialize's) as floats, string ids as ASCII and
                 cut at 1024 characters
  legacy-silent  no answer to a string protocolVersion
  init-error     refuses every initialize
  early-silent   no answer to requests before initialize
  drop-N         never answers a request with id N
  bad-update     a session/update without content
  no-updates     no session/update in a turn
  late-update    a session/update after the prompt's response
  stop-refusal   ends every turn with refusal
  ignore-cancel  finishes a cancelled turn with end_turn
  list-empty     session/list lists nothing
  keep-deleted   session/delete leaves the session listed
  strict-fields  session/new refuses fields it does not know
  no-exit        ignores the end of its input
  exit-1         exits 1 at the end of its input
  banner         writes lines that are not JSON on its stdout (at start, in a turn)
  odd-request    asks the client `editor/refresh` in a turn (no such method, no `_`)
  extra-fields   results with a field the spec does not define at their root
  msgid-apart    one message's chunks under two messageIds, and a load replays other ids
  mode-apart     the mode option and `modes` disagree: the option keeps its value after
                 session/set_mode, no current_mode_update after the option is set
  fork-same      session/fork answers the source's own id
  fork-broken    the fork takes the source's place (the source is closed), and its updates
                 name the source
  no-agent-info  initialize without agentInfo
  same-id        every session/new answers the first session's id
  mode-stray     a session's currentModeId is none of its availableModes
  config-stray   the mode option holds a value it does not offer, beside a boolean option the
                 client did not ask for
  list-unfiltered  session/list ignores its cwd filter
  multiline-error  error messages run over two lines
  meta-refused   refuses a prompt whose params carry `_meta`
  no-links       refuses a prompt with a resource_link block
  drop-links     takes a resource_link block and tells the model nothing of it
  delete-strict  refuses to delete a session it does not know
  load-null      session/load answers null
  load-fresh-refused  session/load of a session with no turn yet is refused
  resume-unserved  advertises session/resume and answers it -32601
  resume-null    session/resume answers null
  resume-refused refuses session/resume
  close-keeps-turn  session/close leaves the session's running turn to finish
  close-busy     refuses to close a session while its turn runs
  load-silent    session/load replays nothing
  load-late      session/load replays after its response
  resume-replays session/resume replays the conversation before its response
  no-extra-dirs  advertises additionalDirectories, then refuses a session/new that has them
  latin1-out     replies "hé!" and writes what is beyond ASCII in Latin-1, not UTF-8
  accept-unadvertised  serves image, audio and embedded resource content it does not advertise
  refuse-advertised    advertises image, audio and embedded context, then refuses them
  title-bare     session/set_title answers {}, without the title it stored
  title-unstored session/set_title answers, and session/list shows the old title
  title-any      session/set_title takes a title that is only blanks
  title-32602    session/set_title of an unknown session is -32602
  archive-shape  session/archive answers a string
  archive-listed session/archive leaves the session in the default session/list
  archive-lost   session/list never lists an archived session, whatever its filter
  archive-unflagged  session/list's sessions have no `archived`
  archive-filter-lax  an archived filter it does not know is taken as exclude
  archive-32602  session/archive of an unknown session is -32602
  unarchive-shape  session/unarchive answers null
  unarchive-noop session/unarchive leaves the session archived
  status-shape   session/status answers {"state": ...}
  status-saved   session/status says saved of a session it has open
  status-open    session/status says open of a session it closed
  status-32602   session/status of an unknown session is -32602
  sysprompt-refused  session/new refuses a systemPrompt in append mode
  sysprompt-dropped  session/new takes a systemPrompt and tells the model nothing of it
  sysprompt-any-mode session/new takes a systemPrompt mode it does not know as append
  mcp-acp-unserved  advertises mcpCapabilities.acp, then refuses a session/new with an acp
                 MCP server (-32602)
and those of broken_tools.py, broken_mcp.py (MCP servers over ACP), broken_plan.py (the todo list
as the plan), broken_providers.py
(providers/*, advertised as agentCapabilities.providers) and broken_auth.py (authenticate,
logout, auth/status and auth/status_update).

QUIRK (comma-separated) makes it behave as some real agents lawfully do (test_peers.py):
  no-config      advertises no configOptions; session/set_config_option is -32601
  no-model       refuses session/new with -32000, as an agent with no model configured does
  strict-init    refuses a string protocolVersion (and stays uninitialised)
  late-session-updates  available_commands_update, usage_update and session_info_update
                 after a prompt's response
  list-after-turn  session/list lists a session only once it had a turn
  legacy-models  session/new's result has the retired `models` block (availableModels,
                 currentModelId) hosts from before the model config option read
  unstable-usage  the prompt's result has `usage`, a field of the unstable schema
  plan-first     a session starts in its second listed mode (plan), and a mode set to what it
                 already is changes nothing and says nothing
  lax            no answer to lines it cannot read (not JSON, not a request, a batch);
                 accepts a relative cwd and a missing "jsonrpc"; refuses unknown `_`
                 requests with -32603
  mcp-acp-eager  reaches the MCP servers its client provides over ACP as soon as it has
                 answered session/new, not at the session's first turn
and those of broken_tools.py and broken_auth.py.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time

import broken_auth
import broken_providers
from broken_mcp import AcpServers, declared
from broken_tools import Tools

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from typing import Any

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
QUIRK = {b.strip() for b in os.environ.get("QUIRK", "").split(",") if b.strip()}
MODES = ("normal", "plan")
RICH = {"image": True, "audio": True, "embeddedContext": True}  # refuse-advertised
RICH_BLOCKS = {"image", "audio", "resource"}  # never taken (none is advertised)
MODE = {"id": "mode", "name": "Mode", "category": "mode", "type": "select"}
MODE["options"] = [{"value": m, "name": m.title()} for m in MODES]
mode_of: dict[str, str] = {}  # session → its mode
replays: dict[str, list[dict[str, Any]]] = {}  # session → the chunks a load replays
named_as: dict[str, str] = {}  # fork-broken: a fork whose updates name its source
prompted: set[str] = set()  # sessions that had a turn
turning: set[str] = set()  # sessions whose turn is running
sessions: dict[str, bool] = {}  # id → open
places: dict[str, str] = {}  # session → cwd
with_mcp: set[str] = set()  # sessions given the conformance MCP server
acp_servers: dict[str, AcpServers] = {}  # session → the MCP servers its client provides
titles: dict[str, str] = {}  # session → the client's title
system_prompts: dict[str, str] = {}  # session → its systemPrompt's text, told the model
archived: set[str] = set()
FILTERS = ("exclude", "include", "only")  # session/list's `archived`
initialized = False
stuck: list[Any] = []  # the ids of the errors sent (BREAK=stuck: any)
client_caps: dict[str, Any] = {}
pending: dict[str, tuple[threading.Event, list[dict[str, Any]]]] = {}  # our requests, by id
REQUEST_IDS = itertools.count(1)


LOCK = threading.Lock()
cancels: dict[str, threading.Event] = {}  # session → the running turn's cancel


def send(frame: dict[str, Any]) -> None:
    with LOCK:
        if "latin1-out" in BREAK:
            line = json.dumps(frame, ensure_ascii=False) + "\n"
            sys.stdout.flush()
            sys.stdout.buffer.write(line.encode("latin-1", "replace"))
            sys.stdout.buffer.flush()
            return
        sys.stdout.write(json.dumps(frame) + "\n")
        sys.stdout.flush()


def send_text(line: str) -> None:
    with LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def update(sid: str, body: dict[str, Any]) -> None:
    named = named_as.get(sid, sid)
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": named, "update": body},
        }
    )


def mode_state(sid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(`modes`, the mode config option) of a session, in step unless mode-apart."""
    current = mode_of.get(sid, "plan" if "plan-first" in QUIRK else "normal")
    modes = {
        "currentModeId": "nowhere" if "mode-stray" in BREAK else current,
        "availableModes": [{"id": m, "name": m.title()} for m in MODES],
    }
    option = {**MODE, "currentValue": "plan" if "mode-apart" in BREAK else current}
    return modes, option


def chunks(sid: str) -> list[dict[str, Any]]:
    """The turn's reply: two chunks of one message (msgid-apart: three, under two ids)."""
    n = len(replays.setdefault(sid, []))
    ids = (
        [f"{sid}-m{n}-a", f"{sid}-m{n}-b", f"{sid}-m{n}-a"]
        if "msgid-apart" in BREAK
        else [f"{sid}-m{n}"] * 2
    )
    texts = ["h", "é" if "latin1-out" in BREAK else "i", "!"][: len(ids)]
    return [
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": t},
            "messageId": i,
        }
        for t, i in zip(texts, ids, strict=True)
    ]


def request(
    method: str, params: dict[str, Any], cancelled: Any = None, patient: bool = False
) -> tuple[Any, Any]:
    """A request to the client → (result, error); (None, None) when `cancelled` is set first
    (unless `patient`: a permission question is always answered)."""
    rid = f"b{next(REQUEST_IDS)}"  # one each, whichever thread asks
    done: tuple[threading.Event, list[dict[str, Any]]] = (threading.Event(), [])
    pending[rid] = done
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    deadline = time.monotonic() + 30
    while not done[0].wait(0.05) and time.monotonic() < deadline:
        if cancelled is not None and cancelled.is_set() and not patient:
            return None, None
    answer = done[1][0] if done[1] else {"error": {"message": "no answer"}}
    return answer.get("result"), answer.get("error")


def turn(rid: Any, sid: str, cancelled: threading.Event, text: str) -> None:
    """A prompt's turn on a thread: a chunk, the model's tool calls or a pause a cancel can
    land in, the answer."""
    turning.add(sid)
    if "banner" in BREAK:
        send_text("Thinking...")
    if "odd-request" in BREAK:
        request("editor/refresh", {"sessionId": sid})
    reply = chunks(sid)
    if "bad-update" in BREAK:
        del reply[0]["content"]
    if "no-updates" not in BREAK:
        for chunk in reply:
            update(sid, chunk)
        replays[sid] += reply
    cwd = places.get(sid, os.getcwd())
    acp = acp_servers.get(sid)
    tools = Tools(sid, client_caps, cwd, request, update, cancelled, sid in with_mcp, acp)
    ran = tools.run(text)
    if ran is not None:
        stopped = ran[0] == "cancelled" and "ignore-cancel" not in BREAK
    else:
        stopped = cancelled.wait(0.6) and "ignore-cancel" not in BREAK
    reason = "cancelled" if stopped else ("refusal" if "stop-refusal" in BREAK else "end_turn")
    answer: dict[str, Any] = {"stopReason": 5 if "schema" in BREAK else reason}
    if "unstable-usage" in QUIRK:
        answer["usage"] = {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}
    turning.discard(sid)
    result(rid, answer)
    if "late-session-updates" in QUIRK:  # session state, not turn content
        update(sid, {"sessionUpdate": "available_commands_update", "availableCommands": []})
        update(sid, {"sessionUpdate": "usage_update", "used": 10, "size": 1000})
        update(sid, {"sessionUpdate": "session_info_update", "title": "A title"})
    if "late-update" in BREAK:
        update(
            sid,
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "late"}},
        )
    if "late-request" in BREAK and ran is not None:
        path = os.path.join(places.get(sid, "/"), "late.txt")
        send(
            {
                "jsonrpc": "2.0",
                "id": "late",
                "method": "fs/read_text_file",
                "params": {"sessionId": sid, "path": path},
            }
        )


def error(rid: Any, code: int, message: str) -> None:
    if "wrong-codes" in BREAK:
        code = {-32602: -32603, -32601: -32600, -32600: -32700, -32700: -32600}.get(code, code)
    body: dict[str, Any] = {"code": code, "message": message}
    if "multiline-error" in BREAK:
        body["message"] = f"{message}\nsee the log"
    if "bad-error" in BREAK:
        del body["message"]
    send({"jsonrpc": "2.0", "id": rid, "error": body})
    stuck.append(rid)
    if "die-after-error" in BREAK:
        sys.exit(3)


def result(rid: Any, value: Any) -> None:
    if "mangle-ids" in BREAK and rid != 1:  # initialize itself is answered right
        if isinstance(rid, int):
            rid = float(rid)
        elif isinstance(rid, str):
            rid = rid.encode("ascii", "replace").decode()[:1024]
    if "extra-fields" in BREAK and isinstance(value, dict):
        value = {**value, "vendorInfo": "x"}
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def bad_line(rid: Any, code: int, message: str) -> None:
    if "die-on-bad" in BREAK:
        sys.exit(3)
    if "parse-silent" not in BREAK and "lax" not in QUIRK:
        error(rid, code, message)


def initialize(rid: Any, params: dict[str, Any]) -> None:
    global initialized
    version = params.get("protocolVersion")
    if "init-error" in BREAK:
        return error(rid, -32603, "not today")
    if version is None and "accept-all" not in BREAK:
        return error(rid, -32602, "protocolVersion is required")
    if isinstance(version, str) and "legacy-silent" in BREAK:
        return None
    if isinstance(version, str) and "strict-init" in QUIRK:
        return error(rid, -32602, "protocolVersion must be an integer")
    initialized = True
    caps = params.get("clientCapabilities")
    client_caps.clear()
    client_caps.update(caps if isinstance(caps, dict) else {})
    answer: dict[str, Any] = {
        "protocolVersion": version if "version" in BREAK else 1,
        "agentCapabilities": {
            "loadSession": True,
            "sessionCapabilities": {
                "list": {},
                "close": {},
                "resume": {},
                "delete": {},
                "fork": {},
                "additionalDirectories": {},
                "title": {},
                "archive": {},
                "status": {},
                "systemPrompt": {},
            },
            "auth": {"status": {}, "logout": {}},
            "mcpCapabilities": {"acp": True},
            "providers": {},
            **({"promptCapabilities": RICH} if "refuse-advertised" in BREAK else {}),
        },
        "authMethods": broken_auth.methods(),
    }
    if "no-agent-info" not in BREAK:
        answer["agentInfo"] = {"name": "broken-agent", "version": "1.0"}
    if "schema" in BREAK:
        del answer["protocolVersion"]
    result(rid, answer)
    return None


def session_method(rid: Any, method: str, params: dict[str, Any]) -> None:
    accept = "accept-all" in BREAK
    sid = params.get("sessionId")
    if method == "session/new":
        if "no-model" in QUIRK:
            return error(rid, -32000, "session/new: no model provider is configured")
        if broken_auth.forgets():
            return error(rid, -32000, "authentication required")
        cwd = params.get("cwd")
        lax = "lax" in QUIRK and isinstance(cwd, str)
        if not accept and not lax and (not isinstance(cwd, str) or not os.path.isabs(cwd)):
            return error(rid, -32602, "cwd must be an absolute path")
        if not accept and not isinstance(params.get("mcpServers"), list):
            return error(rid, -32602, "mcpServers must be a list")
        if "no-extra-dirs" in BREAK and "additionalDirectories" in params:
            return error(rid, -32602, "additionalDirectories is not supported")
        if "strict-fields" in BREAK and set(params) - {"cwd", "mcpServers"}:
            return error(rid, -32602, "unknown field")
        system, refusal = system_prompt(params.get("systemPrompt"))
        if refusal:
            return error(rid, -32602, refusal)
        provided = declared(params.get("mcpServers"))
        if provided and "mcp-acp-unserved" in BREAK:
            return error(rid, -32602, "mcpServers: acp servers are not supported")
        new = "s1" if "same-id" in BREAK and sessions else f"s{len(sessions) + 1}"
        if system and "sysprompt-dropped" not in BREAK:
            system_prompts[new] = system
        sessions[new] = True
        places[new] = cwd if isinstance(cwd, str) else "/"
        servers = params.get("mcpServers") if isinstance(params.get("mcpServers"), list) else []
        if any(isinstance(m, dict) and m.get("name") == "conformance" for m in servers):
            with_mcp.add(new)
        acp_servers[new] = AcpServers(provided, request)
        modes, option = mode_state(new)
        answer = {"sessionId": 7 if "schema" in BREAK else new, "modes": modes}
        if "no-config" not in QUIRK:
            answer["configOptions"] = [option]
        if "config-stray" in BREAK:
            toggle = {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": True}
            answer["configOptions"] = [{**option, "currentValue": "nowhere"}, toggle]
        if "legacy-models" in QUIRK:
            model = {"modelId": "m", "name": "m"}
            answer["models"] = {"availableModels": [model], "currentModelId": "m"}
        result(rid, answer)
        if "mcp-acp-eager" in QUIRK:
            threading.Thread(target=acp_servers[new].connect, daemon=True).start()
        return None
    if method == "session/list":
        shown = [s for s in sessions if s in prompted or "list-after-turn" not in QUIRK]
        wanted = params.get("cwd")
        if isinstance(wanted, str) and "list-unfiltered" not in BREAK:
            shown = [s for s in shown if places.get(s) == wanted]
        kept = params.get("archived") or "exclude"
        if kept not in FILTERS and "archive-filter-lax" not in BREAK:
            return error(rid, -32602, f"archived: unknown filter {kept}")
        if kept in ("exclude", "only"):
            shown = [s for s in shown if (s in archived) == (kept == "only")]
        if "archive-lost" in BREAK:
            shown = [s for s in shown if s not in archived]
        listed = [listed_as(s) for s in shown]
        listed = [] if "list-empty" in BREAK else listed
        return result(rid, {"sessions": "none" if "schema" in BREAK else listed})
    if method == "session/delete" and not sessions.get(sid) and "delete-strict" not in BREAK:
        return result(rid, {})  # nothing to delete: done
    if method == "session/resume" and "resume-unserved" in BREAK:
        return error(rid, -32601, "Method not found")
    if method in CATALOG:
        return CATALOG[method](rid, str(sid), params)
    if not accept and not sessions.get(sid):
        return error(rid, -32602, f"unknown session {sid}")
    if method == "session/close" and str(sid) in turning and "close-busy" in BREAK:
        return error(rid, -32603, "the session is busy")
    if method == "session/close":
        running = cancels.get(str(sid))
        if running is not None and "close-keeps-turn" not in BREAK:
            running.set()  # closing ends the work in progress: the turn answers cancelled
        sessions[sid] = False
        return result(rid, "closed" if "schema" in BREAK else {})
    if method == "session/delete":
        if "keep-deleted" not in BREAK:
            sessions.pop(str(sid), None)
        return result(rid, "deleted" if "schema" in BREAK else {})
    if method == "session/set_mode" and (params.get("modeId") in MODES or accept):
        return set_mode(rid, str(sid), str(params.get("modeId")), True)
    if method == "session/set_mode":
        return error(rid, -32602, "unknown mode")
    if method == "session/load":
        if "load-fresh-refused" in BREAK and not replays.get(str(sid)):
            return error(rid, -32603, "No previous sessions found for this project.")
        if "load-late" in BREAK:
            result(rid, {})
        for chunk in [] if "load-silent" in BREAK else replays.get(str(sid), []):
            again = {**chunk, "messageId": "other-" + chunk["messageId"]}
            update(str(sid), again if "msgid-apart" in BREAK else chunk)
        if "load-late" in BREAK:
            return None
        return result(rid, None if "load-null" in BREAK else {})
    if method == "session/resume" and "resume-replays" in BREAK:
        for chunk in replays.get(str(sid), []):
            update(str(sid), chunk)
    if method == "session/resume" and "resume-refused" in BREAK:
        return error(rid, -32603, "cannot resume")
    if method == "session/resume" and "resume-null" in BREAK:
        return result(rid, None)
    if method == "session/fork":
        return fork(rid, str(sid), params)
    if method == "session/prompt" and "_meta" in params and "meta-refused" in BREAK:
        return error(rid, -32602, "unknown field _meta")
    blocks = params.get("prompt") if isinstance(params.get("prompt"), list) else []
    linked = any(isinstance(b, dict) and b.get("type") == "resource_link" for b in blocks)
    if method == "session/prompt" and linked and "no-links" in BREAK:
        return error(rid, -32602, "resource_link is not supported")
    rich = sorted({b.get("type") for b in blocks if isinstance(b, dict)} & RICH_BLOCKS)
    if method == "session/prompt" and rich and "accept-unadvertised" not in BREAK:
        return error(rid, -32602, f"{rich[0]} content is not taken here")
    if method == "session/prompt":
        prompted.add(str(sid))
        cancels[str(sid)] = threading.Event()
        links = "drop-links" not in BREAK
        text = " ".join(
            b.get("text") or (b.get("uri", "") if links else "")
            for b in blocks
            if isinstance(b, dict)
        )
        if str(sid) in system_prompts:  # the client's instructions, before the prompt
            text = f"{system_prompts[str(sid)]}\n\n{text}"
        threading.Thread(target=turn, args=(rid, str(sid), cancels[str(sid)], text)).start()
        return None
    if method == "session/set_config_option" and "no-config" in QUIRK:
        return error(rid, -32601, "no config options")
    if method == "session/set_config_option" and params.get("configId") == "mode" and not accept:
        if params.get("value") not in MODES:
            return error(rid, -32602, "unknown value")
        if "schema" in BREAK:
            return result(rid, {})
        return set_mode(rid, str(sid), str(params["value"]), False)
    if method == "session/set_config_option" and not accept:
        return error(rid, -32602, "unknown config option")
    return result(rid, {})


def set_mode(rid: Any, sid: str, mode: str, by_mode: bool) -> None:
    """The mode changed by session/set_mode or the mode option: the answer, then both updates
    (mode-apart: the option's update says the old value, no current_mode_update after the
    option is set)."""
    before, _ = mode_state(sid)
    mode_of[sid] = mode
    _, option = mode_state(sid)
    if "plan-first" in QUIRK and before["currentModeId"] == mode:  # nothing changed
        return result(rid, {} if by_mode else {"configOptions": [option]})
    result(rid, {} if by_mode else {"configOptions": [option]})
    if by_mode or "mode-apart" not in BREAK:
        update(sid, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
    if "mode-apart" in BREAK:
        option = {**option, "currentValue": "normal" if mode == "plan" else "plan"}
    update(sid, {"sessionUpdate": "config_option_update", "configOptions": [option]})


def fork(rid: Any, source: str, params: dict[str, Any]) -> None:
    new = source if "fork-same" in BREAK else f"s{len(sessions) + 1}"
    sessions[new] = True
    places[new] = params.get("cwd") if isinstance(params.get("cwd"), str) else places[source]
    replays[new] = list(replays.get(source, []))
    mode_of[new] = mode_of.get(source, "normal")
    if "fork-broken" in BREAK and new != source:
        sessions[source] = False
        named_as[new] = source
    modes, option = mode_state(new)
    answer = {"sessionId": 7 if "schema" in BREAK else new, "modes": modes}
    result(rid, {**answer, "configOptions": [option]})


def system_prompt(given: Any) -> tuple[str, str]:
    """A systemPrompt's text (append mode, text blocks) and "", or "" and why it is refused."""
    if not isinstance(given, dict):
        return "", ""
    if "sysprompt-refused" in BREAK:
        return "", "systemPrompt is not supported"
    if given.get("mode") != "append" and "sysprompt-any-mode" not in BREAK:
        return "", f"systemPrompt mode {given.get('mode')!r} is not supported"
    blocks = given.get("content") if isinstance(given.get("content"), list) else []
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    if not texts or len(texts) != len(blocks):
        return "", "systemPrompt content must be text blocks"
    return "\n\n".join(str(t) for t in texts), ""


def listed_as(sid: str) -> dict[str, Any]:
    info: dict[str, Any] = {"sessionId": sid, "cwd": places.get(sid, "/")}
    if sid in titles:
        info["title"] = titles[sid]
    if "archive-unflagged" not in BREAK:
        info["archived"] = sid in archived
    return info


def unknown(rid: Any, sid: str, fault: str) -> bool:
    """An unknown session's refusal (-32002), True; False for a known one."""
    if sid in sessions:
        return False
    error(rid, -32602 if fault in BREAK else -32002, f"unknown session {sid}")
    return True


def set_title(rid: Any, sid: str, params: dict[str, Any]) -> None:
    title = " ".join(str(params.get("title", "")).split())
    if not title and "title-any" not in BREAK:
        return error(rid, -32602, "title is empty")
    if unknown(rid, sid, "title-32602"):
        return None
    if "title-unstored" not in BREAK:
        titles[sid] = title
    return result(rid, {} if "title-bare" in BREAK else {"title": title})


def archive(rid: Any, sid: str, params: dict[str, Any]) -> None:
    if unknown(rid, sid, "archive-32602"):
        return None
    sessions[sid] = False  # closed, as session/close would
    if "archive-listed" not in BREAK:
        archived.add(sid)
    return result(rid, "archived" if "archive-shape" in BREAK else {})


def unarchive(rid: Any, sid: str, params: dict[str, Any]) -> None:
    if unknown(rid, sid, "archive-32602"):
        return None
    if "unarchive-noop" not in BREAK:
        archived.discard(sid)
    return result(rid, None if "unarchive-shape" in BREAK else {})


def status(rid: Any, sid: str, params: dict[str, Any]) -> None:
    if unknown(rid, sid, "status-32602"):
        return None
    state = "open" if sessions[sid] else "saved"
    state = "saved" if "status-saved" in BREAK else "open" if "status-open" in BREAK else state
    return result(rid, {"state": state} if "status-shape" in BREAK else {"status": state})


CATALOG = {
    "session/set_title": set_title,
    "session/archive": archive,
    "session/unarchive": unarchive,
    "session/status": status,
}


def serve(line: str) -> None:
    try:
        frame = json.loads(line)
    except ValueError:
        return bad_line(None, -32700, "parse error")
    if not isinstance(frame, dict):
        return bad_line(None, -32600, "not a request object")
    rid, method = frame.get("id"), frame.get("method")
    if method is None and isinstance(rid, str) and rid in pending:  # the client's answer
        pending[rid][1].append(frame)
        pending[rid][0].set()
        return None
    if not isinstance(method, str):
        return bad_line(rid, -32600, "no method")
    if "id" not in frame:  # a notification
        if method == "session/cancel" and isinstance(frame.get("params"), dict):
            running = cancels.get(str(frame["params"].get("sessionId")))
            if running is not None:
                running.set()
        if "answer-notes" in BREAK:
            result(None, {})
        if "die-after-note" in BREAK:
            sys.exit(3)
        return None
    if f"drop-{rid}" in BREAK:
        return None
    if "stuck" in BREAK and stuck:
        return error(rid, -32600, "invalid request")
    if frame.get("jsonrpc") != "2.0" and "accept-all" not in BREAK and "lax" not in QUIRK:
        return error(rid, -32600, "jsonrpc must be 2.0")
    params = frame.get("params") or {}
    if not isinstance(params, dict):
        if "accept-all" not in BREAK:
            return error(rid, -32602, "params must be an object")
        params = {"cwd": "/", "mcpServers": []}
    if method == "initialize":
        return initialize(rid, params)
    if not initialized:
        if "early-silent" not in BREAK:
            error(rid, -32600, "initialize first")
        return None
    if method.startswith("session/") and method != "session/teleport":
        return session_method(rid, method, params)
    if method in broken_auth.METHODS:
        return broken_auth.serve(rid, method, params, result, error, send)
    if method.startswith("providers/"):
        return broken_providers.serve(rid, method, params, result, error)
    if "unknown-result" in BREAK:
        return result(rid, {})
    if "lax" in QUIRK and method.startswith("_"):
        return error(rid, -32603, f"cannot serve {method}")
    return error(rid, -32601, f"method not found: {method}")


def main() -> None:
    if "banner" in BREAK:
        send_text("broken agent ready")
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if not line.strip():
            if "die-on-bad" in BREAK:
                sys.exit(3)
            continue
        serve(line)
    if "no-exit" in BREAK:
        time.sleep(3600)
    sys.exit(1 if "exit-1" in BREAK else 0)


if __name__ == "__main__":
    main()
