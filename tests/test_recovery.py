"""recovery.py: which calls an interruption left open, how they are ended, the offer's id and
the `/recover-context` words. The end-to-end path (a SIGKILL mid-turn, the offer in the status,
its refusals and its one use) is the golden scenario `protocol_recovery`."""

from __future__ import annotations

from reasonix_acp.reasonix_io import recovery
from reasonix_acp.session.history import history_from_events


def _call(call_id: str, name: str = "bash") -> tuple[str, dict[str, object]]:
    return ("tool_call", {"toolCallId": call_id, "title": f"Run {call_id}", "x-tool": name})


def test_only_calls_without_an_end_are_unfinished() -> None:
    events = [
        ("user_message", {"content": [{"type": "text", "text": "go"}]}),
        _call("a"),
        ("tool_call_update", {"toolCallId": "a", "status": "in_progress"}),
        _call("b"),
        ("tool_call_update", {"toolCallId": "b", "status": "completed", "x-model-text": "ok"}),
        _call("c"),
        ("tool_call_update", {"toolCallId": "c", "status": "failed", "x-model-text": "no"}),
    ]
    assert [c["toolCallId"] for c in recovery.unfinished_calls(events)] == ["a"]


def test_closing_updates_make_the_history_well_formed() -> None:
    events = [("user_message", {"content": [{"type": "text", "text": "go"}]}), _call("a")]
    closing = recovery.closing_updates(recovery.unfinished_calls(events))
    assert closing == [
        (
            "tool_call_update",
            {
                "toolCallId": "a",
                "status": "failed",
                "content": [
                    {"type": "content", "content": {"type": "text", "text": recovery.INTERRUPTED}}
                ],
                "x-model-text": recovery.INTERRUPTED,
            },
        )
    ]
    history = history_from_events(events + closing)
    assert [m["role"] for m in history] == ["user", "assistant", "tool"]
    assert history[2] == {"role": "tool", "tool_call_id": "a", "content": recovery.INTERRUPTED}
    assert recovery.unfinished_calls(events + closing) == []


def test_ids_are_stable_per_interruption() -> None:
    first = recovery.recovery_id("s1", 4)
    assert first == recovery.recovery_id("s1", 4)
    assert len(first) == 16 and int(first, 16) >= 0
    assert first not in (recovery.recovery_id("s1", 5), recovery.recovery_id("s2", 4))


def test_command_words_and_the_note() -> None:
    assert recovery.parse_command("") == ("", "")
    assert recovery.parse_command(" abc  check the build first ") == (
        "abc",
        "check the build first",
    )
    note = recovery.Offer("abc", ["Run make"]).note("go on")
    assert note.startswith("[The previous turn was interrupted") and "(cut off: Run make)" in note
    assert note.endswith("]\ngo on")
    assert "cut off" not in recovery.Offer("abc").note("go on")
