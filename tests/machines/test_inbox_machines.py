from __future__ import annotations

import pytest

from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.inbox import InboxMachine, InboxState, ItemMachine, State
from reasonix_acp.machines.steer import REFUSED_DISPOSITION, Refusal, SteerMachine
from reasonix_acp.machines.steer import State as Steer


def test_followup_path() -> None:
    m = ItemMachine()
    assert m.state is State.QUEUED
    for trigger in ("claim", "ack"):
        m.fire(trigger, "{state}")
    assert m.state is State.REMOVED


def test_steer_path_and_recovery() -> None:
    m = ItemMachine.at("queued")
    m.fire("accept_steer", "{state}")
    m.fire("mark_uncertain", "{state}")  # accepted, never read: uncertain, not queued
    assert m.state is State.UNCERTAIN
    m.fire("accept_steer", "{state}")
    m.fire("consume_steer", "{state}")
    m.fire("ack", "{state}")
    assert m.state is State.REMOVED


@pytest.mark.parametrize(
    ("stored", "trigger"),
    [
        ("running", "update"),
        ("running", "delete"),
        ("steer_consumed", "delete"),
        ("queued", "ack"),
        ("queued", "retry"),
        ("blocked", "claim"),
        ("uncertain", "claim"),
        ("queued", "mark_uncertain"),
        ("removed", "retry"),
    ],
)
def test_illegal_item_trigger_leaves_the_state(stored: str, trigger: str) -> None:
    m = ItemMachine.at(stored)
    with pytest.raises(TransitionRefused) as err:
        m.fire(trigger, "item is {state}")
    assert m.state is State(stored)
    assert err.value.message == f"item is {stored}" and err.value.trigger == trigger


def test_edits_unblock_but_keep_uncertainty() -> None:
    for stored, after in (("blocked", State.QUEUED), ("uncertain", State.UNCERTAIN)):
        for trigger in ("update", "refresh"):
            m = ItemMachine.at(stored)
            m.fire(trigger, "{state}")
            assert m.state is after


def test_inbox_pause_recover_resume() -> None:
    m = InboxMachine.at(paused=False, recovered=False)
    m.fire("dispatch", "{state}")
    m.fire("recover", "{state}")
    assert m.paused and m.recovered
    m.fire("pause", "{state}")
    assert m.state is InboxState.RECOVERED_PAUSED  # pausing keeps the recovered flag
    with pytest.raises(TransitionRefused):
        m.fire("dispatch", "inbox is {state}")
    m.fire("resume", "{state}")
    assert not m.paused and not m.recovered
    m.fire("pause", "{state}")
    m.fire("drain", "{state}")
    assert m.state is InboxState.RUNNING


def test_read_only_inbox_refuses_everything() -> None:
    m = InboxMachine.at(paused=False, recovered=False, readonly=True)
    assert m.paused
    for trigger in ("pause", "resume", "recover", "drain", "dispatch"):
        with pytest.raises(TransitionRefused):
            m.fire(trigger, "inbox is {state}")
        assert m.state is InboxState.READ_ONLY


def test_admitted_steer() -> None:
    m = SteerMachine()
    m.fire("offer", "{state}")
    m.fire("admit", "{state}")
    with pytest.raises(TransitionRefused):
        m.decline(Refusal.TURN_FINISHING)  # too late: the turn has promised to read it
    assert m.state is Steer.ADMITTED and m.refusal is None


@pytest.mark.parametrize("reason", list(Refusal))
def test_refused_steer(reason: Refusal) -> None:
    m = SteerMachine()
    if reason is Refusal.TURN_FINISHING:
        m.fire("offer", "{state}")  # the turn closed admission first
    assert m.decline(reason) == REFUSED_DISPOSITION[reason]
    assert m.refusal is reason
    with pytest.raises(TransitionRefused):
        m.fire("admit", "{state}")
    assert m.state is Steer.REFUSED


def test_refusal_dispositions() -> None:
    assert REFUSED_DISPOSITION[Refusal.CLOSED] == "rejected_closed"
    assert REFUSED_DISPOSITION[Refusal.ROTATING] == "rejected_rotating"
    assert {REFUSED_DISPOSITION[r] for r in (Refusal.NO_TURN, Refusal.PAUSED)} == {
        "queued_followup"
    }
