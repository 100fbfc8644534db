"""The turn's focused reads of the inbox (the next follow-up, the accepted steers) say what the
full snapshot says, whatever the inbox went through: a seeded random walk over its operations,
checked after every step. A failure prints its seed; INBOX_SEED replays one."""

from __future__ import annotations

import os
import random
from datetime import timedelta
from typing import Any

import pytest

from reasonix_acp.reasonix_io.inbox import InboxError, SessionInbox
from tests.inbox import Clock, add

SEEDS = [int(os.environ["INBOX_SEED"])] if "INBOX_SEED" in os.environ else list(range(12))


def _from_snapshot(inbox: SessionInbox) -> tuple[dict[str, Any] | None, list[str]]:
    snapshot = inbox.list()
    items = snapshot["items"]
    queued = None
    if not snapshot["paused"]:
        queued = next((m for m in items if m["state"] == "queued"), None)
    accepted = [m for m in items if m["state"] == "steer_accepted"]
    accepted.sort(key=lambda m: str(m["createdAt"]))  # stable: queue order among equals
    return queued, [m["id"] for m in accepted]


def _step(inbox: SessionInbox, clock: Clock, rng: random.Random) -> None:
    ids = [m["id"] for m in inbox.list()["items"]]
    pick = rng.choice(ids) if ids else None
    action = rng.choice(
        ["followup", "steer", "accept", "claim", "ack", "pause", "resume", "move", "tick"]
    )
    try:
        if action in ("followup", "steer"):
            add(inbox, f"{action} {rng.random()}", intent=action)
        elif action == "tick":
            clock.now += timedelta(seconds=rng.choice([0, 1]))
        elif action in ("pause", "resume"):
            inbox.set_paused(action == "pause")
        elif pick is None:
            return
        elif action == "accept":
            inbox.accept_steer(pick)
        elif action == "claim":
            inbox.claim(pick)
        elif action == "ack":
            inbox.ack(pick)
        elif action == "move":
            inbox.move(pick, rng.randrange(len(ids)))
    except InboxError:
        pass  # refused in this state: the inbox is unchanged


@pytest.mark.parametrize("seed", SEEDS)
def test_focused_reads_agree_with_the_snapshot(
    inbox: SessionInbox, clock: Clock, seed: int
) -> None:
    print(f"INBOX_SEED={seed}")
    rng = random.Random(seed)
    for step in range(60):
        _step(inbox, clock, rng)
        queued, accepted = _from_snapshot(inbox)
        assert inbox.first_queued() == queued, f"seed {seed}, step {step}"
        assert [m["id"] for m in inbox.accepted_steers()] == accepted, f"seed {seed}, step {step}"
