"""The forms the provable language took in, through a real `acp` with the sandbox off: once
the names in them are granted they run without a question, doing what the proof says; their
hostile neighbours (a variable that changes which program runs, a read of a secret from the
environment) are still asked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.tools.driver import agent, bash, prompt


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


GRANT = "echo hi; cat /dev/null; [ -f x ]; cd ."
WIDENED = (
    'export NODE_ENV=test && (cd sub && echo "$NODE_ENV $HOME" > made.txt)\n'
    'for f in a b; do echo "$f" >> loop.txt; done\n'
    "if [ -f sub/made.txt ]; then X=yes; else X=no; fi; echo $X > if.txt\n"
    "{ echo one; echo two; } > group.txt\n"
    "cat <<'EOF' > notes.md\nliteral $(touch ran) $DEEPSEEK_API_KEY\nEOF\n"
    "time true"
)


def test_the_widened_forms_run_unasked_once_granted(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash(GRANT), bash(WIDENED)], env={"DEEPSEEK_API_KEY": "sk-canary"})
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / "sub").mkdir()
    asked, _ = prompt(c, sid, always)
    assert len(asked) == 1
    asked, results = prompt(c, sid, reject)
    assert asked == [], asked
    assert [r["status"] for r in results] == ["completed"]
    home = c.scenario.env.get("HOME", os.environ.get("HOME", ""))
    assert (cwd / "sub" / "made.txt").read_text() == f"test {home}\n"
    assert (cwd / "loop.txt").read_text() == "a\nb\n"
    assert (cwd / "if.txt").read_text() == "yes\n"
    assert (cwd / "group.txt").read_text() == "one\ntwo\n"
    assert (cwd / "notes.md").read_text() == "literal $(touch ran) $DEEPSEEK_API_KEY\n"
    assert not (cwd / "ran").exists()
    assert c.close() == 0


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("echo $DEEPSEEK_API_KEY", "`$DEEPSEEK_API_KEY` is read from the environment"),
        ("if true; then K=1; fi; echo $K", "`$K` is read from the environment"),
        ("PATH=.:$PATH echo hi", "setting `PATH` changes which program runs"),
        ("GIT_PAGER='touch ran' echo hi", "setting `GIT_PAGER` changes which program runs"),
        ("export LD_PRELOAD=./x.so; echo hi", "setting `LD_PRELOAD` changes which program runs"),
    ],
)
def test_what_changes_the_proof_is_still_asked(tmp_path: Path, line: str, why: str) -> None:
    c = agent(tmp_path, [bash(GRANT), bash(line)], env={"DEEPSEEK_API_KEY": "sk-canary"})
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    prompt(c, sid, always)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{line!r} ran without a question"
    assert asked[0]["toolCall"]["rawInput"]["unprovable"].startswith(why)
    assert [r["status"] for r in results] == ["failed"]
    assert not (cwd / "ran").exists()
    assert c.close() == 0
