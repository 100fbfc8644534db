"""The deny rules against the real bash: for every generated line the gate would run under
danger-full-access with `deny_paths` set (turn/line_denied.py), bash runs it (as tools/shell.py
does) from a folder holding nothing denied, and neither its output nor a file it leaves shows
the canary of the file under the rule. Lines are a reader (`cat`, `head`, `wc`, `grep -r`,
`ls`, `cp` then `cat`, `tail`) on a word naming the file, its folder, a link to either, a
pattern, a `..` way, a brace word or a variable, after `cd` or not; the rule is a wildcard one
(walked) or one naming a path (by containment). The seed is hypothesis's (printed on failure).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.tools.shell import command_argv
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_verdict import Rules, judge_line

CANARY = "canary-differential-61c0"
READERS = [
    "cat W",
    "head -c 100 W",
    "wc -c W",
    "grep -r canary W",
    "grep -rh canary W",
    "ls W",
    "cp -r W got && cat got",
    "tail -n 3 W",
    "f=W; cat $f",
    "grep -r canary",
    "ls",
]
WORDS = [
    "notes.txt",
    "sub/a.txt",
    "../vault/token.txt",
    "../vault/*",
    "../vault",
    "../links/t",
    "../links/dl/token.txt",
    "../links",
    "../links/*",
    "sub/../../vault/token.txt",
    ".",
    "sub",
    "..",
    "*",
    "../*/*",
    "../v*/t*",
    "{notes.txt,../vault/token.txt}",
    "../vault/./token.txt",
    "./../links/dl",
]
BEFORE = ["", "cd .. && ", "cd sub; ", "cd ../vault; ", "cd ../links && ", "cd ../links/dl; "]


def _tree(root: Path) -> Path:
    """root/vault/token.txt (the canary), root/links/{t,dl} leading to it and its folder,
    root/proj (the cwd, holding nothing denied)."""
    (root / "vault").mkdir(parents=True)
    (root / "vault" / "token.txt").write_text(CANARY + "\n", encoding="utf-8")
    (root / "links").mkdir()
    os.symlink("../vault/token.txt", root / "links" / "t")
    os.symlink("../vault", root / "links" / "dl")
    (root / "proj" / "sub").mkdir(parents=True)
    (root / "proj" / "notes.txt").write_text("line one\n", encoding="utf-8")
    (root / "proj" / "sub" / "a.txt").write_text("a\n", encoding="utf-8")
    return root / "proj"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("deny").resolve())


def _left(cwd: Path) -> str:
    """What the line left in the workspace (a copy), then removed."""
    texts = []
    for path in sorted(cwd.rglob("got*")):
        texts.append(path.read_text() if path.is_file() else "".join(_walk_text(path)))
        subprocess.run(["rm", "-rf", str(path)], check=True)
    return "".join(texts)


def _walk_text(folder: Path) -> list[str]:
    return [p.read_text() for p in folder.rglob("*") if p.is_file()]


@pytest.mark.parametrize("kind", ["wildcard", "named"])
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(reader=st.sampled_from(READERS), word=st.sampled_from(WORDS), before=st.sampled_from(BEFORE))
def test_no_line_run_unasked_shows_a_file_under_a_deny_rule(
    tree: Path, kind: str, reader: str, word: str, before: str
) -> None:
    root = tree.parent
    rule = "*/vault/*" if kind == "wildcard" else f"{root}/vault/**"
    line = before + reader.replace("W", word)
    workspace = Workspace(str(tree), temp=str(root / "temp"), deny=(rule,))
    verdict = judge_line(parse(line), "danger-full-access", [], Rules(paths=(rule,)), workspace)
    if verdict.decision != "allow":
        return
    done = subprocess.run(
        command_argv("bash", line),
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=10,
        env={"PATH": os.environ["PATH"], "HOME": str(root), "LC_ALL": "C"},
    )
    shown = done.stdout + done.stderr + _left(tree)
    assert CANARY not in shown, (line, verdict)


@pytest.mark.parametrize("kind", ["wildcard", "named"])
def test_the_lines_naming_nothing_denied_run(tree: Path, kind: str) -> None:
    """The differential is not empty: what names nothing under the rule runs unasked."""
    root = tree.parent
    rule = "*/vault/*" if kind == "wildcard" else f"{root}/vault/**"
    workspace = Workspace(str(tree), temp=str(root / "temp"), deny=(rule,))
    for line in ["cat notes.txt", "grep -r canary", "ls sub", "cd sub; cat a.txt"]:
        verdict = judge_line(parse(line), "danger-full-access", [], Rules(paths=(rule,)), workspace)
        assert verdict.decision == "allow", (line, verdict)
