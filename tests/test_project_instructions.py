"""AGENTS.md files in the system prompt, through a real `acp` against the local OpenAI-compatible
server: which files, in which order, bounded, the same bytes from request to request, picked
up by a reload and a new session and never mid-turn; `/status` and `acp doctor` name them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from reasonix_acp.project.instructions import LIMIT, load
from tests.client import Client
from tests.sse_server import Server
from tests.transcript import Scenario, acp_command


def _repo(tmp: Path) -> tuple[Path, Path]:
    """A repository with instructions at its root and in the package the session works in."""
    repo = tmp / "ws"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / "AGENTS.md").write_text("Root rule: run `make check` before finishing.\n")
    package = repo / "pkg"
    package.mkdir()
    (package / "AGENTS.md").write_text("Package rule: keep functions short.\n")
    return repo, package


def _client(tmp: Path, server: Server, cwd: Path) -> tuple[Client, str]:
    scenario = Scenario(tmp)
    scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-instructions-1"})
    config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "AGENTS.md").write_text("User rule: answer in English.\n")
    c = Client(tmp, "--model", "openai/m1", scenario=scenario)
    return c, c.start(str(cwd))


def _prompt(c: Client, sid: str, text: str) -> dict[str, Any]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


def _system(body: bytes) -> str:
    message = json.loads(body)["messages"][0]
    assert message["role"] == "system"
    return str(message["content"])


def test_instructions_are_in_the_system_prompt_in_order_and_stay_the_same(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        assert _prompt(c, sid, "first")["result"] == {"stopReason": "end_turn"}
        # changed on disk between turns: not read until a reload (the prefix stays cached)
        (package / "AGENTS.md").write_text("Package rule: CHANGED.\n")
        assert _prompt(c, sid, "second")["result"] == {"stopReason": "end_turn"}
        c.result("_reasonix.io/session/reloadExtensions", {"sessionId": sid})
        assert _prompt(c, sid, "third")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    one, two, three = server.bodies
    system = _system(one)
    rules = [system.index(r) for r in ("User rule", "Root rule", "Package rule: keep")]
    assert rules == sorted(rules), "the user's first, then the project's from its root down"
    assert f"## {repo / 'AGENTS.md'}" in system and f"## {package / 'AGENTS.md'}" in system
    assert two.startswith(one[: one.rindex(b"]}")]), "turn two starts with the bytes of turn one"
    assert "Package rule: CHANGED." in _system(three) and "keep functions short" not in _system(
        three
    )


def test_a_file_over_the_limit_is_cut_and_the_cut_is_said(tmp_path: Path) -> None:
    repo, package = _repo(tmp_path)
    (repo / "AGENTS.md").write_text("x" * (LIMIT + 500))
    found = load(str(package), [], None)
    assert [(f.size, f.used) for f in found.files] == [(LIMIT + 500, LIMIT), (36, 0)]
    assert f"[cut: {LIMIT} of {LIMIT + 500} bytes of this file" in found.text
    assert "not loaded: over the" in found.describe()
    assert len(found.text.encode()) < LIMIT + 1024


def test_outside_a_repository_only_the_cwd_counts_and_fifos_and_links_are_safe(
    tmp_path: Path,
) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (outer / "AGENTS.md").write_text("outer\n")
    os.mkfifo(inner / "AGENTS.md")  # never blocks the session
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "AGENTS.md").symlink_to(outer / "AGENTS.md")
    found = load(str(inner), [str(extra), str(outer)], None)
    assert [f.path for f in found.files] == [str(extra / "AGENTS.md")]  # the link, read once


def test_status_and_doctor_name_the_files(tmp_path: Path) -> None:
    _, package = _repo(tmp_path)
    with Server() as server:
        c, sid = _client(tmp_path, server, package)
        reply = _prompt(c, sid, "/status")
        assert reply["result"] == {"stopReason": "end_turn"}
        text = "".join(
            n["params"]["update"]["content"]["text"]
            for n in c.notes
            if n.get("method") == "session/update"
            and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        )
        assert "project instructions: " in text and f"{package / 'AGENTS.md'} (36 bytes)" in text
        assert c.close() == 0
    scenario = c.scenario
    doctor = subprocess.run(
        [*acp_command(), "doctor"],
        cwd=package,
        env={**os.environ, **scenario.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"in {package}: project instructions: " in doctor.stdout
    assert f"{scenario.env['REASONIX_ACP_CONFIG_DIR']}/AGENTS.md (30 bytes)" in doctor.stdout
