"""Deny rules hold for the places a command line names, not only for its redirections: through
a real `acp` with the sandbox off (what every macOS or container user has), a granted reader
(`cat`, `head`, `wc`, `grep`, `cp` allowed for the session), or danger-full-access, never shows
the model a file under a `deny_paths` rule.

- a word naming a denied path (an argument, as a pattern, after `..`, through a link, as a
  variable's value) is refused, never asked;
- a word naming a folder that holds a denied path, and the folder a program runs in when it
  holds one (`grep -r canary`, `ls`), are asked whatever was granted, the question naming the
  denied path and the folder, with no answer for the session;
- a line naming no such place, from a folder holding none, runs under its grant as before;
- inside a working sandbox, where a rule a mount hides is not judged on the line's places, a
  line naming or reading what it hides is never offered a run outside the sandbox."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.sandbox import Engine
from tests.client import Client
from tests.tools.driver import agent, bash, call, prompt
from tests.tools.test_sandbox import SANDBOX_ON, bwrap, outside  # noqa: F401 (fixtures)

CANARY = "canary-vault-3e1d9c7b5a"
GRANT = "cat notes.txt; head -n 1 notes.txt; wc -l notes.txt; grep line notes.txt; "
GRANT += "cp notes.txt n2.txt; ls notes.txt; ln -s notes.txt nl; echo hi"
# Each names a file under the rule: refused under every preset, never asked.
DENIED = [
    "cat vault/token.txt",
    "head -c 64 vault/token.txt",
    "cat sub/../vault/token.txt",
    "wc -c vault/*",
    "cp vault/token.txt got.txt && cat got.txt",
    "cat t",  # t: a link to vault/token.txt, made before
    "ln -s vault/token.txt t2 && cat t2",
    "ln -s ../vault/token.txt sub/t3 && cat sub/t3",
    "f=vault/token.txt; cat $f",
    "cat {notes,vault/token}.txt",
    "for f in vault/*; do head $f; done",
    "grep --file=vault/token.txt notes.txt",
    "cd vault && cat token.txt",
]
# Each reads a folder holding a file under the rule (by a word, or where it runs): asked.
HELD = [
    "grep -r canary .",
    "grep -r canary",
    "ls vault",
    "cat notes.txt",
    "ls",
    "ls vault; ls ./sub",
]


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def text_of(update: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in update.get("content") or [] if c["type"] == "content"
    )


def _full(c: Client, sid: str) -> None:
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )


def _vault(cwd: Path) -> None:
    (cwd / "vault").mkdir()
    (cwd / "vault" / "token.txt").write_text(CANARY + "\n", encoding="utf-8")
    (cwd / "sub").mkdir(exist_ok=True)
    os.symlink("vault/token.txt", cwd / "t")


def _never_shown(c: Client, tmp_path: Path) -> None:
    assert CANARY not in repr(c.notes)
    for root, _, files in os.walk(tmp_path / "data"):
        for name in files:
            assert CANARY.encode() not in (Path(root) / name).read_bytes(), name


def _held_question(question: dict[str, Any], line: str) -> None:
    """The question names the denied path and the folder, and offers no answer for the
    session."""
    shown = question["toolCall"]
    offered = [o["optionId"] for o in question["options"]]
    assert offered[0] == "allow_once" and "reject_once" in offered, (line, offered)
    assert "allow_always" not in offered and "allow_always_exact" not in offered, (line, offered)
    assert "vault/token.txt" in shown["title"], (line, shown["title"])
    held = shown["rawInput"]["holdsDeniedPaths"]
    assert any("vault/token.txt" in json.dumps(h) for h in held), (line, held)


@pytest.mark.parametrize("preset", ["granted", "danger-full-access"])
@pytest.mark.parametrize("rule", ["*/vault/*", "WS/vault/**"], ids=["wildcard", "fixed"])
def test_a_reader_never_shows_the_model_a_file_under_a_deny_rule(
    tmp_path: Path, rule: str, preset: str
) -> None:
    ws = (tmp_path / "ws").resolve()
    config = f'[permissions]\ndeny_paths = ["{rule.replace("WS", str(ws))}"]\n'
    lines = [*DENIED, *HELD]
    c = agent(tmp_path, [bash(GRANT), bash("echo hi"), *(bash(x) for x in lines)], config)
    sid = c.start()
    if preset == "danger-full-access":
        _full(c, sid)
    asked, [done] = prompt(c, sid, always)  # the grants, while nothing is denied
    assert done["status"] == "completed" and len(asked) == (preset == "granted"), asked
    _vault(ws)
    asked, [done] = prompt(c, sid, reject)
    assert asked == [] and done["status"] == "completed", "a builtin printing was asked"
    for line in DENIED:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [], f"{line!r} was asked: {asked[0]['toolCall']['title']}"
        assert done["status"] == "failed", (line, text_of(done))
        assert "matches deny_paths" in text_of(done), (line, text_of(done))
    for line in HELD:
        asked, [done] = prompt(c, sid, reject)
        assert len(asked) == 1, f"{line!r} ran unasked: {text_of(done)}"
        _held_question(asked[0], line)
        assert done["status"] == "failed"
    assert not (ws / "got.txt").exists() and not (ws / "t2").exists()
    assert not (ws / "sub" / "t3").exists()
    _never_shown(c, tmp_path)
    assert c.close() == 0


def test_a_folder_holding_nothing_denied_runs_its_granted_lines(tmp_path: Path) -> None:
    """From a subfolder that holds nothing under the rule, a granted reader runs unasked, the
    folder it runs in included; naming the folder above, which holds the file, is asked."""
    ws = (tmp_path / "ws").resolve()
    sub = ws / "sub"
    sub.mkdir(parents=True)
    (sub / "notes.txt").write_text("line one\n", encoding="utf-8")
    config = '[permissions]\ndeny_paths = ["*/vault/*"]\n'
    lines = ["grep -r line", "cat notes.txt", "grep -r canary ..", "cat ../vault/token.txt"]
    c = agent(tmp_path, [bash("grep line notes.txt; cat notes.txt"), *map(bash, lines)], config)
    sid = c.start(str(sub))
    asked, [done] = prompt(c, sid, always)
    assert len(asked) == 1 and done["status"] == "completed"
    _vault(ws)
    for line in lines[:2]:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [], f"{line!r} was asked: {asked[0]['toolCall']['title']}"
        assert done["status"] == "completed", (line, text_of(done))
    asked, [done] = prompt(c, sid, reject)
    assert len(asked) == 1 and done["status"] == "failed"
    _held_question(asked[0], lines[2])
    asked, [done] = prompt(c, sid, reject)
    assert asked == [] and "matches deny_paths" in text_of(done)
    _never_shown(c, tmp_path)
    assert c.close() == 0


def test_a_wildcard_rule_is_judged_in_every_folder(tmp_path: Path) -> None:
    """`*/.env`: a file of that name anywhere is refused; a folder holding one is asked."""
    ws = (tmp_path / "ws").resolve()
    (ws / "app" / "deep").mkdir(parents=True)
    (ws / "app" / "deep" / ".env").write_text(f"KEY={CANARY}\n", encoding="utf-8")
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("docs\n", encoding="utf-8")
    config = '[permissions]\ndeny_paths = ["*/.env"]\n'
    denied = ["cat app/deep/.env", "cat app/*/.env", "cd app && cat deep/.env", "cat ap?/deep/.*"]
    held = ["grep -r KEY app", "ls", "cat docs/a.md"]
    turns = [bash("cat docs/a.md; grep docs docs/a.md; ls docs"), *map(bash, denied + held)]
    c = agent(tmp_path, turns, config)
    sid = c.start()
    os.rename(ws / "app", tmp_path / "app")  # the grant, while the workspace holds none
    asked, [done] = prompt(c, sid, always)
    assert len(asked) == 1 and done["status"] == "completed"
    os.rename(tmp_path / "app", ws / "app")
    for line in denied:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [], f"{line!r} was asked: {asked[0]['toolCall']['title']}"
        assert "matches deny_paths" in text_of(done), (line, text_of(done))
    for line in held:
        asked, [done] = prompt(c, sid, reject)
        assert len(asked) == 1, f"{line!r} ran unasked: {text_of(done)}"
        assert "app/deep/.env" in asked[0]["toolCall"]["title"], asked[0]["toolCall"]["title"]
    _never_shown(c, tmp_path)
    assert c.close() == 0


def test_a_rule_naming_a_folder_denies_what_is_in_it(tmp_path: Path) -> None:
    """`deny_paths = ["<ws>/vault"]` (a folder, no glob: what the sandbox hides whole) denies
    the files in it, to the built-in tools too: `read` refuses, `grep` and `list` skip."""
    ws = (tmp_path / "ws").resolve()
    config = f'[permissions]\ndeny_paths = ["{ws}/vault"]\n'
    turns = [
        call("read", path="vault/token.txt"),
        call("grep", pattern="canary"),
        call("list", path="vault"),
        bash("cat vault/token.txt"),
    ]
    c = agent(tmp_path, turns, config)
    sid = c.start()
    _vault(ws)
    texts = []
    for _ in turns:
        _, [done] = prompt(c, sid, reject)
        texts.append(text_of(done))
    assert "denied by the permission rules" in texts[0]
    assert CANARY not in texts[1] and "denied by deny_paths were skipped" in texts[1], texts[1]
    assert "token.txt" not in texts[2].split("[")[0], texts[2]
    assert "matches deny_paths" in texts[3]
    _never_shown(c, tmp_path)
    assert c.close() == 0


def test_a_line_reading_a_path_the_sandbox_hides_is_never_offered_a_run_outside(
    tmp_path: Path,
    bwrap: Engine,  # noqa: F811
    outside: Path,  # noqa: F811
) -> None:
    """Inside a working sandbox a rule a mount hides is not judged on the line's words (what
    it matches is not there); a line that failed there is then never run outside it, where
    that path is, when it names or reads one."""
    ws = (tmp_path / "ws").resolve()
    config = f'[permissions]\ndeny_paths = ["{ws}/private/**"]\n'
    lines = [
        f"cat private/key.txt; touch {outside}/made",
        f"grep -r {CANARY[:6]} .; touch {outside}/made",
    ]
    c = agent(tmp_path, [bash(line) for line in lines], config, env=SANDBOX_ON)
    sid = c.start()
    (ws / "private").mkdir()
    (ws / "private" / "key.txt").write_text(CANARY + "\n", encoding="utf-8")
    for line in lines:
        asked, [done] = prompt(c, sid, lambda q: "allow_once")
        assert not any("sandboxBlocked" in q["toolCall"]["rawInput"] for q in asked), line
        assert done["status"] == "failed" and CANARY not in text_of(done), line
    assert not (outside / "made").exists()
    _never_shown(c, tmp_path)
    assert c.close() == 0
