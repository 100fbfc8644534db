"""Developer and CI tasks. `nox -l` lists them; the README's test command runs the defaults."""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["update_schema", "codegen_check", "lint", "typecheck", "tests"]
nox.options.error_on_missing_interpreters = True

# The generator's output is committed, so the tools that shape it are pinned exactly:
# another version could format or name things differently and codegen_check would flag it.
CODEGEN_TOOLS = ["datamodel-code-generator[ruff]==0.97.0", "ruff==0.17.6", "jsonschema>=4.23"]
GENERATED = "src/reasonix_acp/generated"


@nox.session
def update_schema(session: nox.Session) -> None:
    """Fetch the pinned upstream schema with `npm pack` into .cache/schema/ and check its sha256."""
    session.run("python", "-m", "codegen.fetch")


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate src/reasonix_acp/generated/ from the cached schema and schema/vendor/."""
    session.install(*CODEGEN_TOOLS)
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session
def codegen_check(session: nox.Session) -> None:
    """Fail when the committed generated code differs from a fresh generation."""
    session.install(*CODEGEN_TOOLS)
    session.run("python", "-m", "codegen", "--check")
    session.run("git", "diff", "--exit-code", "--", GENERATED, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check on the hand-written code."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the hand-written package and the generator."""
    session.install("-e", ".[typecheck,codegen]")
    session.run("mypy", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite against real subprocesses; needs `nox -s update_schema` first."""
    session.install("-e", ".[test,codegen]")
    # pytest exits 5 when it collected no test; nox treats any non-zero exit as a failure.
    # In parallel, the longest modules first (tests/conftest.py). Three workers on two cores:
    # much of the suite waits on agents' timeouts rather than computing.
    session.run("pytest", *PARALLEL, *session.posargs, env=BYTECODE)


PARALLEL = ("-n", os.environ.get("PYTEST_WORKERS", "3"), "--dist", "load")
# The suite starts agents, MCP servers and stand-ins some two thousand times: each finds its
# modules compiled, as a user's install does (pip compiles; an editable install compiles on
# first import), instead of compiling them again under an inherited PYTHONDONTWRITEBYTECODE.
BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
# Left out of `quick`: the conformance calibration, packaging, the seeded storm.
SLOW = ("tests/conformance", "tests/test_packaging.py", "tests/test_session_storm.py")


@nox.session(reuse_venv=True)  # the inner loop: its environment is kept between runs
def quick(session: nox.Session) -> None:
    """The inner loop: the suite without its slowest parts (the conformance calibration,
    packaging, the session storm, the tests marked `slow`) and the gate's differential test at
    200 lines. Paths given run whole, slow tests included (`nox -s quick --
    tests/test_deepseek.py`)."""
    session.install("-e", ".[test,codegen]")
    ignored = [f"--ignore={path}" for path in SLOW]
    marks = () if session.posargs else ("-m", "not slow")
    env = {"GATE_EXAMPLES": os.environ.get("GATE_EXAMPLES", "200"), **BYTECODE}
    session.run("pytest", *PARALLEL, *ignored, *marks, *session.posargs, env=env)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks: start-up and streaming against agents on the official ACP Python SDK, session
    ready and prompt overhead, memory, and the session store; each prints its figures, the
    baseline of the same run, ratios and targets."""
    session.install("-e", ".[test]")
    session.run("python", "bench/run_all.py", *session.posargs)


@nox.session
def soak(session: nox.Session) -> None:
    """The seeded session storm at length: STORM_SEEDS seeds (200 unless set) of STORM_STEPS
    steps against one real `acp` each; a failure names its seed, replayed with STORM_SEED. The
    gate's differential test with GATE_EXAMPLES lines (50,000 unless set), replayed with
    GATE_SEED. The reload property with HISTORY_EXAMPLES sessions (200 unless set), replayed
    with HISTORY_SEED. The hostile-model suite for ten thousand steps: HOSTILE_EXAMPLES runs
    (34 unless set) of HOSTILE_STEPS steps (100 unless set) for each of its three policies,
    replayed with HOSTILE_SEED."""
    session.install("-e", ".[test,codegen]")
    env = {
        "STORM_SEEDS": os.environ.get("STORM_SEEDS", "200"),
        "GATE_EXAMPLES": os.environ.get("GATE_EXAMPLES", "50000"),
        "HISTORY_EXAMPLES": os.environ.get("HISTORY_EXAMPLES", "200"),
        "HOSTILE_EXAMPLES": os.environ.get("HOSTILE_EXAMPLES", "34"),
        "HOSTILE_STEPS": os.environ.get("HOSTILE_STEPS", "100"),
    }
    tests = ["tests/test_session_storm.py", "tests/tools/test_gate_differential.py"]
    tests += ["tests/test_history_reload_property.py", "tests/hostile/test_hostile.py"]
    session.run("pytest", "-q", "-s", *tests, *session.posargs, env=env)
