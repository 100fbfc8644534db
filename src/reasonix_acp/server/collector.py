"""The cyclic garbage collector while the agent starts.

Start-up builds what lives as long as the process (modules, classes, tables, the session
machinery): tens of thousands of objects, none of them garbage. Collecting while they are made
only walks them again and again, a noticeable part of the time to a session. So `serve` pauses
the collector (`pause`) and resumes it (`resume`) once the first session is open and what its
first prompt needs is loaded ahead (server/warm.py), or RESUME_AFTER seconds after the
connection starts, whichever comes first; when `serve` returns first, it only turns collection
back on (`leave`: the process is ending, a collection would walk what exit frees anyway).
Resuming first freezes what exists (`gc.freeze`): the start-up objects move out of the
collector's sight for good, so the full collections of a long session (and of its first prompt)
do not walk them either.

Reference counting frees everything else as usual meanwhile; only reference cycles wait.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("reasonix_acp.server.collector")

RESUME_AFTER = 1.0  # seconds after the connection starts, if no session has opened by then

_paused: list[bool] = []


def pause() -> None:
    """Stop automatic collection, when it runs (a caller that turned it off keeps it off)."""
    if gc.isenabled() and not _paused:
        gc.disable()
        _paused.append(True)


def resume() -> None:
    """Freeze what exists and collect automatically again; once, and only after `pause`."""
    if _paused:
        _paused.clear()
        gc.collect()  # the cycles start-up left, before the rest is frozen for good
        gc.freeze()
        gc.enable()
        log.debug("collector resumed; %d start-up objects frozen", gc.get_freeze_count())


def leave() -> None:
    """Collection back on as it was, without collecting: `serve` returned, the process ends."""
    if _paused:
        _paused.clear()
        gc.enable()
