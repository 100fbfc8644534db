"""The built distribution works as users install it: built from what a clone holds (the
tracked files, nothing the repository ignores), the wheel alone in a fresh venv runs
`reasonix-acp` (what `uvx reasonix-acp` and `pipx run reasonix-acp` start) from another
directory, through the registry's launch and auth checks and an offline prompt, and its
`acp-conformance` judges with the pinned schemas it carries; the sdist carries what a packager
needs to run the suite."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from uv import find_uv_bin

from codegen.pin import load_pin

ROOT = Path(__file__).resolve().parents[1]


def clone_of(root: Path, into: Path) -> Path:
    """What a clone of `root` would hold with its work committed: the files git tracks or
    would track (none it ignores, such as a schema left by an earlier fetch), as they are now."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = root / name
        if source.is_file():  # a tracked file deleted in the work tree is not copied
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = clone_of(ROOT, tmp_path_factory.mktemp("clone"))
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel alone in a fresh venv, installed as `uvx` installs it (uv: a twentieth of
    pip's time here), its modules compiled as pip would."""
    venv = tmp_path_factory.mktemp("venv")
    wheel = next(dist.glob("*.whl"))
    uv = find_uv_bin()
    for step in (
        [uv, "venv", "-q", "--allow-existing", "--python", sys.executable, str(venv)],
        [
            uv,
            "pip",
            "install",
            "-q",
            "--compile-bytecode",
            "--python",
            str(venv / "bin" / "python"),
            str(wheel),
        ],
    ):
        subprocess.run(step, check=True, capture_output=True, timeout=600)
    return venv


def exchange(command: list[str], frames: list[dict[str, Any]], cwd: Path) -> list[dict[str, Any]]:
    """Send each request and read until its answer; then end the input and expect exit 0."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(cwd),
        "REASONIX_ACP_DATA_DIR": str(cwd / "data"),
        "REASONIX_ACP_CONFIG_DIR": str(cwd / "config"),
    }
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    received = []
    try:
        for frame in frames:
            proc.stdin.write(json.dumps(frame).encode() + b"\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                assert line, proc.stderr.read() if proc.stderr else b""
                received.append(json.loads(line))
                if received[-1].get("id") == frame["id"] and "method" not in received[-1]:
                    break
        proc.stdin.close()
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
    return received


def test_the_sdist_carries_the_suite(dist: Path) -> None:
    sdist = next(dist.glob("*.tar.gz"))
    with tarfile.open(sdist) as tar:
        names = {"/".join(n.split("/")[1:3]) for n in tar.getnames()}
    for needed in ("LICENSE", "noxfile.py", "codegen/__main__.py", "tests/test_golden.py"):
        assert needed in names or any(n.startswith(needed) for n in names), needed


def test_the_wheel_and_the_sdist_carry_the_pinned_schemas_and_the_demo(dist: Path) -> None:
    pin = load_pin()
    assert pin.unstable is not None
    pinned = {
        "acp_conformance/upstream_schema.json": pin.sha256,
        "acp_conformance/upstream_unstable_schema.json": pin.unstable.sha256,
    }
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        names = set(wheel.namelist())
        for name, sha256 in pinned.items():
            assert sha256_of_bytes(wheel.read(name)) == sha256, name
        vendor = {n for n in names if n.startswith("acp_conformance/vendor_schema/")}
        assert {Path(n).name for n in vendor} >= {
            p.name for p in (ROOT / "schema" / "vendor").glob("*.json")
        }
    for needed in ("reasonix_acp/cli/demo_script.jsonl", "acp_conformance/mcp_server.py"):
        assert needed in names, needed
    with tarfile.open(next(dist.glob("*.tar.gz"))) as tar:
        members = {"/".join(n.split("/")[1:]): n for n in tar.getnames()}
        for name, sha256 in pinned.items():
            extracted = tar.extractfile(members[f"src/{name}"])
            assert extracted is not None and sha256_of_bytes(extracted.read()) == sha256, name


def sha256_of_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_wheel_alone_runs_reasonix_acp_elsewhere(installed: Path, tmp_path: Path) -> None:
    command = [str(installed / "bin" / "reasonix-acp"), "--model", "offline"]
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    new = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/new",
        "params": {"cwd": str(tmp_path), "mcpServers": []},
    }
    frames = exchange(command, [init, new], tmp_path)
    answer = next(f for f in frames if f.get("id") == 1)["result"]
    assert answer["protocolVersion"] == 1
    sid = next(f for f in frames if f.get("id") == 2)["result"]["sessionId"]
    prompt = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "session/prompt",
        "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]},
    }
    load = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/resume",
        "params": {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []},
    }
    frames = exchange(command, [init, load, prompt], tmp_path)
    assert next(f for f in frames if f.get("id") == 3)["result"] == {"stopReason": "end_turn"}
    assert (installed / "bin" / "acp").exists()


def test_the_registry_launch_and_auth_checks(installed: Path, tmp_path: Path) -> None:
    """As the registry verifies an entry: started with an empty stdin it exits cleanly (or keeps
    running); its `initialize` answers protocol version 1 with an auth method of type agent or
    terminal (a missing type read from `_meta`), for a client announcing terminal auth."""
    command = [str(installed / "bin" / "reasonix-acp")]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TERM": "dumb"}
    launched = subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, cwd=tmp_path, env=env, timeout=10
    )
    assert launched.returncode == 0 and launched.stdout == b""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": 1,
            "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
            "clientCapabilities": {
                "terminal": True,
                "fs": {"readTextFile": True, "writeTextFile": True},
                "_meta": {"terminal_output": True, "terminal-auth": True},
            },
        },
    }
    [answer] = exchange(command, [init], tmp_path)
    result = answer["result"]
    assert result["protocolVersion"] == 1
    kinds = []
    for method in result["authMethods"]:
        meta = method.get("_meta") or {}
        kind = method.get("type") or ("terminal" if "terminal-auth" in meta else "agent")
        kinds.append(kind)
        assert method["id"] and method["name"]
    assert "terminal" in kinds
    terminal = result["authMethods"][0]["_meta"]["terminal-auth"]
    setup = subprocess.run(
        [
            terminal["command"],
            *terminal["args"],
            "--provider",
            "ollama",
            "--model",
            "m",
            "--no-check",
        ],
        capture_output=True,
        env={**env, "REASONIX_ACP_CONFIG_DIR": str(tmp_path / "config")},
        timeout=30,
    )
    assert setup.returncode == 0, setup.stderr


# A scenario for each part of the package it could lose: the schemas (stable, unstable, vendor),
# a prompt with a tool call through the scripted model, a fork and a load from the store, the
# vendor status, and the MCP server the elicitation scenarios hand to the agent.
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


def test_the_wheel_ships_acp_conformance_with_its_schemas(installed: Path, tmp_path: Path) -> None:
    """From an empty directory, the wheel's `acp demo` plays its session and its
    `acp-conformance` passes every check of PACKAGE_SCENARIOS against its `acp`."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    demo = subprocess.run(
        [str(installed / "bin" / "acp"), "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**env, "REASONIX_ACP_DATA_DIR": str(tmp_path / "demo")},
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    runner = str(installed / "bin" / "acp-conformance")
    listed = subprocess.run([runner, "--list"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and "core.initialize.v1" in listed.stdout
    agent = f"{installed / 'bin' / 'acp'} --data-dir {{tmp}}/data"
    scripted = [a for k, v in SCRIPTED_MODEL.items() for a in ("--env", f"{k}={v}")]
    done = subprocess.run(
        [runner, "--agent", agent, *scripted, "--only", *PACKAGE_SCENARIOS, "--timeout", "30"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every check judged and passed: the schemas (vendor, unstable) and the MCP server are shipped.
    assert re.search(r"checks: \d+ pass, 0 fail, 0 warn, 0 skip", done.stdout), done.stdout
