"""What a real `acp` imports to answer `initialize` and `session/new` (no MCP servers, offline
model) is pinned: a third-party package new on that path fails here by name. Heavy packages
that only some sessions need (the MCP SDK, httpx, tomlkit, jsonschema) must stay off it, and so
must pydantic: a plain `session/new` is decoded without it (protocol/light.py)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.sse_server import Server

ALLOWED = {
    "typing_extensions",
    "platformdirs",
    "transitions",
    "six",  # transitions needs it
    "tree_sitter",  # the grammar is built on first use; the modules are small
    "tree_sitter_bash",
    "reasonix_acp",
}
NEVER = {
    "mcp",
    "httpx",
    "httpcore",
    "anyio",
    "starlette",
    "tomlkit",
    "jsonschema",
    "rich",
    "pydantic",
    "pydantic_core",
}
# Modules a session that uses none of them must not load before its session/new answer: they
# load with what needs them (plugin directories, prices, a prompt's tools, a config file).
OFF_PATH = {
    "reasonix_acp.config.pricing",
    "reasonix_acp.config.pricing_table",
    "reasonix_acp.plugins.manifest",
    "reasonix_acp.plugins.actions",
    "reasonix_acp.tools.base",
    "reasonix_acp.tools.shell",
    "reasonix_acp.tools.files",
    "reasonix_acp.mcp_servers.tools",
    "reasonix_acp.turn.admission",
    "reasonix_acp.turn.commands",
    "reasonix_acp.turn.intent",
    "decimal",
    "hashlib",
    "tempfile",
    "tomllib",
    "uuid",
}
LINE = re.compile(r"import time:\s+\d+ \|\s+\d+ \| \s*(\S+)")


def modules(stderr: str) -> set[str]:
    return {m.group(1) for m in map(LINE.match, stderr.splitlines()) if m}


def imported(stderr: str) -> set[str]:
    return {name.split(".")[0] for name in modules(stderr)}


# Where the agent keeps its data and config: as most users run it (only HOME, the directories
# found from it), under the XDG variables, and in the agent's own override variables.
PLACES = {
    "home": lambda tmp: {"HOME": str(tmp / "home")},
    "xdg": lambda tmp: {
        "HOME": str(tmp / "home"),
        "XDG_DATA_HOME": str(tmp / "xdg-data"),
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
    },
    "override": lambda tmp: {
        "REASONIX_ACP_DATA_DIR": str(tmp / "d"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp),
    },
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_initialize_and_session_new_import_only_the_pinned_packages(
    tmp_path: Path, place: str
) -> None:
    new = {"cwd": str(tmp_path), "mcpServers": []}
    frames = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}) + "\n"
        for i, m, p in ((1, "initialize", {"protocolVersion": 1}), (2, "session/new", new))
    )
    env = {**PLACES[place](tmp_path), "REASONIX_ACP_LOG_LEVEL": "debug"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reasonix_acp", "--model", "offline"],
        input=frames,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert done.returncode == 0 and '"id":2' in done.stdout.replace(" ", ""), done.stderr[-2000:]
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    )
    # What the session loads ahead for its first prompt, once answered, is not on this path.
    answered = done.stderr.partition("loading the prompt path ahead")[0]
    assert answered != done.stderr, "the prompt path was not loaded ahead"
    ours = imported(answered) - imported(bare.stderr) - set(sys.stdlib_module_names)
    # Not underscored, and really there (the stdlib probes for Jython's `org` and fails).
    ours = {n for n in ours if not n.startswith("_") and importlib.util.find_spec(n) is not None}
    assert not ours & NEVER, f"heavy packages on the session path: {sorted(ours & NEVER)}"
    early = modules(answered) & OFF_PATH
    assert not early, f"loaded before a session without them needs them: {sorted(early)}"
    unexpected = ours - ALLOWED
    if unexpected:
        pytest.fail(f"new packages on the initialize/session/new path: {sorted(unexpected)}")


# The real entry point, with an audit hook noting every import that reaches the finders (a
# module not loaded yet, or one that is not installed) and when.
COUNTING = """
import sys, time
from reasonix_acp.cli.main import main
path = sys.argv.pop(1)
seen = []
sys.addaudithook(lambda event, args: event == "import" and seen.append((time.time(), args[0])))
try:
    status = main()
finally:
    with open(path, "w") as out:
        out.write("\\n".join(f"{t} {name}" for t, name in seen))
sys.exit(status)
"""


def test_later_prompts_look_up_no_module(tmp_path: Path) -> None:
    """Prompts after the first ones import nothing: a module lookup costs a search of the
    whole path, and one that fails (a package probing for an optional one) is not remembered,
    so it is paid again on every prompt."""
    assert _looked_up(tmp_path, early=3) == []


def test_a_first_prompt_after_loading_ahead_looks_up_no_module(tmp_path: Path) -> None:
    """What the first prompt needs is loaded ahead once a session is open (server/warm.py):
    a prompt the user typed meanwhile imports nothing."""
    assert _looked_up(tmp_path, early=0) == []


def _looked_up(tmp_path: Path, early: int) -> list[str]:
    """The modules looked up by three prompts sent once the prompt path is loaded ahead, after
    `early` prompts sent before."""
    log = tmp_path / "imports"
    env = {
        "PATH": "/usr/bin:/bin",
        "REASONIX_ACP_DATA_DIR": str(tmp_path / "d"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp_path),
        "REASONIX_ACP_SANDBOX": "off",
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_MODEL": "m1",
        "REASONIX_ACP_LOG_LEVEL": "debug",
    }
    with Server() as server:
        server.keep_alive = True
        server.behaviours.extend(["ok"] * 6)
        agent = subprocess.Popen(
            [sys.executable, "-c", COUNTING, str(log)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**env, "OPENAI_BASE_URL": server.url},
        )
        assert agent.stdin is not None and agent.stdout is not None and agent.stderr is not None
        loaded = threading.Event()

        def watch(stream: Any) -> None:
            for raw in stream:
                if b"the prompt path is loaded" in raw:
                    loaded.set()

        threading.Thread(target=watch, args=(agent.stderr,), daemon=True).start()
        ids = itertools.count(1)

        def call(method: str, params: dict[str, object]) -> dict[str, object]:
            request_id = next(ids)
            frame = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            agent.stdin.write((json.dumps(frame) + "\n").encode())  # type: ignore[union-attr]
            agent.stdin.flush()  # type: ignore[union-attr]
            for line in agent.stdout:  # type: ignore[union-attr]
                answer: dict[str, object] = json.loads(line)
                if answer.get("id") == request_id:
                    assert "result" in answer, answer
                    return answer
            raise AssertionError(f"{method}: no answer")

        call("initialize", {"protocolVersion": 1})
        new = call("session/new", {"cwd": str(tmp_path), "mcpServers": []})
        sid = new["result"]["sessionId"]  # type: ignore[index]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        for _ in range(early):
            call("session/prompt", prompt)
        # A text prompt does not wait for what loads ahead (server/warm.py): wait for it here.
        assert loaded.wait(30), "the prompt path was never loaded ahead"
        later = time.time()
        for _ in range(3):
            call("session/prompt", prompt)
        agent.stdin.close()
        assert agent.wait(30) == 0
    seen = [line.split(" ", 1) for line in log.read_text().splitlines()]
    assert len(seen) > 50, "the audit hook saw no imports"
    return sorted({name for when, name in seen if float(when) >= later})


def _opened(
    tmp_path: Path, until: str, model: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], list[str]]:
    """An `acp -X importtime` after initialize and session/new, its stderr read up to the debug
    line holding `until`: (the process, the lines read). Offline, or on the OpenAI-compatible
    endpoint `model` names (its environment variables)."""
    offline = [] if model else ["--model", "offline"]
    agent = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "reasonix_acp", *offline],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={
            "PATH": "/usr/bin:/bin",
            **PLACES["home"](tmp_path),
            "REASONIX_ACP_LOG_LEVEL": "debug",
            **(model or {}),
        },
    )
    assert agent.stdin is not None and agent.stderr is not None
    new = {"cwd": str(tmp_path), "mcpServers": []}
    for i, method, params in ((1, "initialize", {"protocolVersion": 1}), (2, "session/new", new)):
        frame = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
        agent.stdin.write((json.dumps(frame) + "\n").encode())
    agent.stdin.flush()
    seen: list[str] = []
    for raw in agent.stderr:
        seen.append(raw.decode("utf-8", "replace"))
        if until in seen[-1]:
            break
    return agent, seen


def test_an_offline_sessions_prompt_path_loads_no_network_library(tmp_path: Path) -> None:
    """Every session is offered web_fetch (and, with a key, web_search), but httpx and its
    address guard load with the first fetch or search, not with the tools' schemas: an
    offline session's prompt path, loaded ahead, has none of them."""
    agent, seen = _opened(tmp_path, "the prompt path is loaded")
    assert agent.stdin is not None
    agent.stdin.close()
    agent.wait(30)
    loaded = modules("".join(seen))
    assert "reasonix_acp.tools.web_fetch" in loaded  # the tools are there
    assert not {"httpx", "httpcore", "reasonix_acp.tools.web_guard"} & loaded


def test_an_endpoints_prompt_path_loads_httpx_without_its_command_line(tmp_path: Path) -> None:
    """httpx's package loads its command line (click, pygments, rich) when click is installed,
    as it is beside the mcp SDK; the agent never runs it, so it stands in for that module
    (reasonix_acp/__init__.py) and the prompt path of a session on an HTTP endpoint loads
    httpx without click."""
    assert importlib.util.find_spec("click") is not None, "click is not installed here"
    with Server() as server:
        endpoint = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m1"}
        agent, seen = _opened(tmp_path, "the prompt path is loaded", endpoint)
        assert agent.stdin is not None
        agent.stdin.close()
        agent.wait(30)
    loaded = modules("".join(seen))
    assert "httpx" in loaded and not {"click", "pygments", "rich"} & loaded


def test_a_process_that_leaves_soon_after_its_session_opens_never_loads_pydantic(
    tmp_path: Path,
) -> None:
    """What only some prompts need (pydantic, the prompt's models) loads ahead after a pause
    (server/warm.py MODELS_AFTER): a client that opens a session and leaves a second after it
    (a probe, `acpx exec` after its text prompt) does not pay for it."""
    agent, seen = _opened(tmp_path, "loading the prompt path ahead")
    assert agent.stdin is not None and agent.stderr is not None
    time.sleep(1.0)  # the turn's modules load meanwhile; the models wait
    agent.stdin.close()
    seen.append(agent.stderr.read().decode("utf-8", "replace"))
    assert agent.wait(30) == 0
    loaded = modules("".join(seen))
    # (a module imported by name, as the thread does, is not itself listed: what it imports is)
    assert "reasonix_acp.command_proof.command_line" in loaded  # the turn's modules loaded
    assert not [m for m in loaded if m.startswith(("pydantic", "reasonix_acp.generated.models"))]
