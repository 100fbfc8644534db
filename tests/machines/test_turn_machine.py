from __future__ import annotations

import pytest

from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.turn import STOP_REASON, Outcome, State, TurnMachine


def test_clean_turn() -> None:
    m = TurnMachine()
    m.fire("start", "{state}")
    m.fire("ask_permission", "{state}")
    m.fire("permission_answered", "{state}")
    assert m.settle(Outcome.END_TURN) is Outcome.END_TURN
    assert m.state is State.FINISHING
    assert m.release() is Outcome.END_TURN
    assert m.state is State.IDLE and m.outcome is None


@pytest.mark.parametrize("reported", list(Outcome))
def test_cancel_wins_over_any_report(reported: Outcome) -> None:
    m = TurnMachine()
    m.fire("start", "{state}")
    assert m.request_cancel()
    assert not m.request_cancel()  # a second cancel changes nothing
    assert m.settle(reported) is Outcome.CANCELLED
    assert STOP_REASON[m.release()] == "cancelled"


def test_cancel_during_a_permission_request() -> None:
    m = TurnMachine()
    m.fire("start", "{state}")
    m.fire("ask_permission", "{state}")
    assert m.request_cancel() and m.state is State.CANCELLING
    assert m.settle(Outcome.END_TURN) is Outcome.CANCELLED


def test_a_turn_ends_once() -> None:
    m = TurnMachine()
    m.fire("start", "{state}")
    m.settle(Outcome.FAILED)
    with pytest.raises(TransitionRefused):
        m.settle(Outcome.END_TURN)
    assert m.outcome is Outcome.FAILED and STOP_REASON[Outcome.FAILED] is None
    m.release()
    assert not m.request_cancel()  # idle: nothing to cancel


def test_every_outcome_has_a_stop_reason_entry() -> None:
    assert set(STOP_REASON) == set(Outcome)
    assert {v for v in STOP_REASON.values() if v} <= {
        "end_turn",
        "max_turn_requests",
        "max_tokens",
        "refusal",
        "cancelled",
    }
