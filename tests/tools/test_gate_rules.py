"""The proof's rules keyed on a command's name, through every way the proof reads a command: alone,
after `time`/`!`, and behind each wrapper it reads through (`command`, `env`, `nice`, `xargs`,
`find -exec` ..., nested), each rule for each; loops read to a fixed point of where they leave
the shell; `time` read as bash reads it (command_proof/simple_commands.py, proof.py, parser.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.command_proof.proof import Proof, Unprovable, prove
from reasonix_acp.command_proof.simple_commands import (
    BUILTINS,
    PLAIN_BUILTINS,
    PROGRAMS_TOO,
    RESERVED,
    RUNS_TEXT,
)
from reasonix_acp.command_proof.words import WRAPPERS
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_verdict import Rules, granted_names, judge_line

# The ways a command runs as the shell runs it (a builtin as the builtin)...
SHELL = [
    "", "command", "command -p", "command -v", "command -pV", "command --", "command command",
    "time", "time -p", "time --", "time -p --", "!", "! time -p --", "time -- !", "time command",
]  # fmt: skip
# ... and the wrappers that run it as a program found on PATH, nested too. `{}` is where the
# command goes (after the prefix, when there is none).
PROGRAM = [
    "env", "env -i", "env FOO=1", "env -u FOO --", "nice", "nice -n 5", "nice -5", "timeout 5",
    "timeout -s KILL 5", "nohup", "sudo", "sudo -u root", "doas", "doas -u root", "xargs",
    "xargs -0 -n1", "stdbuf -o0", "setsid", "ionice -c 3", "flock lock", "flock -x lock",
    "find . -exec {} \\;", "find . -execdir {} +", "command env", "env nice -n 5",
    "time -p nohup", "sudo env FOO=1 timeout 5", "command nice xargs",
]  # fmt: skip
# Wrappers that are themselves outside the language: what they run is never reached.
NEVER = {"exec": "exec echo a", "builtin": "builtin echo a", "time": "command time echo a"}


def _line(prefix: str, command: str) -> str:
    if "{}" in prefix:
        return prefix.replace("{}", command)
    return f"{prefix} {command}".strip()


def _prove(prefix: str, command: str) -> Proof:
    return prove("v=a; w=b; " + _line(prefix, command))


def _refused(prefix: str, command: str) -> str:
    with pytest.raises(Unprovable) as caught:
        _prove(prefix, command)
    return str(caught.value)


def test_every_wrapper_the_proof_reads_through_is_in_these_tests() -> None:
    first = {p.split()[0] for p in SHELL + PROGRAM if p and p.split()[0] not in ("!", "time")}
    assert first | set(NEVER) >= WRAPPERS | {"find"}, WRAPPERS - first - set(NEVER)
    for name, line in NEVER.items():
        with pytest.raises(Unprovable, match=f"`{name}`"):
            prove(line)


@pytest.mark.parametrize("prefix", SHELL + PROGRAM)
def test_a_plain_command_runs_through_each(prefix: str) -> None:
    """The anchor of the tests below: each way reads `echo a` (so a refusal there is the rule's,
    not the wrapper's); through a program wrapper `echo` is the program."""
    proof = _prove(prefix, "echo a")
    ran = [c for c in proof.commands if c.name == "echo"]
    assert ran and ran[0].argv[1] == "a"
    assert not ran[0].free
    free = _prove(prefix, "true").commands[-1]
    assert free.name == "true" and free.free == (prefix in SHELL)


# (command, why): through each way, refused for this reason
RULES = [
    ("test -v 'a[$(touch X)]'", "`test -v` evaluates a variable name"),
    ("[ -v 'a[$(touch X)]' ]", "`[ -v` evaluates a variable name"),
    ("test -R x", "`test -v` evaluates a variable name"),
    ("test x 'a[0]' -v", "`test -v` evaluates a variable name"),
    ("printf -v 'a[$(touch X)]' x", "`printf -v` evaluates a variable name"),
    ("printf -vx y", "`printf -v` evaluates a variable name"),
    ("-- -x", "a command name that starts with `-`: "),  # `--` to `time`, `-x` to a wrapper
    ("'if' x", "the reserved word `if`"),
    ("'time' x", "the reserved word `time`"),
    ("'{' x", "the reserved word `{`"),
    ("'[[' x", "the reserved word `[[`"),
    ("'a*' x", "a command name known only when it runs"),
    *[(f"{name} x", f"`{name}` runs text as commands") for name in sorted(RUNS_TEXT)],
    ("/bin/sh x", "`sh` runs text as commands"),
]
# Words known only when it runs: refused through each way, by the rule or by the wrapper,
# which reads its own options from the same words.
UNKNOWN = ["test $v", 'test "$v" "a[0]"', 'test "$v" "$w"', 'printf "$v" x', "$v x", "t*"]


@pytest.mark.parametrize(("command", "why"), RULES)
@pytest.mark.parametrize("prefix", SHELL + PROGRAM)
def test_each_rule_holds_through_each(prefix: str, command: str, why: str) -> None:
    assert why in _refused(prefix, command)


@pytest.mark.parametrize("command", UNKNOWN)
@pytest.mark.parametrize("prefix", SHELL + PROGRAM)
def test_each_unknown_word_rule_holds_through_each(prefix: str, command: str) -> None:
    _refused(prefix, command)


BUILTIN_RULES = sorted(BUILTINS - PLAIN_BUILTINS - RUNS_TEXT - {"export"})


@pytest.mark.parametrize("prefix", SHELL + PROGRAM)
def test_the_builtins_that_change_the_shell_are_refused_through_each(prefix: str) -> None:
    for name in BUILTIN_RULES:  # `command -v` too: judged as if it ran what it names
        why = _refused(prefix, f"{name} x")
        assert f"`{name}`" in why, (name, why)


@pytest.mark.parametrize("prefix", PROGRAM)
def test_a_program_wrapper_runs_no_builtin(prefix: str) -> None:
    """A wrapper that is a program finds the name on PATH: a builtin with no standard program of
    that name is refused, and one that is a program (`test`, `true`) needs its grant."""
    for name in sorted(PLAIN_BUILTINS - PROGRAMS_TOO):
        why = _refused(prefix, f"{name} 0")
        assert why == f"`{name}` run by a wrapper is a program of that name, not the builtin"
    names = granted_names(_prove(prefix, "true"))
    assert "true" in names and "v" not in names


@pytest.mark.parametrize("prefix", SHELL)
def test_cd_through_the_shell_moves_the_shell(prefix: str) -> None:
    proof = _prove(prefix, "cd /elsewhere; echo X > F")
    assert "/elsewhere/F" in proof.writes and "F" in proof.writes


@pytest.mark.parametrize("prefix", SHELL)
def test_exit_n_through_the_shell_needs_no_grant(prefix: str) -> None:
    assert "exit" not in granted_names(_prove(prefix, "exit 3"))
    assert "exit" in granted_names(_prove(prefix, "exit x"))


@pytest.mark.parametrize("prefix", SHELL + PROGRAM)
def test_what_a_wrapped_command_writes_and_links(prefix: str) -> None:
    if prefix.startswith(("xargs", "command nice xargs")):  # and the names it reads
        assert _refused(prefix, "tee ../x") == "a file written to a path known only when it runs"
    else:
        assert "../x" in _prove(prefix, "tee ../x").writes
    assert "l/f" in _prove(prefix, "ln -s /e l; echo X > l/f").adrift
    builtin_echo = _prove(prefix, "echo a; echo X > f")
    assert ("f" in builtin_echo.adrift) == (prefix not in SHELL)


def test_find_hands_what_it_finds_to_the_command() -> None:
    with pytest.raises(Unprovable, match="a file written to a path known only when it runs"):
        prove(r"find / -exec tee {} \;")  # every file found, outside too
    assert prove(r"find . -exec echo {}.bak \;").commands[-1].argv == ("echo", None)
    with pytest.raises(Unprovable, match="known only when it runs"):
        prove(r"find . -exec {} \;")


def test_env_with_no_command_prints_the_environment() -> None:
    for line in ("env", "env -i", "env FOO=1", "env -u X", "nice env", "env --"):
        with pytest.raises(Unprovable, match="prints the environment"):
            prove(line)


# --- loops: every pass starts where the previous one left the shell


def _writes(line: str) -> tuple[set[str | None], set[str]]:
    proof = prove(line)
    return set(proof.writes), set(proof.adrift)


LOOPS = [
    # (line, written, adrift)
    ("for i in 1 2; do echo X > F; cd /e; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do cd /e; echo X > F; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do echo X > F; cd sub; done", {"F"}, {"F"}),  # sub, sub/sub ...: anywhere
    ("for i in 1 2; do echo X > F; (cd /e); done", {"F"}, set()),
    ("for i in 1 2; do echo X > F; cd /e | true; done", {"F"}, set()),
    ("for i in 1 2; do echo X > F; { cd /e; }; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do echo X > F; true && cd /e; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do echo X > F; if true; then cd /e; fi; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do echo X > F; case a in a) cd /e;; esac; done", {"F", "/e/F"}, set()),
    ("while true; do echo X > F; cd /e; done", {"F", "/e/F"}, set()),
    ("until false; do echo X > F; cd /e; done", {"F", "/e/F"}, set()),
    ("while echo X > F; do cd /e; done", {"F", "/e/F"}, set()),
    ("for i in 1; do for j in 1; do echo X > F; done; cd /e; done", {"F", "/e/F"}, set()),
    ("for i in 1; do echo X > F; for j in 1; do cd /e; done; done", {"F", "/e/F"}, set()),
    ("for i in 1 2; do cd /e; done; echo X > F", {"F", "/e/F"}, set()),
    ("while false; do cd /e; done; echo X > F", {"F", "/e/F"}, set()),  # the body may run
    ("for i in 1 2; do echo X > F; ln -s /e l; done", {"F"}, {"F"}),
    ("for i in 1 2; do echo X > F; cd /e; ln -s /x l; done", {"F"}, {"F"}),
    ("for i in 1 2 3; do cd sub; echo X > F; done", {"F"}, {"F"}),  # ever deeper: anywhere
    ("for i in 1 2; do cd ..; echo X > F; done", {"F"}, {"F"}),
    ("for i in 1 2; do echo X > F; env -C /e true; done", {"F"}, {"F"}),
]


@pytest.mark.parametrize(("line", "written", "adrift"), LOOPS)
def test_a_loop_is_read_to_a_fixed_point(line: str, written: set[str], adrift: set[str]) -> None:
    assert _writes(line) == (written, adrift)


def test_a_loop_lists_what_it_runs_once() -> None:
    proof = prove("for i in 1 2; do echo a; cd sub; done")
    assert [c.argv for c in proof.commands] == [("echo", "a"), ("cd", "sub")]


def test_branches_are_read_apart_and_joined_after() -> None:
    assert _writes("if true; then cd /e; else echo X > F; fi") == ({"F"}, set())
    assert _writes("if true; then cd /e; fi; echo X > F") == ({"F", "/e/F"}, set())
    assert _writes("if cd /e; then echo X > F; fi") == ({"F", "/e/F"}, set())
    assert _writes("if ln -s /e l; then :; else echo X > F; fi") == ({"F"}, {"F"})
    assert _writes("case a in a) cd /e;; b) echo X > F;; esac") == ({"F"}, set())
    assert _writes("case a in a) cd /e;; esac; echo X > F") == ({"F", "/e/F"}, set())


def test_what_a_loop_sets_is_read_as_bash_reads_it() -> None:
    for line in (
        "for i in 1 2; do echo $x; x=1; done",
        "for i in 1 2; do x=1; done; echo $x",
        "while false; do x=1; done; echo $x",
    ):
        with pytest.raises(Unprovable, match="`\\$x` is read from the environment"):
            prove(line)
    prove("x=1; for i in 1 2; do echo $x; x=2; done")
    prove("while x=1; do echo $x; done; echo $x")  # the condition runs at least once


def test_deeply_nested_loops_are_read_in_time() -> None:
    depth = 40
    line = "for i in 1; do cd sub; " * depth + "echo X > F" + "; done" * depth
    started = time.monotonic()
    proof = prove(line)
    assert time.monotonic() - started < 5
    assert "F" in proof.adrift


# --- `time`, as bash reads it


TIMED = [
    "time -- echo a", "time -p -- echo a", "! time -- echo a", "time -- ! echo a",
    "time -- time -p -- echo a", "time -p echo a", "time echo a", "time -- echo a | cat",
]  # fmt: skip
NOT_TIMED = [
    ("time -p -p echo a", "-p"), ("time -x echo a", "-x"), ("time -- -- echo a", "--"),
    ("time -- -p echo a", "-p"), ("time '--' echo a", "--"), ("time \\-- echo a", "--"),
    ("time -pp echo a", "-pp"), ("time -p -- -p echo a", "-p"), ("-- echo a", "--"),
]  # fmt: skip


@pytest.mark.parametrize("line", TIMED)
def test_time_takes_its_own_words(line: str) -> None:
    assert prove(line).commands[0].argv == ("echo", "a")


@pytest.mark.parametrize(("line", "name"), NOT_TIMED)
def test_a_word_time_leaves_is_the_command_name(line: str, name: str) -> None:
    with pytest.raises(Unprovable, match=f"a command name that starts with `-`: {name}$"):
        prove(line)


def test_deny_rules_see_what_time_runs(tmp_path: Path) -> None:
    workspace = Workspace(str(tmp_path))
    rules = Rules(frozenset({"rm"}))
    for line in ("time -- rm f", "time -p -- rm f", "! time -- rm f"):
        verdict = judge_line(parse(line), "danger-full-access", [], rules, workspace)
        assert verdict.decision == "deny", (line, verdict)


def test_no_name_that_starts_with_a_dash_is_ever_a_grant() -> None:
    lines = [line for line in TIMED] + [_line(p, "echo a") for p in SHELL + PROGRAM]
    for line in lines:
        names = granted_names(prove(line))
        assert names and not any(name.startswith("-") for name in names), (line, names)
    for name in RESERVED:
        with pytest.raises(Unprovable):
            prove(f"command '{name}' a")
