"""The goal machine: arming keeps an unfinished goal, only a running goal advances or ends,
a refused trigger changes nothing, and a config switch is refused while the goal runs."""

from __future__ import annotations

import pytest

from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.goal import GoalMachine, State

SWITCH = "session config: active Goal continuation must finish before switching config"


def at(state: State) -> GoalMachine:
    return GoalMachine(state)


@pytest.mark.parametrize(
    ("start", "after"),
    [
        (State.NONE, State.DRAFT),
        (State.COMPLETE, State.DRAFT),
        (State.DRAFT, State.DRAFT),
        (State.RUNNING, State.RUNNING),
        (State.BLOCKED, State.BLOCKED),
        (State.PAUSED, State.PAUSED),
        (State.CANCELLED, State.CANCELLED),
        (State.FAILED, State.FAILED),
    ],
)
def test_arming_starts_a_draft_only_where_no_goal_is_left(start: State, after: State) -> None:
    machine = at(start)
    machine.fire("arm", "goal is {state}")
    assert machine.state is after


@pytest.mark.parametrize("trigger", ["complete", "block", "pause", "cancel", "fail"])
@pytest.mark.parametrize("start", [s for s in State if s is not State.RUNNING])
def test_only_a_running_goal_ends(trigger: str, start: State) -> None:
    machine = at(start)
    with pytest.raises(TransitionRefused, match=f"goal is {start.value}"):
        machine.fire(trigger, "goal is {state}")
    assert machine.state is start


@pytest.mark.parametrize("start", [State.BLOCKED, State.PAUSED, State.CANCELLED, State.FAILED])
def test_a_kept_goal_resumes(start: State) -> None:
    machine = at(start)
    machine.fire("resume", "goal is {state}")
    assert machine.state is State.RUNNING


@pytest.mark.parametrize("start", [State.NONE, State.DRAFT, State.RUNNING, State.COMPLETE])
def test_nothing_else_resumes(start: State) -> None:
    machine = at(start)
    with pytest.raises(TransitionRefused):
        machine.fire("resume", "goal is {state}")
    assert machine.state is start


@pytest.mark.parametrize("start", list(State))
def test_clear_forgets_any_goal(start: State) -> None:
    machine = at(start)
    machine.fire("clear", "goal is {state}")
    assert machine.state is State.NONE


@pytest.mark.parametrize("start", list(State))
def test_a_config_switch_waits_for_a_running_goal(start: State) -> None:
    machine = at(start)
    if start is State.RUNNING:
        with pytest.raises(TransitionRefused) as refused:
            machine.fire("switch_config", SWITCH)
        assert str(refused.value) == SWITCH and refused.value.CODE == -32600
    else:
        machine.fire("switch_config", SWITCH)
    assert machine.state is start
