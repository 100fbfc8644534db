"""A model turn's checkpoint (checkpoints/recorder.py): started with the turn, fed by its tool
calls before they run (a write keeps its file, the first command every watched file), and
kept when the turn ends, cancelled or not: the files it changed (store's `checkpoint_files`)
and a `checkpoint` event in its transcript, which makes the turn a point `/rewind` goes back
to (session/rewind.py). A checkpoint that fails is logged; it never fails the turn. It keeps
files under the session's roots only (`roots_of`: its cwd and additional directories, not its
temp directory), as they are when the turn first needs them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from reasonix_acp.checkpoints.recorder import Recorder, Shadow
from reasonix_acp.session.checkpoint_rows import CheckpointRows, blobs_of
from reasonix_acp.session.live import Session
from reasonix_acp.session.rewind import roots_of
from reasonix_acp.session.service import Sessions

log = logging.getLogger("reasonix_acp.turn.checkpointing")


def recorder(sessions: Sessions, session: Session) -> Recorder:
    if session.shadow is None:
        session.shadow = Shadow(blobs_of(sessions.store))
    workspace = session.workspace()
    return Recorder(session.shadow, lambda: roots_of(session.workspace()), workspace.denied)


async def before(
    checkpoint: Recorder | None, tool: Any, args: dict[str, Any], context: Any
) -> None:
    """Before a tool call runs: a write keeps its file; a command, every watched file."""
    if checkpoint is None:
        return
    access = getattr(tool, "access", None)
    try:
        if access == "write":
            path = tool.target(args, context)
            await asyncio.to_thread(checkpoint.keep, path)
        elif access == "execute":
            await asyncio.to_thread(checkpoint.snapshot)
    except Exception:  # the tool reports a bad path itself; a checkpoint never stops a call
        log.exception("checkpoint before %s failed", getattr(tool, "name", tool))


async def keep(sessions: Sessions, session: Session, checkpoint: Recorder, turn: int) -> None:
    """The turn's end: its changes stored, and its `checkpoint` event."""
    try:
        changes = await asyncio.shield(asyncio.to_thread(checkpoint.finish))
        CheckpointRows(sessions.store).keep(session.id, turn, changes)
        body: dict[str, Any] = {"files": len(changes)}
        if checkpoint.untracked:
            body["untracked"] = checkpoint.untracked
        sessions.store.append_events(session.id, turn, [("checkpoint", body)])
    except Exception:
        log.exception("session %s: the checkpoint of turn %d was not kept", session.id, turn)
