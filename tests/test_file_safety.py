"""Files the agent reads on its own, through a real `acp`: project files (AGENTS.md, skills,
command files) are read only from inside the project and workspace (user ones from the config
directory), never from /proc or /dev, and what they give the system prompt has remembered
secrets redacted; a FIFO (or any file that is not regular) never blocks the agent, whether it
is linked in a prompt, is an AGENTS.md, a command file or config.toml."""

from __future__ import annotations

import json
import os
import queue
import subprocess
from pathlib import Path
from typing import Any

from reasonix_acp.project.reading import read
from tests.client import STATUS_OPT_IN, Client
from tests.sse_server import Server
from tests.transcript import Scenario, acp_command

SECRET = "FAKE-PRIVATE-KEY-LINE-7d1e"
KEY = "sk-containment-key-1"
QUICK = 10.0  # seconds an answer may take here: anything slower is a hang


def _call(c: Client, method: str, params: dict[str, Any], seconds: float = QUICK) -> Any:
    """The response to a request, or an AssertionError when none comes within `seconds`."""
    c._id += 1
    request_id = c._id
    c.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    while True:
        try:
            line = c.agent.lines.get(timeout=seconds)
        except queue.Empty:
            raise AssertionError(
                f"{method}: no answer within {seconds}s (the agent hangs)"
            ) from None
        assert line is not None, c.agent.stderr
        frame = json.loads(line)
        if frame.get("id") == request_id and "method" not in frame:
            return frame
        c.notes.append(frame)


def _said(c: Client) -> str:
    return "".join(
        n["params"]["update"]["content"]["text"]
        for n in c.take_notes()
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )


def _system(body: bytes) -> str:
    message = json.loads(body)["messages"][0]
    assert message["role"] == "system"
    return str(message["content"])


def _prompt(c: Client, sid: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    frame: dict[str, Any] = _call(c, "session/prompt", {"sessionId": sid, "prompt": list(blocks)})
    return frame


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _leaky_repo(tmp: Path, config: Path) -> Path:
    """A repository whose project files link out of it (to a stand-in for ~/.ssh and to
    /proc), beside files linked within it; returns the cwd the session works in."""
    outside = tmp / "outside"
    (outside / "skill").mkdir(parents=True)
    (outside / "id_ed25519").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    (outside / "cmd.md").write_text(f"---\ndescription: {SECRET} command\n---\n{SECRET}\n")
    (outside / "skill" / "SKILL.md").write_text(f"---\nname: leak\ndescription: {SECRET}\n---\n")
    (outside / "user.md").write_text(f"user {SECRET}\n")
    repo = tmp / "ws"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / "docs").mkdir()
    (repo / "docs" / "rules.md").write_text(f"Inside rule: never print {KEY}.\n")
    (repo / "docs" / "ok.md").write_text("---\ndescription: an inside command\n---\nok body\n")
    (repo / "AGENTS.md").symlink_to(outside / "id_ed25519")
    sub = repo / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").symlink_to(Path("..") / "docs" / "rules.md")  # inside: read
    commands = repo / ".reasonix" / "commands"
    commands.mkdir(parents=True)
    (commands / "leak.md").symlink_to(outside / "cmd.md")
    (commands / "env.md").symlink_to("/proc/self/environ")
    (commands / "ok.md").symlink_to(repo / "docs" / "ok.md")
    skills = repo / ".reasonix" / "skills"
    skills.mkdir(parents=True)
    (skills / "leak").symlink_to(outside / "skill")
    fine = repo / ".agents" / "skills" / "fine"
    fine.mkdir(parents=True)
    (fine / "SKILL.md").write_text("---\nname: fine\ndescription: A fine inside skill\n---\n")
    config.mkdir(parents=True, exist_ok=True)
    (config / "AGENTS.md").symlink_to(outside / "user.md")
    return sub


def test_project_files_linked_out_of_the_workspace_are_refused_and_named(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    cwd = _leaky_repo(tmp_path, config)
    repo = cwd.parent
    with Server() as server:
        scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY})
        c = Client(tmp_path, "--model", "openai/m1", scenario=scenario)
        try:
            sid = c.start(str(cwd))
            assert _prompt(c, sid, _text("hello"))["result"] == {"stopReason": "end_turn"}
            offered = [
                command["name"]
                for n in c.take_notes()
                if n.get("method") == "session/update"
                and n["params"]["update"]["sessionUpdate"] == "available_commands_update"
                for command in n["params"]["update"]["availableCommands"]
            ]
            assert "ok" in offered and "leak" not in offered and "env" not in offered, offered
            assert _prompt(c, sid, _text("/status"))["result"] == {"stopReason": "end_turn"}
            status = _said(c)
            assert c.close() == 0
        finally:
            c.agent.proc.kill()
    body = server.bodies[0].decode()
    assert SECRET not in body and "BEGIN OPENSSH" not in body
    system = _system(server.bodies[0])
    assert "Inside rule: never print [redacted]." in system, "a link within the repo is read"
    assert KEY not in system, "remembered secrets are redacted from the project's text"
    assert "fine: A fine inside skill" in system
    for refused in (
        repo / "AGENTS.md",
        config / "AGENTS.md",
        repo / ".reasonix" / "commands" / "leak.md",
        repo / ".reasonix" / "commands" / "env.md",
        repo / ".reasonix" / "skills" / "leak" / "SKILL.md",
    ):
        assert str(refused) in status, (refused, status)
    assert "outside the project" in status and SECRET not in status
    assert f"{cwd / 'AGENTS.md'} (" in status
    doctor = subprocess.run(
        [*acp_command(), "doctor"],
        cwd=cwd,
        env={**os.environ, **scenario.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"{repo / 'AGENTS.md'}" in doctor.stdout and "outside the project" in doctor.stdout
    assert SECRET not in doctor.stdout


def test_links_within_the_workspace_and_its_additional_directories_are_read(
    tmp_path: Path,
) -> None:
    cwd = tmp_path / "ws"
    extra = tmp_path / "extra"
    for d in (cwd, extra):
        (d / ".reasonix" / "commands").mkdir(parents=True)
    (extra / "shared.md").write_text("Shared rule.\n")
    (extra / "cmd.md").write_text("from extra\n")
    (cwd / "AGENTS.md").symlink_to(extra / "shared.md")  # an additional directory: inside
    (cwd / ".reasonix" / "commands" / "x.md").symlink_to(extra / "cmd.md")
    project = read(str(cwd), [str(extra)], None, ())
    assert "Shared rule." in project.prompt()
    assert [c.name for c in project.commands.commands] == ["x"]
    assert "refused" not in project.describe()
    alone = read(str(cwd), [], None, ())  # without it, the same links leave the workspace
    assert "Shared rule." not in alone.prompt() and not alone.commands.commands
    assert f"{cwd / 'AGENTS.md'}" in alone.describe()


def _fifo_client(tmp: Path, server: Server) -> Client:
    scenario = Scenario(tmp)
    scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY})
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def test_a_fifo_linked_in_a_prompt_is_not_read_and_the_agent_stays_responsive(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "ws" / "fifo"
    with Server() as server:
        c = _fifo_client(tmp_path, server)
        os.mkfifo(fifo)
        try:
            sid = c.start()
            link = {"type": "resource_link", "uri": fifo.as_uri(), "name": "fifo"}
            reply = _prompt(c, sid, _text("read this"), link)
            assert reply.get("result") == {"stopReason": "end_turn"}, reply
            c.send(
                {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}
            )  # nothing to cancel: still taken
            again = _prompt(c, sid, _text("still there?"))
            assert again.get("result") == {"stopReason": "end_turn"}, again
            assert c.close() == 0
        finally:
            c.agent.proc.kill()
    user = json.loads(server.bodies[0])["messages"][-1]["content"]
    assert f"[linked file {fifo.as_uri()} is not a regular file; not read]" in user


def test_a_fifo_config_toml_is_refused_without_blocking(tmp_path: Path) -> None:
    with Server() as server:
        c = _fifo_client(tmp_path, server)
        config = Path(c.scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        os.mkfifo(config / "config.toml")
        try:
            init = _call(
                c, "initialize", {"protocolVersion": 1, "clientCapabilities": STATUS_OPT_IN}
            )
            assert "result" in init, init
            opened = _call(c, "session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
            message = opened["error"]["message"]
            assert f"{config / 'config.toml'}: not a regular file" in message, opened
            assert c.close() == 0
        finally:
            c.agent.proc.kill()


def test_fifos_among_the_project_files_do_not_block(tmp_path: Path) -> None:
    cwd = tmp_path / "ws"
    cwd.mkdir()
    os.mkfifo(cwd / "AGENTS.md")
    (cwd / ".reasonix" / "commands").mkdir(parents=True)
    os.mkfifo(cwd / ".reasonix" / "commands" / "pipe.md")
    skill = cwd / ".reasonix" / "skills" / "pipe"
    skill.mkdir(parents=True)
    os.mkfifo(skill / "SKILL.md")
    with Server() as server:
        c = _fifo_client(tmp_path, server)
        config = Path(c.scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        os.mkfifo(config / "AGENTS.md")
        try:
            init = _call(
                c, "initialize", {"protocolVersion": 1, "clientCapabilities": STATUS_OPT_IN}
            )
            assert "result" in init, init
            opened = _call(c, "session/new", {"cwd": str(cwd), "mcpServers": []})
            sid = opened["result"]["sessionId"]
            assert _prompt(c, sid, _text("hello"))["result"] == {"stopReason": "end_turn"}
            c.take_notes()
            assert _prompt(c, sid, _text("/status"))["result"] == {"stopReason": "end_turn"}
            status = _said(c)
            assert c.close() == 0
        finally:
            c.agent.proc.kill()
    for fifo in (
        cwd / "AGENTS.md",
        config / "AGENTS.md",
        cwd / ".reasonix" / "commands" / "pipe.md",
        skill / "SKILL.md",
    ):
        assert f"{fifo} (not a regular file: not read)" in status, (fifo, status)
