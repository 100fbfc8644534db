"""What a real `acp` imports to answer `initialize` and `session/new` (no MCP servers, offline
model) is pinned: a third-party package new on that path fails here by name. Heavy packages
that only some sessions need (the MCP SDK, httpx, tomlkit, jsonschema) must stay off it, and so
must pydantic: a plain `session/new` is decoded without it (protocol/light.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
LINE = re.compile(r"import time:\s+\d+ \|\s+\d+ \| \s*(\S+)")


def imported(stderr: str) -> set[str]:
    return {m.group(1).split(".")[0] for m in map(LINE.match, stderr.splitlines()) if m}


def test_initialize_and_session_new_import_only_the_pinned_packages(tmp_path: Path) -> None:
    new = {"cwd": str(tmp_path), "mcpServers": []}
    frames = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}) + "\n"
        for i, m, p in ((1, "initialize", {"protocolVersion": 1}), (2, "session/new", new))
    )
    env = {
        "REASONIX_ACP_DATA_DIR": str(tmp_path / "d"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp_path),
        "REASONIX_ACP_LOG_LEVEL": "debug",
    }
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
    unexpected = ours - ALLOWED
    if unexpected:
        pytest.fail(f"new packages on the initialize/session/new path: {sorted(unexpected)}")
