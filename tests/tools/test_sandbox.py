"""Commands in bubblewrap, through a real `acp`: escapes refused, denied paths hidden, the
network off unless configured, the sandbox standing in for the permission question under
workspace-write, the one offer to run outside it, cancel killing the sandboxed tree, plugin
commands confined the same way, and the status saying what is enforced.

These tests need a working `bwrap`; where there is none they are skipped with the probe's
reason, unless REASONIX_ACP_REQUIRE_SANDBOX is set (CI sets it), where they fail instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.sandbox import Engine, probe
from reasonix_acp.tools.shell import BASH_FLAGS
from tests.client import Client
from tests.tools.driver import agent, bash, prompt, send_prompt
from tests.transcript import acp_command

SANDBOX_ON = {"REASONIX_ACP_SANDBOX": "auto"}


@functools.cache
def _engine() -> Engine:
    return probe()


@pytest.fixture
def bwrap() -> Engine:
    found = _engine()
    if not found.available:
        if os.environ.get("REASONIX_ACP_REQUIRE_SANDBOX"):
            pytest.fail(f"REASONIX_ACP_REQUIRE_SANDBOX is set, and: {found.problem}")
        pytest.skip(f"no working bubblewrap here: {found.problem}")
    return found


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace and outside /tmp (which is private in the sandbox)."""
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path.home()
    path = base / f"reasonix-sandbox-{uuid.uuid4().hex}"
    path.mkdir()
    yield path
    for child in sorted(path.rglob("*"), reverse=True):
        child.unlink() if not child.is_dir() or child.is_symlink() else child.rmdir()
    path.rmdir()


def text_of(update: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in update.get("content") or [] if c["type"] == "content"
    )


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def start(c: Client) -> tuple[str, Path]:
    return c.start(), Path(c.scenario.vars["CWD"])


def status(c: Client, sid: str) -> dict[str, Any]:
    result: dict[str, Any] = c.result("_reasonix.io/session/status", {"sessionId": sid})
    return dict(result.get("status", result))


def test_escapes_are_refused_without_a_question(
    tmp_path: Path, bwrap: Engine, outside: Path
) -> None:
    link_target = outside / "via-link"
    link_target.mkdir()
    attempts = [
        f"echo x > {outside}/absolute.txt",
        f"cd {outside}/.. && echo x > {outside.name}/dotdot.txt",
        "echo x > link/through-link.txt",
        f"echo x > /proc/self/root{outside}/proc-self.txt",
        f"echo x > /proc/1/root{outside}/proc-1.txt",
        f"mkdir -p m && mount -t tmpfs none m && echo x > m/f && cp m/f {outside}/mounted.txt",
        f"mount -o remount,rw / && echo x > {outside}/remounted.txt",
        "echo inside > kept.txt",
    ]
    c = agent(tmp_path, [bash(a) for a in attempts], env=SANDBOX_ON)
    sid, cwd = start(c)
    (cwd / "link").symlink_to(link_target)
    asked_all: list[dict[str, Any]] = []
    finals: list[dict[str, Any]] = []
    for _ in attempts:
        asked, done = prompt(c, sid, reject)
        asked_all += asked
        finals += done
    # No permission question for running a command; only offers to run outside the sandbox.
    assert all("sandboxBlocked" in q["toolCall"]["rawInput"] for q in asked_all), asked_all
    assert [u["status"] for u in finals] == ["failed"] * 7 + ["completed"]
    assert sorted(p.name for p in outside.rglob("*")) == ["via-link"]
    assert (cwd / "kept.txt").read_text() == "inside\n"
    assert c.close() == 0


def test_a_denied_path_is_hidden_from_a_command(
    tmp_path: Path, bwrap: Engine, outside: Path
) -> None:
    (outside / "key.txt").write_text("TOPSECRET outside\n")
    # The path hides in a command substitution: the gate cannot check the line against
    # deny_paths, so it asks; allowed, only the sandbox can keep the file from `cat`.
    attempts = [f"cat $(echo {outside})/key.txt", "cat $(echo private)/key.txt", "ls private"]
    config = f'[permissions]\ndeny_paths = ["{outside}/**", "{tmp_path}/ws/private/**"]\n'
    c = agent(tmp_path, [bash(a) for a in attempts], config, env=SANDBOX_ON)
    sid, cwd = start(c)
    (cwd / "private").mkdir()
    (cwd / "private" / "key.txt").write_text("TOPSECRET inside\n")
    finals = []
    for attempt in attempts:
        asked, done = prompt(c, sid, lambda params: "allow_once")
        # an unprovable line is asked, naming the rule it could not be checked against; a
        # denied path is never a reason to offer a run outside
        reasons = [q["toolCall"]["rawInput"].get("unprovable", "") for q in asked]
        assert len(asked) == (0 if attempt == "ls private" else 1), asked
        assert all("cannot be checked against deny_paths" in r for r in reasons), reasons
        assert not any("sandboxBlocked" in q["toolCall"]["rawInput"] for q in asked)
        finals += done
    assert [u["status"] for u in finals] == ["failed", "failed", "failed"]
    assert not any("TOPSECRET" in text_of(u) for u in finals)
    assert c.close() == 0


def test_a_deny_pattern_no_mount_can_hide_keeps_the_question(tmp_path: Path, bwrap: Engine) -> None:
    c = agent(
        tmp_path, [bash("echo hi")], '[permissions]\ndeny_paths = ["*/.env"]\n', env=SANDBOX_ON
    )
    sid, _ = start(c)
    asked, [done] = prompt(c, sid, lambda q: "allow_once")
    assert len(asked) == 1 and "sandboxBlocked" not in asked[0]["toolCall"]["rawInput"]
    assert done["status"] == "completed"  # and it still runs in the sandbox
    assert status(c, sid)["sandbox"]["mode"] == "enforce"
    assert c.close() == 0


class _Listener(threading.Thread):
    """Accepts connections on a listening socket, answers each with `reply`, counts them."""

    def __init__(self, sock: socket.socket, reply: bytes = b"") -> None:
        super().__init__(daemon=True)
        self.sock, self.reply = sock, reply
        self.hits = 0

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            with conn:
                conn.sendall(self.reply)


class _Pong(_Listener):
    """A TCP server on 127.0.0.1 answering "pong" to every connection."""

    def __init__(self) -> None:
        super().__init__(socket.create_server(("127.0.0.1", 0)), b"pong\n")
        self.port = self.sock.getsockname()[1]


def _connect(port: int) -> str:
    code = (
        f"import socket; print(socket.create_connection(('127.0.0.1', {port}), 2).recv(9).decode())"
    )
    return f'{sys.executable} -c "{code}"'


@pytest.mark.parametrize("network", [False, True])
def test_the_network_is_off_unless_configured(tmp_path: Path, bwrap: Engine, network: bool) -> None:
    server = _Pong()
    server.start()
    config = "[sandbox]\nnetwork = true\n" if network else ""
    c = agent(tmp_path, [bash(_connect(server.port))], config, env=SANDBOX_ON)
    sid, _ = start(c)
    asked, [done] = prompt(c, sid, reject)
    if network:
        assert asked == [] and done["status"] == "completed" and "pong" in text_of(done)
        assert server.hits == 1
    else:
        # Refused: the one offer to run it outside says why, and the rejection stands.
        [offer] = asked
        assert "network is off" in offer["toolCall"]["rawInput"]["sandboxBlocked"]
        assert done["status"] == "failed" and server.hits == 0
    assert status(c, sid)["sandbox"]["networkEnabled"] is network
    server.sock.close()
    assert c.close() == 0


def test_the_offer_to_run_outside_comes_once_and_respects_the_answer(
    tmp_path: Path, bwrap: Engine, outside: Path
) -> None:
    target = outside / "out.txt"
    c = agent(tmp_path, [bash(f"echo ran >> {target}")] * 4, env=SANDBOX_ON)
    sid, _ = start(c)
    answers = iter(["reject_once", "allow_once", "reject_always"])
    seen: list[list[dict[str, Any]]] = []
    statuses = []
    for _ in range(4):
        asked, [done] = prompt(c, sid, lambda q: next(answers))
        seen.append(asked)
        statuses.append(done["status"])
    assert [len(a) for a in seen] == [1, 1, 1, 0]  # once per call; never after "do not offer"
    assert statuses == ["failed", "completed", "failed", "failed"]
    assert target.read_text() == "ran\n"  # only the run the user allowed outside
    offer = seen[0][0]
    assert [o["optionId"] for o in offer["options"]] == [
        "allow_once",
        "reject_once",
        "reject_always",
    ]
    assert "Read-only file system" in offer["toolCall"]["rawInput"]["sandboxBlocked"]
    assert c.close() == 0


def _marked(mark: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if mark.encode() in cmdline:
                found.append(int(entry))
    return found


def test_cancel_kills_the_sandboxed_process_tree(tmp_path: Path, bwrap: Engine) -> None:
    mark = str(4_000_000 + os.getpid() % 1_000_000)
    command = f"trap '' TERM; sleep {mark} & (trap '' TERM; sleep {mark}) & sleep {mark}; wait"
    c = agent(tmp_path, [bash(command)], env=SANDBOX_ON)
    sid, _ = start(c)
    rid = send_prompt(c, sid)
    deadline = time.monotonic() + 10
    while len(_marked(f"sleep\0{mark}")) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = _marked(f"sleep\0{mark}")
    assert len(pids) == 3, pids
    c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    while (frame := c.agent.receive()).get("id") != rid or "method" in frame:
        assert frame.get("method") != "session/request_permission", frame
    assert frame["result"] == {"stopReason": "cancelled"}
    deadline = time.monotonic() + 5
    while _marked(f"sleep\0{mark}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked(f"sleep\0{mark}") == []
    assert c.close() == 0


def test_a_plugin_command_runs_in_the_sandbox(tmp_path: Path, bwrap: Engine, outside: Path) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "plugin.toml").write_text(
        'id = "esc"\ndescription = "writes outside"\n'
        "[tools.write]\n"
        'description = "write"\n'
        f'command = ["sh", "-c", "echo x > {outside}/plugin.txt; echo x > here.txt; echo wrote"]\n'
        'parameters = { type = "object", properties = {} }\n'
    )
    turn = {"steps": [{"tool_call": {"name": "esc__write", "arguments": {}}}]}
    c = agent(tmp_path, [turn], f'[plugins]\npaths = ["{plugin}"]\n', env=SANDBOX_ON)
    sid, cwd = start(c)
    asked, [done] = prompt(c, sid, lambda q: "allow_once")
    assert done["status"] == "completed" and "wrote" in text_of(done)
    assert len(asked) == 1  # the plugin call's own question; no offer for a plugin command
    assert not (outside / "plugin.txt").exists()
    assert (cwd / "here.txt").read_text() == "x\n"
    assert c.close() == 0


def test_the_status_says_what_is_enforced(tmp_path: Path, bwrap: Engine) -> None:
    c = agent(tmp_path, [], env=SANDBOX_ON)
    sid, cwd = start(c)
    sandbox = status(c, sid)["sandbox"]
    temp = sandbox["writeRoots"][-1]
    assert sandbox == {
        "mode": "enforce",
        "engine": "bubblewrap",
        "available": True,
        "workspaceRoot": str(cwd),
        "writeRoots": [os.path.realpath(cwd), temp],
        "networkEnabled": False,
    }
    assert temp.endswith(sid)
    for preset, mode, roots in [
        ("read-only", "enforce", [temp]),
        ("danger-full-access", "off", [str(cwd)]),
    ]:
        c.result(
            "session/set_config_option",
            {"sessionId": sid, "configId": "tool_approval", "value": preset},
        )
        sandbox = status(c, sid)["sandbox"]
        assert (sandbox["mode"], sandbox["writeRoots"]) == (mode, roots)
        assert sandbox["engine"] == "bubblewrap" and sandbox["available"] is True
    assert c.close() == 0


def _path_with(tmp_path: Path, fake_bwrap: str | None) -> str:
    """A PATH whose first directory has `bwrap` as given (None: a PATH with no bwrap at all)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if fake_bwrap is None:
        return str(bin_dir)
    (bin_dir / "bwrap").write_text(fake_bwrap)
    (bin_dir / "bwrap").chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


@pytest.mark.parametrize(
    ("fake", "problem"),
    [
        (None, "bwrap (bubblewrap) is not installed"),
        (
            "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
            "bwrap does not work here: bwrap: No permissions to create new namespace",
        ),
    ],
    ids=["missing", "broken"],
)
def test_without_a_working_engine_commands_ask_and_the_session_is_told_once(
    tmp_path: Path, fake: str | None, problem: str
) -> None:
    env = {**SANDBOX_ON, "PATH": _path_with(tmp_path, fake)}
    c = agent(tmp_path, [bash("echo one"), bash("echo two")], env=env)
    sid, _ = start(c)
    warnings = []
    for _ in range(2):
        asked, [done] = prompt(c, sid, lambda q: "allow_once")
        assert len(asked) == 1 and done["status"] == "completed"  # asked, as without a sandbox
        warnings += [
            n["params"]["update"]["content"]["text"]
            for n in c.take_notes()
            if n.get("method") == "session/update"
            and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            and "[warning]" in n["params"]["update"]["content"]["text"]
        ]
    assert warnings == [f"\n\n[warning] commands run without an OS sandbox: {problem}\n\n"]
    assert status(c, sid)["sandbox"] == {
        "mode": "off",
        "engine": "none",
        "available": False,
        "workspaceRoot": c.scenario.vars["CWD"],
        "writeRoots": [c.scenario.vars["CWD"]],
        "networkEnabled": True,
    }
    assert c.close() == 0


def test_enforce_mode_refuses_a_session_without_an_engine(tmp_path: Path) -> None:
    env = {"REASONIX_ACP_SANDBOX": "enforce", "PATH": _path_with(tmp_path, None)}
    c = agent(tmp_path, [], env=env)
    c.result("initialize", {"protocolVersion": 1})
    reply = c.call("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"] == (
        "session/new: effective bash sandbox unavailable: bwrap (bubblewrap) is not installed"
    )
    assert c.result("session/list", {})["sessions"] == []
    assert c.close() == 0


class _EditorTerminal:
    """The client side of terminal/*: runs what it is sent, as an editor would."""

    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []
        self.procs: dict[str, subprocess.CompletedProcess[bytes]] = {}

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "terminal/create":
            self.created.append(params)
            tid = f"t{len(self.created)}"
            self.procs[tid] = subprocess.run(
                [params["command"], *params["args"]],
                cwd=params["cwd"],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=30,
            )
            return {"terminalId": tid}
        done = self.procs[params["terminalId"]]
        if method == "terminal/wait_for_exit":
            return {"exitCode": done.returncode}
        if method == "terminal/output":
            text = done.stdout.decode()
            return {"output": text, "truncated": False, "exitStatus": {"exitCode": done.returncode}}
        return {}


def test_in_the_editors_terminal_the_command_runs_in_bwrap(
    tmp_path: Path, bwrap: Engine, outside: Path
) -> None:
    commands = [f"echo x > {outside}/t.txt", "echo ok > inside.txt"]
    c = agent(tmp_path, [bash(x) for x in commands], env=SANDBOX_ON)
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": {"terminal": True}})
    sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["sessionId"]
    editor = _EditorTerminal()
    statuses, offers = [], []
    for _ in commands:
        rid = send_prompt(c, sid)
        while True:
            frame = c.agent.receive()
            method = frame.get("method", "")
            if not method and frame.get("id") == rid:
                break
            if method.startswith("terminal/"):
                c.send(
                    {
                        "jsonrpc": "2.0",
                        "id": frame["id"],
                        "result": editor.answer(method, frame["params"]),
                    }
                )
            elif method == "session/request_permission":
                offers.append(frame["params"])
                reply = {"outcome": {"outcome": "selected", "optionId": "reject_once"}}
                c.send({"jsonrpc": "2.0", "id": frame["id"], "result": reply})
            elif method == "session/update":
                update = frame["params"]["update"]
                if update.get("status") in ("completed", "failed"):
                    statuses.append(update["status"])
    assert statuses == ["failed", "completed"]
    assert len(offers) == 1 and "sandboxBlocked" in offers[0]["toolCall"]["rawInput"]
    assert not (outside / "t.txt").exists()
    assert (Path(c.scenario.vars["CWD"]) / "inside.txt").read_text() == "ok\n"
    for sent, command in zip(editor.created, commands, strict=True):
        assert sent["command"] == bwrap.path
        assert sent["args"][-6:] == ["/bin/bash", *BASH_FLAGS, "-c", command]
        assert "--chdir" in sent["args"] and "--die-with-parent" in sent["args"]
    assert c.close() == 0


def test_ordinary_build_and_test_commands_run_without_a_question(
    tmp_path: Path, bwrap: Engine
) -> None:
    commands = ["make", f"{sys.executable} -m pytest -q -p no:cacheprovider test_sample.py"]
    if shutil.which("npm"):
        commands.append("npm test")
    c = agent(tmp_path, [bash(x) for x in commands], env=SANDBOX_ON)
    sid, cwd = start(c)
    (cwd / "Makefile").write_text("all:\n\techo built > out.txt\n")
    (cwd / "test_sample.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    (cwd / "package.json").write_text(
        '{"name": "sample", "version": "1.0.0", "scripts": {"test": "node -e \\"console.log(41 + 1)\\""}}'
    )
    for command in commands:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [] and done["status"] == "completed", (command, text_of(done))
    assert (cwd / "out.txt").read_text() == "built\n"
    assert c.close() == 0


def test_slash_status_says_what_confines_commands(tmp_path: Path, bwrap: Engine) -> None:
    c = agent(tmp_path, [], env=SANDBOX_ON)
    sid, cwd = start(c)
    reply = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/status"}]}
    )
    assert reply["result"] == {"stopReason": "end_turn"}
    said = "".join(
        n["params"]["update"]["content"]["text"]
        for n in c.take_notes()
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    temp = status(c, sid)["sandbox"]["writeRoots"][-1]
    assert (
        f"commands in a bubblewrap sandbox (writable: {os.path.realpath(cwd)}, {temp}; network off)"
        "; no goal; " in said
    )
    assert c.close() == 0


@pytest.mark.parametrize(("mode", "code", "mark"), [("auto", 0, "  "), ("enforce", 1, "! ")])
def test_doctor_names_the_missing_engine(tmp_path: Path, mode: str, code: int, mark: str) -> None:
    env = {
        **os.environ,
        "REASONIX_ACP_SANDBOX": mode,
        "PATH": _path_with(tmp_path, None),
        "REASONIX_ACP_CONFIG_DIR": str(tmp_path / "config"),
        "REASONIX_ACP_DATA_DIR": str(tmp_path / "data"),
        "ACP_MODEL": "offline",
    }
    done = subprocess.run(
        [*acp_command(), "doctor"], capture_output=True, text=True, env=env, timeout=60
    )
    line = "command sandbox: none (bwrap (bubblewrap) is not installed); commands are asked instead"
    assert f"\n{mark}{line}\n" in done.stdout
    assert done.returncode == code, done.stdout


def _unix_listener(path: str) -> _Listener:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(path)
    sock.listen()
    return _Listener(sock)


def test_a_service_socket_under_run_is_out_of_reach(tmp_path: Path, bwrap: Engine) -> None:
    path = f"/run/reasonix-sandbox-{uuid.uuid4().hex[:12]}.sock"
    listener = _unix_listener(path)
    listener.start()
    code = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({path!r}); print('in')"
    c = agent(tmp_path, [bash(f'{sys.executable} -c "{code}"')], env=SANDBOX_ON)
    sid, _ = start(c)
    _, [done] = prompt(c, sid, reject)
    assert done["status"] == "failed" and listener.hits == 0
    listener.sock.close()
    os.unlink(path)
    assert c.close() == 0


def test_the_agents_keys_stay_out_of_a_commands_reach_and_output(
    tmp_path: Path, bwrap: Engine
) -> None:
    secret = "sk-sandbox-SECRET-4242"
    config = (
        'default_model = "corp/m"\n[providers.corp]\nkind = "openai"\n'
        f'base_url = "http://127.0.0.1:9/v1"\napi_key = "{secret}"\nmodels = ["m"]\n'
    )
    # The offline model still drives the turn; the config only has to hold the key.
    commands = ['cat "$REASONIX_ACP_CONFIG_DIR/config.toml"', f"echo before {secret} after"]
    c = agent(tmp_path, [bash(x) for x in commands], config, env=SANDBOX_ON)
    sid, _ = start(c)
    finals = []
    for _ in commands:
        _, done = prompt(c, sid, reject)
        finals += done
    assert finals[0]["status"] == "failed" and secret not in text_of(finals[0])
    assert text_of(finals[1]) == "before [redacted] after\n"
    assert c.close() == 0


def test_binary_output_of_a_failed_command_fails_the_call_not_the_turn(
    tmp_path: Path, bwrap: Engine
) -> None:
    c = agent(tmp_path, [bash(f"head -c 3000 {sys.executable}; exit 1")], env=SANDBOX_ON)
    sid, _ = start(c)
    _, [done] = prompt(c, sid, reject)  # prompt() asserts the turn ended with end_turn
    assert done["status"] == "failed"
    assert c.close() == 0
