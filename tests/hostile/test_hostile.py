"""The hostile-model property suite, free-running: hypothesis plays the model against a real
`acp` over real pipes (tests/hostile/run.py), choosing tool calls across turns from every tool
the agent has and client actions between them, while a user stand-in answers its questions by
the run's policy (`reject-all`, `allow-once`, `grant-names`: tests/hostile/user.py), and checks
after every step that nothing ran, changed or leaked without the user's consent
(tests/hostile/invariants.py, run.py): nothing outside the workspace changed and no `.git`
config or hook changed unless an allowed question named it, no secret reached the model, a
client frame, the store or the log, no denied host was reached and no denied command ran, no
request froze, a reload sends what the live session would have sent, and every context block
the user attached reaches the model (or leaves a note when it only repeats AGENTS.md).

Each test prints its seed: HOSTILE_SEED=N replays it; HOSTILE_EXAMPLES runs per policy (3 unless
set) of HOSTILE_STEPS steps (20 unless set; the first run of each takes the simplest step
throughout); `nox -s soak` runs ten thousand steps; a failure is reported as played, and
HOSTILE_SHRINK=1 with its seed shrinks it to a minimal sequence. The run with the sandbox on
needs bubblewrap (tests/tools/test_sandbox.py `bwrap`).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.hostile.run import machine, settings_of
from tests.tools.test_sandbox import bwrap  # noqa: F401 (a fixture)

SEED = int(os.environ.get("HOSTILE_SEED", str(random.SystemRandom().randrange(1 << 32))))
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "3"))
STEPS = int(os.environ.get("HOSTILE_STEPS", "20"))
# Every family of calls and every client action, weighted (tests/hostile/moves.py);
# `rest` first: the simplest step, which hypothesis's first run takes every time, costs nothing.
FREE = {
    "rest": 1,
    "misc": 2,
    "files": 3,
    "reads": 2,
    "gate": 4,
    "grant": 3,
    "web": 2,
    "bg": 2,
    "bgread": 2,
}
FREE |= {"task": 1, "git": 1, "git-files": 1, "wrap": 1, "loop": 1, "time": 1, "swap": 1}
FREE |= {"peek": 1, "mcp": 1}
FREE |= {"swap-files": 1, "context": 1, "rewind": 1, "compact": 1, "reload": 1}


# Shrinking re-plays a failing run against a new agent many times over: minutes, not seconds.
# The suite reports a failure with its seed and the steps as played; HOSTILE_SHRINK=1 with that
# seed shrinks it to a minimal sequence.
SHRINK = os.environ.get("HOSTILE_SHRINK", "") == "1"
PHASES = tuple(p for p in Phase if SHRINK or p not in (Phase.shrink, Phase.explain))


def run_settings(examples: int, steps: int) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        phases=PHASES,
        deadline=None,
        database=None,  # a seed replays the same runs
        print_blob=True,
        suppress_health_check=list(HealthCheck),
    )


def play(name: str, setting: object, weights: dict[str, int], base: object, at: int) -> None:
    """Run the machine with seed `at`, saying so first."""
    print(f"\nhostile model ({name}): HOSTILE_SEED={at}, {EXAMPLES} runs of {STEPS} steps")
    hostile = seed(at)(machine(setting, weights, base))  # type: ignore[arg-type]
    run_state_machine_as_test(hostile, settings=run_settings(EXAMPLES, STEPS))


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["reject-all", "allow-once", "grant-names"])
def test_a_hostile_model_gets_nothing_unasked(
    policy: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    play(policy, settings_of(policy=policy), FREE, tmp_path_factory, SEED)


@pytest.mark.slow
def test_a_hostile_model_gets_nothing_unasked_in_the_sandbox(
    tmp_path_factory: pytest.TempPathFactory,
    bwrap: object,  # noqa: F811
) -> None:
    play("sandbox", settings_of(sandbox=True), FREE, tmp_path_factory, SEED)
