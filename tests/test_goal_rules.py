"""Goal mode's rules without a process: markers cut from streamed text however it is split,
the limits, the status object, and what survives a restart."""

from __future__ import annotations

import random

import pytest

from reasonix_acp.config import GoalLimits
from reasonix_acp.machines.goal import State
from reasonix_acp.reasonix_io.goal import Goal, Markers, Runtime

TEXT = "Done the first part. [goal:continue] Next [GOAL:Complete] up. A [link] and [go on]."


def shown(pieces: list[str]) -> tuple[str, list[str]]:
    markers = Markers()
    out = "".join(markers.feed(p) for p in pieces) + markers.flush()
    return out, markers.seen


def test_markers_are_cut_and_counted() -> None:
    assert shown([TEXT]) == (
        "Done the first part.  Next  up. A [link] and [go on].",
        ["continue", "complete"],
    )


def test_markers_are_cut_however_the_stream_splits_them() -> None:
    seed = random.randrange(1 << 30)
    print(f"MARKER_SEED={seed}")
    rng = random.Random(seed)
    for _ in range(300):
        cuts = sorted(rng.sample(range(1, len(TEXT)), rng.randrange(1, 12)))
        pieces = [TEXT[a:b] for a, b in zip([0, *cuts], [*cuts, len(TEXT)], strict=True)]
        assert shown(pieces) == shown([TEXT]), pieces


def test_a_held_back_tail_that_is_no_marker_is_shown() -> None:
    markers = Markers()
    assert markers.feed("see [go") == "see "
    assert markers.feed("od] stuff") == "[good] stuff"
    assert markers.feed("trailing [goal:") == "trailing "
    assert markers.flush() == "[goal:"


def test_limits_count_from_the_prompt_that_resumed_the_goal() -> None:
    goal = Goal(limits=GoalLimits(turns=2, tokens=100, seconds=1, no_progress=2))
    since = Runtime(turns=5, tokens=1000, work_ms=9000)
    goal.runtime = Runtime(turns=6, tokens=1050, work_ms=9500)
    assert goal.limit_reached(since) == ""
    goal.runtime.turns = 7
    assert goal.limit_reached(since) == "turn limit (2 turns)"
    goal.runtime.turns, goal.runtime.tokens = 6, 1100
    assert goal.limit_reached(since) == "token limit (100 tokens)"
    goal.runtime.tokens, goal.runtime.work_ms = 1050, 10000
    assert goal.limit_reached(since) == "time limit (1 s)"
    goal.runtime.work_ms, goal.runtime.no_progress = 9500, 2
    assert goal.limit_reached(since) == "no progress (2 turns without a tool call)"


@pytest.mark.parametrize(
    ("state", "shown_as", "steers"),
    [
        (State.NONE, "none", False),
        (State.DRAFT, "none", True),
        (State.RUNNING, "running", True),
        (State.PAUSED, "running", True),
        (State.COMPLETE, "complete", False),
        (State.BLOCKED, "blocked", False),
        (State.CANCELLED, "cancelled", False),
        (State.FAILED, "failed", False),
    ],
)
def test_the_status_object(state: State, shown_as: str, steers: bool) -> None:
    goal = Goal()
    goal.machine.state = state
    assert goal.status_object() == {"status": shown_as}
    assert goal.steers_mode is steers
    goal.objective = "Ship it"
    shown = goal.status_object()
    assert shown["objective"] == "Ship it" and shown["runtime"]["turnsLimit"] == 20


def test_a_running_goal_comes_back_paused_and_bad_input_changes_nothing() -> None:
    goal = Goal()
    goal.restore({"state": "running", "objective": "x", "runtime": {"turns": 3, "tokens": 9}})
    assert (goal.state, goal.runtime.turns, goal.runtime.stop_cause) == (
        State.PAUSED,
        3,
        "interrupted",
    )
    for bad in ({}, {"state": "sideways"}, {"state": "complete", "runtime": {"turns": "many"}}):
        kept = Goal()
        kept.restore(bad)
        assert kept.state is State.NONE and kept.objective == ""
