from __future__ import annotations

import pytest

from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.session import SessionMachine, State


def test_a_session_script() -> None:
    m = SessionMachine()
    assert m.state is State.OPENING
    m.fire("opened", "{state}")
    m.fire("begin_prompt", "{state}")
    with pytest.raises(TransitionRefused, match="session already has an active prompt") as info:
        m.fire("begin_prompt", "session already has an active prompt")
    assert info.value.CODE == -32600 and info.value.state is State.PROMPTING
    assert m.state is State.PROMPTING
    with pytest.raises(TransitionRefused, match="session is prompting"):
        m.fire("begin_rebuild", "session is {state}")
    assert m.state is State.PROMPTING
    m.fire("end_prompt", "{state}")
    m.fire("begin_rebuild", "{state}")
    m.fire("end_rebuild", "{state}")
    m.fire("close", "{state}")
    m.fire("closed", "{state}")
    assert m.state is State.CLOSED
    with pytest.raises(TransitionRefused):
        m.fire("begin_prompt", "{state}")
    m.fire("delete", "{state}")
    m.fire("deleted", "{state}")
    with pytest.raises(TransitionRefused, match="deleted"):
        m.fire("close", "session is {state}")
    assert m.state is State.DELETED


def test_close_and_delete_from_every_live_state() -> None:
    for path in ([], ["opened"], ["opened", "begin_prompt"], ["opened", "begin_rebuild"]):
        for final in ("close", "delete"):
            m = SessionMachine()
            for trigger in path:
                m.fire(trigger, "{state}")
            m.fire(final, "{state}")
