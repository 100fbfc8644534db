"""Going back: `/rewind [N]` and `_reasonix.io/session/rewind` put back the files the last N
prompts' turns changed and continue the conversation from before them.

Rules:
- A prompt here is a model turn: each stores a `checkpoint` event (turn/checkpointing.py), and
  a rewind of N goes back to before the N-th last of them. An agent command (`/status`) is not
  one.
- The session keeps its id and continues from its transcript's events before that turn (so the
  history the model is sent again is the very prefix it was sent then); the conversation as it
  was is kept as a new session (`keptAs`, listed like any other), with its checkpoints.
- Files (unless `files: false`): each put back to its bytes before the first rewound turn
  changed it, or removed if that turn made it (checkpoints/restore.py). A file changed since by
  someone else is left as it is and named, unless `force`.
- The vendor method is admitted by the session machine (`begin_rebuild`: only while idle,
  -32600 naming the state otherwise), released in a `finally`; `/rewind` runs as its prompt.
- All or nothing across a crash: the rewind's plan is stored before its first file is touched;
  the files and the transcript's cut follow, and one commit ends it. A process lost in between
  leaves the plan, and the next opening of the session finishes it (`recover`).
- No link is followed (checkpoints/places.py): a file reached through one, or that is one now,
  is left and named (`left`), when planned and again when put back; a rewind finished at the
  next opening names those it left in the log, as no one awaits its answer.
- Only files under the session's roots (`roots_of`: its cwd and additional directories, not
  its temp directory) are put back; a change kept for one outside is left and named.
- Bad data never makes a session impossible to open: a step whose blob is missing or damaged
  (checked against its digest before its file is touched) is left and named, and the rest of
  the rewind, or of its finish at the next opening, goes on and ends it; so does a step the
  stored plan holds in a shape no rewind writes. A stored plan that cannot be read at all (not
  JSON, or its header damaged: checkpoint_rows.py's `pending_rewind`) is set aside in its row,
  no file touched and the conversation not cut, and the session opens. Either way the user is
  told once (`recover` → `Recovered.notice`, shown by the session's next turn, and the log):
  the files a finish left, or that the rewind could not be finished and the files it may have
  left partly put back (those its plan names, the first NAMED of them), never the plan's
  content otherwise. A new rewind finishes what the lost one began.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, NamedTuple

from reasonix_acp.checkpoints import restore
from reasonix_acp.checkpoints.blobs import Blobs
from reasonix_acp.checkpoints.recorder import Roots
from reasonix_acp.ids import uuid4
from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.protocol.router import Call
from reasonix_acp.session import fork_point
from reasonix_acp.session.checkpoint_rows import CheckpointRows, UnreadablePlan, blobs_of
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions
from reasonix_acp.tools.workspace import Workspace

METHOD = "_reasonix.io/session/rewind"
log = logging.getLogger("reasonix_acp.session.rewind")
NAMED = 10  # the files a notice names; the rest are counted
UNFINISHED = "could not be finished"


class Recovered(NamedTuple):
    """What opening a session did about a rewind a lost process left: whether it finished it
    (the session's record changed), and what the session's next turn tells the user."""

    finished: bool = False
    notice: str | None = None


class Rewinds:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.rows = CheckpointRows(sessions.store)
        self.blobs = blobs_of(sessions.store)

    async def method(self, call: Call, params: Any) -> dict[str, Any]:
        session = self.sessions.lookup(METHOD, params.session_id)
        prompts = 1 if params.prompts is None else params.prompts
        if type(prompts) is not int or prompts < 1:
            raise InvalidParams(f"{METHOD}: prompts must be a whole number of at least 1")
        if params.message_id is not None and params.prompts is not None:
            raise InvalidParams(f"{METHOD}: give prompts or messageId, not both")
        session.machine.fire("begin_rebuild", f"{METHOD}: session is {{state}}")
        try:
            if params.message_id is not None:
                prompts = self._after(session, params.message_id)
            return await self.rewind(
                session, prompts, files=params.files is not False, force=bool(params.force)
            )
        finally:
            session.machine.fire("end_rebuild", f"{METHOD}: session is {{state}}")

    def _after(self, session: Session, given: Any) -> int:
        """How many prompts come after the turn whose reply ends with message `given`
        (session/fork_point.py): what a rewind to just after that reply goes back over."""
        if type(given) is not str or not given:
            raise InvalidParams(f"{METHOD}: messageId must be a message id")
        store = self.sessions.store
        events = self.sessions.store_call(METHOD, lambda: list(store.events(session.id)))
        # idle here: no turn is running
        through = fork_point.turn_ending_at(METHOD, events, given, busy=False, to="rewind to")
        points = self.sessions.store_call(METHOD, lambda: self.rows.points(session.id))
        after = sum(1 for turn, _ in points if turn > through)
        if after == 0:
            raise InvalidParams(f"{METHOD}: message {given} ends the last turn: nothing to undo")
        if points[-after][0] != min(e.turn for e in events if e.turn > through):
            raise InvalidParams(f"{METHOD}: the turn after message {given} cannot be rewound")
        return after

    async def rewind(
        self, session: Session, prompts: int, files: bool = True, force: bool = False
    ) -> dict[str, Any]:
        """Rewind `prompts` model turns; → what was done (raises InvalidParams when the
        session has fewer)."""
        sid = session.id
        points = self.sessions.store_call(METHOD, lambda: self.rows.points(sid))
        if prompts > len(points):
            have = f"only {len(points)}" if points else "none yet"
            raise InvalidParams(
                f"{METHOD}: cannot go back {prompts} prompt{'s' * (prompts != 1)}: "
                f"this session has {have}"
            )
        turn = points[-prompts][0]
        cut = self.sessions.store_call(METHOD, lambda: self.rows.first_seq(sid, turn))
        rows = self.sessions.store_call(METHOD, lambda: self.rows.rows(sid, turn)) if files else []
        roots = roots_of(session.workspace())
        planned = await asyncio.to_thread(restore.plan, rows, force, roots)
        left, steps = planned.left, planned.steps
        title = session.record.title
        plan = {
            "turn": turn,
            "cut": cut,
            "keptAs": uuid4(),
            "keptTitle": f"{title} (before rewind)" if title else "Before rewind",
            "steps": [s.body() for s in steps],
        }
        self.sessions.store_call(METHOD, lambda: self.rows.begin_rewind(sid, plan))
        undone = await asyncio.to_thread(_finish, self.rows, self.blobs, sid, plan)
        self._continue(session)
        untracked = [n for t, body in points if t >= turn for n in body.get("untracked") or []]
        skipped = {u["path"] for u in undone}
        done = [s for s in steps if s.path not in skipped]
        return {
            "sessionId": sid,
            "keptAs": plan["keptAs"],
            "prompts": prompts,
            "restored": [s.path for s in done if s.digest is not None],
            "removed": [s.path for s in done if s.digest is None],
            "left": sorted(left + undone, key=lambda u: u["path"]),
            "untracked": untracked,
        }

    def _continue(self, session: Session) -> None:
        """The live session from its cut transcript: history rebuilt on the next turn, its
        context gauge and plan as they were then."""
        events = self.sessions.store.transcript(session.id)
        session.rewound(events)
        plan = next((b.get("entries") for k, b in reversed(events) if k == "plan"), None) or []
        if plan != session.record.plan:
            session.record.plan = plan
            self.sessions.store.update_session(session.id, plan=plan, touch=False)

    def recover(self, session_id: str) -> Recovered:
        """Finish a rewind a lost process left half done, or set aside its plan when it cannot
        be read; → what was done and what to tell."""
        try:
            plan = self.rows.pending_rewind(session_id)
        except UnreadablePlan as exc:
            self.rows.set_aside(session_id, exc.why)
            log.warning(
                "session %s: the interrupted rewind %s: its stored plan cannot be read (%s); it "
                "is set aside in the store's rewinds table. Files it may have left partly put "
                "back: %s",
                session_id,
                UNFINISHED,
                exc.why,
                _listed(exc.paths) or "not known",
            )
            return Recovered(notice=_unfinished(exc))
        if plan is None:
            return Recovered()
        left = _finish(self.rows, self.blobs, session_id, plan)
        for step in left:
            log.warning(
                "session %s: the rewind left %s (%s)", session_id, step["path"], step["reason"]
            )
        if not left:
            return Recovered(finished=True)
        named = _listed([f"{u['path']} ({u['reason']})" for u in left])
        return Recovered(
            True,
            f"The rewind cut short by a lost process was finished, but "
            f"these files were left as they were: {named}",
        )


def _unfinished(exc: UnreadablePlan) -> str:
    """The notice for a rewind whose plan was set aside."""
    text = (
        f"A rewind cut short by a lost process {UNFINISHED}: its stored plan is damaged "
        f"({exc.why}). The conversation was not cut back, and "
    )
    if exc.paths:
        text += f"these files may be partly put back: {_listed(exc.paths)}."
    else:
        text += "which files it had put back is not known."
    return text + " Rewinding past the same prompts again finishes it."


def _listed(names: list[str]) -> str:
    """The first NAMED names, and how many more."""
    shown = ", ".join(names[:NAMED])
    return shown + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def roots_of(workspace: Workspace) -> Roots:
    """Where the session's checkpoints keep files: its cwd and additional directories (real
    paths), not its temp directory."""
    kept = tuple(workspace.resolve(root) for root in (workspace.cwd, *workspace.extra))
    return Roots(kept, workspace.resolve(workspace.temp))


def _finish(
    rows: CheckpointRows, blobs: Blobs, session_id: str, plan: dict[str, Any]
) -> list[dict[str, str]]:
    """The files put back, then the transcript cut: safe to run again from the start; → the
    steps left undone, each with why."""
    steps, left = _steps(plan.get("steps"))
    left += restore.apply(steps, blobs)
    rows.end_rewind(session_id, plan)
    return left


def _steps(stored: Any) -> tuple[list[restore.Step], list[dict[str, str]]]:
    """The plan's steps, and those in a shape no rewind stores, left and named."""
    steps, left = [], []
    for body in stored if isinstance(stored, list) else [stored]:
        got = body if isinstance(body, dict) else {}
        path, digest, mode = got.get("path"), got.get("digest"), got.get("mode")
        if (
            isinstance(path, str)
            and (digest is None or isinstance(digest, str))
            and (mode is None or (type(mode) is int and 0 <= mode <= 0o7777))
        ):
            steps.append(restore.Step(path, digest, mode))
        else:
            where = path if isinstance(path, str) else repr(body)[:200]
            left.append({"path": where, "reason": "the rewind's plan for it is damaged"})
    return steps, left
