"""Four ways past the gate with the sandbox off, each through a real `acp` with the names in
the line granted: descriptor files that reopen a file an earlier redirection named, a brace
word that becomes `find`'s action, a value-taking option inside a cluster, and a `/proc/self`
path that means the shell's own directory. Each must be asked, and nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tools.driver import agent, bash
from tests.tools.driver import statuses as prompt


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


@pytest.mark.parametrize(
    ("grant", "attack"),
    [
        ("echo hi", "echo X <../outside.txt >/dev/stdin"),
        ("echo hi", "echo X 5<../outside.txt >>/dev/fd/5"),
        ("echo hi", "echo X 1<../outside.txt >/dev/stdout"),
        ("find . -name x", r"find . {-exec,touch} ../made \;"),
        ("echo a | xargs grep a", "echo a | xargs -rI grep touch ../made"),
        ("cd . && echo hi", "cd .. && echo X > /proc/self/cwd/made"),
    ],
    ids=["stdin", "fd-5", "stdout", "find-brace", "xargs-cluster", "proc-self-cwd"],
)
def test_a_granted_line_that_writes_outside_is_asked(
    tmp_path: Path, grant: str, attack: str
) -> None:
    # Started in the workspace, as editors start it: its own /proc/self/cwd is inside.
    c = agent(tmp_path, [bash(grant), bash(attack)], in_workspace=True)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    outside = cwd.parent / "outside.txt"
    outside.write_text("kept\n", encoding="utf-8")
    asked, _ = prompt(c, sid, always)
    assert len(asked) == 1
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{attack!r} ran without a question"
    assert results == ["failed"]
    assert outside.read_text(encoding="utf-8") == "kept\n"
    assert not (cwd.parent / "made").exists()
    assert c.close() == 0


def test_the_plain_streams_and_a_literal_brace_pair_still_run_unasked(tmp_path: Path) -> None:
    """What the rules keep: `>/dev/stderr` with fd 2 untouched before it, `find -exec … {}`."""
    c = agent(
        tmp_path,
        [bash("echo hi && find . -name x"), bash(r"echo x >/dev/stderr; find . -exec echo {} \;")],
    )
    sid = c.start()
    prompt(c, sid, always)
    asked, results = prompt(c, sid, reject)
    assert asked == [] and results == ["completed"]
    assert c.close() == 0
