"""`acp sessions list [--all] | show ID | export ID --format ndjson|markdown | delete ID`.

Reads the same store the agent writes (`--data-dir` / REASONIX_ACP_DATA_DIR). `list` shows the
sessions that were prompted (`--all`: also those never prompted); an ID may be any unique
prefix of one (as `list` prints them). Output is for
people (list, show, markdown) or for tools (ndjson: one `session/update` payload per line, as a
`session/load` would replay it).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from reasonix_acp.cli.usage import SESSIONS
from reasonix_acp.session.checkpoint_rows import CheckpointRows
from reasonix_acp.session.listing import untitled
from reasonix_acp.session.projector import REPLAYED, updates
from reasonix_acp.session.store import LeaseHeld, Store, StoreError
from reasonix_acp.words import counted

USAGE = SESSIONS.rstrip("\n")


def _text_of(content: dict[str, Any]) -> str:
    kind = content.get("type")
    if kind == "text":
        return str(content.get("text", ""))
    if kind == "resource":
        return f"[resource {content.get('resource', {}).get('uri', '')}]"
    if kind == "resource_link":
        return f"[link {content.get('uri', '')}]"
    return f"[{kind}]"


def markdown(store: Store, session_id: str, out: TextIO) -> None:
    record = store.get_session(session_id)
    assert record is not None
    out.write(f"# {record.title or session_id}\n\n")
    out.write(f"- session: `{record.id}`\n- cwd: `{record.cwd}`\n- model: `{record.model}`\n")
    out.write(f"- updated: {record.updated_at}\n\n")
    current = None
    for event in store.events(session_id):
        heading = {
            "user_message": "## User",
            "agent_message": "## Agent",
            "agent_thought": "## Agent (thinking)",
        }.get(event.kind)
        if heading and heading != current:
            out.write(f"\n\n{heading}\n\n")
            current = heading
        if event.kind == "user_message":
            out.write("\n\n".join(_text_of(c) for c in event.body.get("content", [])) + "\n")
        elif event.kind in ("agent_message", "agent_thought"):
            out.write(event.body.get("text", ""))
        elif event.kind == "tool_call":
            current = None
            out.write(
                f"\n\n- tool `{event.body.get('x-tool', '')}`: {event.body.get('title', '')}\n"
            )
        elif event.kind == "tool_call_update":
            texts = [
                _text_of(c.get("content", {}))
                for c in event.body.get("content", [])
                if c.get("type") == "content"
            ]
            out.write(f"  - {event.body.get('status')}: {' '.join(texts)}\n")
        elif event.kind == "compaction":
            current = None
            compacted = event.body.get("compacted", 0)
            out.write(f"\n\n## Compacted ({counted(compacted, 'earlier message')})\n\n")
            out.write(str(event.body.get("summary", "")) + "\n")
    out.write("\n")


def checkpoints(rows: CheckpointRows, session_id: str, out: TextIO) -> None:
    """The session's checkpoints, newest last: what `/rewind N` would go back over."""
    points = rows.points(session_id)
    if not points:
        out.write("checkpoints              none\n")
        return
    files: dict[int, list[str]] = {}
    for turn, path, before, after, _mode in rows.rows(session_id):
        mark = "+" if before is None else "-" if after is None else "~"
        files.setdefault(turn, []).append(f"{mark}{path}")
    out.write(f"checkpoints              {len(points)} (/rewind N goes back over the last N)\n")
    for back, (turn, body) in zip(range(len(points), 0, -1), points, strict=True):
        changed = files.get(turn, [])
        line = f"  {back:>3}  turn {turn}: {counted(len(changed), 'file')}"
        if changed:
            line += "  " + " ".join(changed[:8]) + (" ..." if len(changed) > 8 else "")
        untracked = body.get("untracked") or []
        if untracked:
            line += f"  (not kept: {', '.join(str(u) for u in untracked[:4])})"
        out.write(line + "\n")


def listing(store: Store, every: bool, out: TextIO) -> int:
    """`list [--all]`: one line a session; as session/list, archived ones only with --all
    (marked), and those never prompted too."""
    archived = "include" if every else "exclude"
    rows = store.list_sessions(None, None, 10_000, prompted_only=not every, archived=archived)
    if not rows:
        hidden = not every and store.list_sessions(None, None, 1, prompted_only=False)
        out.write("no sessions to list (--all shows them all)\n" if hidden else "no sessions\n")
    for r in rows:
        turns = f"{r.turn_count:>3} turn{'' if r.turn_count == 1 else 's'}"
        title = ("[archived] " if r.archived else "") + (r.title or untitled(r.created_at))
        out.write(f"{r.id}  {r.updated_at}  {turns:<9}  {r.cwd}  {title}\n")
    return 0


def _resolve(store: Store, given: str) -> str | None:
    """The session `given` names: its id, or the one id it is a prefix of (else said why)."""
    if store.get_session(given) is not None:
        return given
    ids = [r.id for r in store.list_sessions(None, None, 100_000, prompted_only=False)]
    matches = [i for i in ids if i.startswith(given)] if given else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        sys.stderr.write(
            f"acp sessions: {given} is the start of {len(matches)} sessions; give more\n"
        )
    else:
        sys.stderr.write(f"acp sessions: unknown session {given}\n")
    return None


def run(store: Store, args: list[str], out: TextIO = sys.stdout) -> int:
    if not args:
        sys.stderr.write(USAGE + "\n")
        return 2
    command, rest = args[0], args[1:]
    if command in ("-h", "--help", "help"):
        out.write(USAGE + "\n")
        return 0
    if command == "list":
        return listing(store, "--all" in rest, out)
    if not rest:
        sys.stderr.write(USAGE + "\n")
        return 2
    session_id = _resolve(store, rest[0])
    if session_id is None:
        return 1
    record = store.get_session(session_id)
    assert record is not None
    if command == "show":
        for key, value in vars(record).items():
            out.write(
                f"{key:24} {json.dumps(value) if isinstance(value, list | dict) else value}\n"
            )
        checkpoints(CheckpointRows(store), session_id, out)
        return 0
    if command == "export":
        fmt = "ndjson"
        if rest[1:3] and rest[1] == "--format" and len(rest) > 2:
            fmt = rest[2]
        elif rest[1:] and rest[1].startswith("--format="):
            fmt = rest[1].split("=", 1)[1]
        if fmt == "ndjson":
            for event in store.events(session_id):
                if event.kind in REPLAYED:
                    for update in updates(event.kind, event.body):
                        out.write(json.dumps(update, ensure_ascii=False) + "\n")
            return 0
        if fmt == "markdown":
            markdown(store, session_id, out)
            return 0
        sys.stderr.write(f"acp sessions: unknown format {fmt} (ndjson or markdown)\n")
        return 2
    if command == "delete":
        try:
            store.acquire_lease(session_id)
            CheckpointRows(store).delete_session(session_id)
        except LeaseHeld as exc:
            sys.stderr.write(f"acp sessions: {exc}; close it there first\n")
            return 1
        except StoreError as exc:
            sys.stderr.write(f"acp sessions: {exc}\n")
            return 1
        out.write(f"deleted {session_id}\n")
        return 0
    sys.stderr.write(USAGE + "\n")
    return 2
