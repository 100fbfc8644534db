"""Defects the hostile-model suite found beyond the holes it was built after, each kept as a
strict xfail until it is fixed (an XPASS fails the run: then drop the mark, and the tolerance
named beside it in the suite).

- Fixed, its test kept: an agent command (`/status`, `/help`, `/mcp`, `/rewind N` that cannot
  go back) sent as a session's first prompt, before any model turn, was not in the live
  session's history, yet a load of the session put it and its answer there, and the provider's
  cached prefix was lost. Found with HOSTILE_SEED=4075429399 (the sandbox run); shrunk to:
  `/rewind 1`, a turn, a reload, a turn. An agent command now stores an empty `history` event
  before it (src/reasonix_acp/session/history.py `history_starts`).
- Fixed, its test kept: a granted reader (`cat`, `grep -r`, `head`, `cp` then `cat` ...) read
  a file under a `deny_paths` rule in the workspace unasked, and showed it to the model: deny
  rules judged a line's redirections, not the files its commands name or find. Found by the
  `peek` family (tests/hostile/payloads.py), which plays in the free runs since; shrunk to one
  step, `grep -r canary .` (the user granting `grep` when asked), or by hand: `cat notes.txt`
  (`cat` granted), then `cat vault/token.txt`. A line naming a path under a rule is now
  refused, and one naming a folder that holds such a path, or running a program in one (the
  workspace holding `vault/`), is asked with no answer for the session
  (src/reasonix_acp/turn/line_denied.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.moves import Reload, Turn, call
from tests.hostile.run import Run
from tests.hostile.test_classes import Case, play_case
from tests.hostile.world import Setting
from tests.test_deepseek import stable


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Run]:
    played = Run(Setting(policy="reject-all"), tmp_path)
    yield played
    played.close()


@pytest.mark.parametrize("command", ["/status", "/rewind 1"])
def test_an_agent_command_before_the_first_turn_stays_out_of_the_history_after_a_reload(
    run: Run, command: str
) -> None:
    run.player.text(command)
    turn = Turn((call("bash", command="true"),))
    run.play(turn)
    live = run.server.bodies[-1]
    run.play(Reload(kill=False))
    start = len(run.server.bodies)
    run.play(turn)
    assert run.server.bodies[start].startswith(stable(live))


READERS = ("cat", "grep", "head", "cp", "wc", "ls")
PEEK = Case(Setting(policy="grant-names", grants=READERS), {"grant": 2, "peek": 3}, 2)


def test_a_granted_reader_never_shows_the_model_a_file_under_a_deny_rule(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    print(f"\nhostile model, a granted reader: seed {PEEK.seed}")
    play_case(PEEK, tmp_path_factory)
