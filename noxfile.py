"""Developer and CI tasks. `nox -l` lists them; the README's test command runs the defaults."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.options.sessions = ["codegen_check", "lint", "typecheck", "tests"]
nox.options.error_on_missing_interpreters = True
# uv builds each session's environment where it is installed (the README's command installs it
# beside nox): several times faster than pip, and CI builds every environment from nothing.
nox.options.default_venv_backend = "uv|virtualenv"

# The generator's output is committed, so the tools that shape it are pinned exactly:
# another version could format or name things differently and codegen_check would flag it.
CODEGEN_TOOLS = ["datamodel-code-generator[ruff]==0.97.0", "ruff==0.17.6", "jsonschema>=4.23"]
GENERATED = "src/reasonix_acp/generated"


@nox.session
def update_schema(session: nox.Session) -> None:
    """The pinned schema files (committed in src/acp_conformance/) fetched with `npm pack` where
    one is missing or differs, each checked against its sha256 in schema/upstream.toml; with
    `-- --version X`, version X fetched and pinned (its version and hashes written into
    schema/upstream.toml), then `nox -s codegen`. Nothing else needs the network."""
    session.run("python", "-m", "codegen.fetch", *session.posargs)


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate src/reasonix_acp/generated/ from the pinned schema files and schema/vendor/."""
    session.install(*CODEGEN_TOOLS)
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session
def codegen_check(session: nox.Session) -> None:
    """Fail when a pinned schema file differs from its sha256 in schema/upstream.toml, or the
    committed generated code from a fresh generation."""
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
    """The test suite against real subprocesses."""
    # pip: the SDK examples' test fetches the SDK's sdist with it (a uv environment has none).
    session.install("-e", ".[test,codegen]", "pip")
    # pytest exits 5 when it collected no test; nox treats any non-zero exit as a failure.
    # In parallel, the longest modules first (tests/conftest.py). Four workers on two cores:
    # with its agents forked (tests/forks.py) the suite waits more than it computes; six made
    # the timing-bound tests fail under the load.
    session.run("pytest", *PARALLEL, *session.posargs, env=BYTECODE)


# What `package` runs against each installed distribution's `acp` (`nox -s package -- ARGS`
# replaces it, e.g. `-- --suite core`): a scenario for each part of the package it could lose, the
# pinned schema (every check), the scripted model over HTTP and the tools, the unstable schema
# (fork), the store (load), the vendor schemas (reasonix), the runner's own MCP server (client).
PACKAGE_SCENARIOS = (
    "core.initialize.v1",
    "core.prompt.tool-end-turn",
    "core.session.fork",
    "core.load.replay",
    "reasonix.status.idle",
    "client.elicitation.accept",
)
# How the conformance runner points `acp` at its scripted model (docs/conformance.md).
SCRIPTED_MODEL = {
    "OPENAI_BASE_URL": "{model_url}",
    "OPENAI_MODEL": "conformance-model",
    "OPENAI_API_KEY": "unused",
    "ACP_MODEL": "",
    "REASONIX_ACP_CONFIG_DIR": "{tmp}/config",
}


@nox.session
def package(session: nox.Session) -> None:
    """The sdist and the wheel as users get them: `python -m build` (the wheel built from the
    sdist), then each installed with pip into a fresh venv of its own and run from there, in an
    empty directory: `acp demo`, and `acp-conformance` against that `acp` (PACKAGE_SCENARIOS)."""
    # The build backend beside the frontend, not in an isolated environment of each build; pip
    # installs into each venv from here (`--python`), which spares every venv a pip of its own.
    session.install("build>=1.2", "hatchling>=1.25", "pip>=22.3")
    tmp = Path(session.create_tmp()).resolve()
    dist = tmp / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    build = ("python", "-m", "build", "--no-isolation", "--outdir", str(dist), ".")
    session.run(*build, silent=True)
    wheel, sdist = next(dist.glob("*.whl")), next(dist.glob("*.tar.gz"))
    selection = session.posargs or ["--only", *PACKAGE_SCENARIOS]
    env = [a for k, v in SCRIPTED_MODEL.items() for a in ("--env", f"{k}={v}")]
    for name, built in (("wheel", wheel), ("sdist", sdist)):
        venv, cwd = tmp / name, tmp / f"{name}-run"
        for folder in (venv, cwd):
            shutil.rmtree(folder, ignore_errors=True)
        cwd.mkdir()
        session.run("python", "-m", "venv", "--without-pip", str(venv))
        python = str(venv / "bin" / "python")
        session.run("python", "-m", "pip", "--python", python, "install", "-q", str(built))
        with session.chdir(cwd):  # nothing of the checkout in reach
            session.run(str(venv / "bin" / "acp"), "demo", external=True, silent=True)
            session.log(f"{built.name}: acp demo played its session")
            agent = f"{venv / 'bin' / 'acp'} --data-dir {{tmp}}/data"
            runner = str(venv / "bin" / "acp-conformance")
            session.run(runner, "--agent", agent, *env, *selection, external=True)


PARALLEL = ("-n", os.environ.get("PYTEST_WORKERS", "4"), "--dist", "load")
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
def perf_guard(session: nox.Session) -> None:
    """This tree's `acp` against a base commit's (`-- --base REV`; default the merge base with
    origin/main, else HEAD), side by side in one run: start-up, first and later prompts'
    agent time, and the load of a stored session; fails when a median moves past its
    tolerance (bench/guard.py). Run it before you stop when `src/` changed."""
    session.install("uv")
    session.run("python", "bench/guard.py", *session.posargs, env=BYTECODE)


@nox.session
def soak(session: nox.Session) -> None:
    """The seeded session storm at length: STORM_SEEDS seeds (200 unless set) of STORM_STEPS
    steps against one real `acp` each; a failure names its seed, replayed with STORM_SEED. The
    gate's differential test with GATE_EXAMPLES lines (50,000 unless set), replayed with
    GATE_SEED. The reload property with HISTORY_EXAMPLES sessions (200 unless set), replayed
    with HISTORY_SEED. The hostile-model suite for ten thousand steps: HOSTILE_EXAMPLES runs
    (34 unless set) of HOSTILE_STEPS steps (100 unless set) for each of its three policies,
    replayed with HOSTILE_SEED. The official SDK's example agents under acp-conformance, both
    whole (SDK_EXAMPLES=all; the suite plays one whole and the other's initialize only)."""
    session.install("-e", ".[test,codegen]")
    env = {
        "STORM_SEEDS": os.environ.get("STORM_SEEDS", "200"),
        "GATE_EXAMPLES": os.environ.get("GATE_EXAMPLES", "50000"),
        "HISTORY_EXAMPLES": os.environ.get("HISTORY_EXAMPLES", "200"),
        "HOSTILE_EXAMPLES": os.environ.get("HOSTILE_EXAMPLES", "34"),
        "HOSTILE_STEPS": os.environ.get("HOSTILE_STEPS", "100"),
        "SDK_EXAMPLES": "all",
    }
    tests = ["tests/test_session_storm.py", "tests/tools/test_gate_differential.py"]
    tests += ["tests/test_history_reload_property.py", "tests/hostile/test_hostile.py"]
    tests += ["tests/conformance/test_sdk_examples.py"]
    session.run("pytest", "-q", "-s", *tests, *session.posargs, env=env)
