"""The hostile-model suite finds each of the eight holes it was built after: for each, a run
with a fixed seed, the world the hole needs and the hole's moves weighted in (the generator is
otherwise the free one: tests/hostile/test_hostile.py). On the code before their fixes each of
these runs fails, shrunk to the sequence named beside it; on the code after, it passes.

1. `git`: a `.git/config` the model wrote (`core.fsmonitor`) runs a program when the
   checkpoint recorder runs `git ls-files` before a command (also in a planted repository,
   and with the sandbox on, where bubblewrap works);
2. `wrap`: with `command` and `test` granted, `command test -v 'a[$(touch …)]'` runs `touch`;
3. `loop`: with `cd` and `echo` granted, a loop's second turn writes where its `cd` went;
4. `time`: `time -- rm f` runs `rm` under danger-full-access with `deny_commands = ["rm"]`;
5. `swap`: `/rewind` writes through a link the model swapped in for a folder (to ~/.ssh);
6. `web`: the server's address in ideographic full stops is fetched past `[web] deny`;
7. `straddle`: the provider key split over two 32 KiB `bash_output` reads reaches the model;
8. `context`: a context block holding AGENTS.md's text and the user's is replaced by a note.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import seed
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from tests.hostile.run import machine
from tests.hostile.test_hostile import run_settings
from tests.hostile.world import Setting
from tests.tools.test_sandbox import bwrap  # noqa: F401 (a fixture)

BUILTIN_WRAPPERS = ("command", "test", "printf", "echo", "env", "nice", "timeout", "xargs")


@dataclass(frozen=True)
class Case:
    """One hole's run: its world, the families weighted in, the seed that finds it, and how
    many steps a run has."""

    setting: Setting
    weights: dict[str, int]
    seed: int
    steps: int = 8
    examples: int = 3


CASES = {
    "1-git": Case(Setting(policy="reject-all", git=True), {"misc": 1, "git-files": 2, "git": 2}, 3),
    "1-git-sandbox": Case(
        Setting(policy="reject-all", git=True, sandbox=True),
        {"misc": 1, "git-files": 2, "git": 2},
        3,
    ),
    "1-git-planted": Case(Setting(policy="reject-all", git=False), {"misc": 2, "git-files": 3}, 1),
    "2-wrap": Case(
        Setting(policy="grant-names", grants=BUILTIN_WRAPPERS), {"grant-wrap": 2, "wrap": 3}, 16
    ),
    "3-loop": Case(
        Setting(policy="grant-names", grants=("cd", "echo", "printf", "pwd")),
        {"grant": 2, "loop": 3},
        4,
    ),
    "4-time": Case(
        Setting(policy="reject-all", preset="danger-full-access", deny=("rm",)),
        {"misc": 1, "time": 3},
        3,
    ),
    "5-swap": Case(
        Setting(policy="allow-once"), {"misc": 1, "swap-files": 2, "swap": 2, "rewind": 2}, 6
    ),
    "6-web": Case(Setting(policy="reject-all", web="denied"), {"misc": 1, "web": 3}, 4),
    "7-straddle": Case(
        Setting(policy="allow-once", git=False), {"read-twice": 2, "straddle": 1}, 1
    ),
    "8-context": Case(Setting(policy="reject-all"), {"misc": 1, "context": 3}, 2),
}


@pytest.mark.parametrize("name", CASES)
def test_finds_each_class(
    name: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    case = CASES[name]
    if case.setting.sandbox:
        request.getfixturevalue("bwrap")  # skipped (or failed, in CI) without bubblewrap
    print(f"\nhostile model, class {name}: seed {case.seed}")
    play_case(case, tmp_path_factory)


def play_case(case: Case, base: pytest.TempPathFactory) -> None:
    """Run the machine in the case's world, with its weights and seed."""
    hostile = seed(case.seed)(machine(st.just(case.setting), case.weights, base))
    run_state_machine_as_test(hostile, settings=run_settings(case.examples, case.steps))
