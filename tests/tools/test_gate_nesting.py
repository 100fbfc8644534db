"""A line nested deeper than the gate reads (subshells, groups, `if`, loops inside each other) is
asked with the reason, through a real `acp`: the turn goes on, and nothing runs unasked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.command_proof.command_line import parse
from tests.tools.driver import agent, bash, prompt

DEEP = 3000
NESTED = {
    "subshells": "( " * DEEP + "touch made" + " )" * DEEP,
    "groups": "{ " * DEEP + "touch made; " + "}; " * DEEP,
    "ifs": "if true; then " * DEEP + "touch made" + "; fi" * DEEP,
    "loops": "for i in 1; do " * DEEP + "touch made" + "; done" * DEEP,
}


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


@pytest.mark.parametrize("kind", list(NESTED))
def test_a_line_nested_too_deeply_is_asked(tmp_path: Path, kind: str) -> None:
    c = agent(tmp_path, [bash(NESTED[kind])], env={"REASONIX_ACP_SANDBOX": "off"})
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1
    assert asked[0]["toolCall"]["rawInput"]["unprovable"] == "nested more than 100 deep"
    assert [r["status"] for r in results] == ["failed"]
    assert not (cwd / "made").exists()
    assert c.close() == 0


def test_the_grammar_view_of_a_deep_line_says_so() -> None:
    line = parse(NESTED["subshells"])
    assert line.proof is None and "nested too deeply" in line.problems
    assert parse("( " * 100 + "true" + " )" * 100).proof is not None
    chain = parse("true && " * DEEP + "true")  # a deep tree to the grammar, flat to the proof
    assert chain.proof is not None and chain.problems == ["nested too deeply"]
