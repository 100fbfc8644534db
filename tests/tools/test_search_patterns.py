"""A pattern the model writes that is not valid (a glob with a reversed range, a regular
expression that does not compile) fails that tool call with a message naming the pattern and
what is wrong with it; the turn goes on and ends `end_turn`. Through a real `acp`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tools.driver import agent, call, prompt


def text_of(update: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in update.get("content") or [] if c["type"] == "content"
    )


def never(params: dict[str, Any]) -> str:
    raise AssertionError(f"unexpected permission question: {params}")


def finals(
    tmp_path: Path, *calls: dict[str, Any], files: tuple[str, ...] = ("b.py",)
) -> list[dict[str, Any]]:
    """The final updates of `calls`, made in one turn of a real `acp` (prompt() checks the turn
    ended `end_turn`), with `files` in the workspace."""
    turn = {"steps": [step for c in calls for step in c["steps"]]}
    c = agent(tmp_path, [turn])
    sid = c.start()
    for name in files:
        (Path(c.scenario.vars["CWD"]) / name).write_text("x = 1\n", encoding="utf-8")
    asked, done = prompt(c, sid, never)
    assert asked == []
    assert c.close() == 0
    return done


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("[z-a]*", "'[z-a]*' is not a valid pattern: the range z-a in [z-a] is reversed"),
        ("src/**/[!9-0].py", "the range 9-0 in [!9-0] is reversed"),
    ],
    ids=["range", "negated"],
)
def test_a_glob_with_a_reversed_range_fails_the_call_not_the_turn(
    tmp_path: Path, pattern: str, said: str
) -> None:
    bad, good = finals(tmp_path, call("glob", pattern=pattern), call("glob", pattern="*.py"))
    assert bad["status"] == "failed"
    assert said in text_of(bad)
    assert pattern in text_of(bad)
    assert good["status"] == "completed" and text_of(good) == "b.py"


def test_glob_brackets_read_as_a_shell_reads_them(tmp_path: Path) -> None:
    """`]` first in a set is one of its characters; `[` inside a set is plain."""
    files = ("a.py", "b.py", "].py", "[.py")
    first, nested, negated = finals(
        tmp_path,
        call("glob", pattern="[]a].py"),
        call("glob", pattern="[[b].py"),
        call("glob", pattern="[!]a].py"),
        files=files,
    )
    assert (first["status"], text_of(first)) == ("completed", "].py\na.py")
    assert (nested["status"], text_of(nested)) == ("completed", "[.py\nb.py")
    assert (negated["status"], text_of(negated)) == ("completed", "[.py\nb.py")


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("(x", "missing ), unterminated subpattern at position 0"),
        ("a{99999999999999999999}", "the repetition number is too large"),
        ("(" * 5000 + ")" * 5000, "it is nested too deeply"),
    ],
    ids=["unclosed", "repeat", "nested"],
)
def test_a_grep_pattern_that_does_not_compile_fails_the_call_not_the_turn(
    tmp_path: Path, pattern: str, said: str
) -> None:
    bad, good = finals(tmp_path, call("grep", pattern=pattern), call("grep", pattern="x ="))
    assert bad["status"] == "failed"
    assert f"{pattern!r} is not a valid regular expression: {said}" in text_of(bad)
    assert good["status"] == "completed" and "b.py:1: x = 1" in text_of(good)
