"""The sandbox's rules without running it: which deny patterns a mount can hide, the bwrap
arguments a command gets, what looks like the sandbox's doing, the settings and the gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_acp import config
from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.config.sandbox import SandboxSettings
from reasonix_acp.tools.sandbox import Engine, Sandbox, probe
from reasonix_acp.tools.sandbox_mounts import hide_target
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_verdict import Rules, judge_line

BWRAP = Engine("bubblewrap", "/usr/bin/bwrap", ("--unshare-all",))


def sandbox(
    tmp_path: Path,
    preset: str = "workspace-write",
    settings: SandboxSettings | None = None,
    deny: tuple[str, ...] = (),
    engine: Engine = BWRAP,
) -> Sandbox:
    (tmp_path / "ws").mkdir(exist_ok=True)
    workspace = Workspace(str(tmp_path / "ws"), temp=str(tmp_path / "temp"), deny=deny)
    return Sandbox(
        lambda: workspace, lambda: preset, lambda: settings or SandboxSettings(), lambda: engine
    )


@pytest.mark.parametrize(
    ("pattern", "target"),
    [
        ("/etc/shadow", "/etc/shadow"),
        ("/srv/keys/*", "/srv/keys"),
        ("/srv/keys/**", "/srv/keys"),
        ("/home/*/.ssh/**", None),  # fnmatch's `*` crosses `/`: no one directory holds it all
        ("*/.env", None),
        ("relative/**", None),
        ("/**", None),
        ("/srv/k?ys", None),
    ],
)
def test_which_patterns_a_mount_can_hide(pattern: str, target: str | None) -> None:
    assert hide_target(pattern) == target


def test_the_arguments_a_command_gets(tmp_path: Path) -> None:
    secret = tmp_path / "ws" / "secret"
    secret.mkdir(parents=True)
    (tmp_path / "key").write_text("k")
    box = sandbox(tmp_path, deny=(f"{secret}/**", str(tmp_path / "key"), "*/.env"))
    argv = box.argv(["/bin/sh", "-c", "make"], str(tmp_path / "ws"))
    ws, temp = str(tmp_path / "ws"), str(tmp_path / "temp")
    assert argv[:2] == ["/usr/bin/bwrap", "--unshare-all"]
    assert argv[argv.index("--") :] == ["--", "/bin/sh", "-c", "make"]
    assert "--share-net" not in argv
    joined = " ".join(argv)
    # Read-only root first, then the private /tmp, then the write roots, then what is hidden.
    order = [
        "--ro-bind / /",
        "--tmpfs /tmp",
        f"--bind {ws} {ws}",
        f"--bind {temp} {temp}",
        f"--perms 0000 --tmpfs {secret} --remount-ro {secret}",
        f"--ro-bind /dev/null {tmp_path / 'key'}",
        f"--chdir {ws} --",
    ]
    positions = [joined.index(part) for part in order]
    assert positions == sorted(positions)
    assert not box.whole()  # "*/.env" cannot be hidden by a mount
    assert sandbox(tmp_path, deny=(f"{secret}/**",)).whole()


def test_read_only_leaves_only_the_session_temp_writable(tmp_path: Path) -> None:
    box = sandbox(tmp_path, "read-only", SandboxSettings(write_roots=("/srv/cache",)))
    assert box.write_roots() == [str(tmp_path / "temp")]
    box = sandbox(tmp_path, settings=SandboxSettings(write_roots=("/srv/cache",), network=True))
    assert box.write_roots() == [str(tmp_path / "ws"), str(tmp_path / "temp"), "/srv/cache"]
    assert "--share-net" in box.argv(["true"], str(tmp_path / "ws"))


def test_full_access_and_off_run_commands_as_they_are(tmp_path: Path) -> None:
    for box in (
        sandbox(tmp_path, "danger-full-access"),
        sandbox(tmp_path, settings=SandboxSettings(mode="off")),
        sandbox(tmp_path, engine=Engine("none", problem="bwrap (bubblewrap) is not installed")),
    ):
        assert not box.active() and not box.whole()
        assert box.argv(["/bin/sh", "-c", "ls"], "/") == ["/bin/sh", "-c", "ls"]


def test_the_notice_comes_once_and_only_where_the_sandbox_was_wanted(tmp_path: Path) -> None:
    missing = Engine("none", problem="bwrap (bubblewrap) is not installed")
    box = sandbox(tmp_path, engine=missing)
    assert box.notice() == "commands run without an OS sandbox: bwrap (bubblewrap) is not installed"
    assert box.notice() is None
    assert sandbox(tmp_path, "danger-full-access", engine=missing).notice() is None
    assert sandbox(tmp_path, settings=SandboxSettings(mode="off"), engine=missing).notice() is None
    assert sandbox(tmp_path).notice() is None


@pytest.mark.parametrize(
    ("output", "why"),
    [
        ("sh: 1: cannot create /srv/x: Read-only file system", "outside the sandbox's writable"),
        ("touch: cannot touch '/opt/y': Permission denied", "outside the sandbox's writable"),
        ("curl: (6) Could not resolve host: example.com", "network is off"),
        ("npm error request failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org", "network"),
        ("ConnectionRefusedError: [Errno 111] Connection refused", "network is off"),
        ("cat: /srv/keys/a: Permission denied", None),  # a denied path: never a reason
        ("WS/f: Permission denied", None),  # inside the workspace: not the sandbox
        ("make: *** [all] Error 2", None),
    ],
)
def test_what_looks_like_the_sandbox(tmp_path: Path, output: str, why: str | None) -> None:
    box = sandbox(tmp_path, deny=("/srv/keys/**",))
    found = box.blocked(output.replace("WS", str(tmp_path / "ws")))
    assert (found is None) if why is None else (found is not None and why in found)


def test_with_the_network_on_a_refused_connection_is_the_commands_own(tmp_path: Path) -> None:
    box = sandbox(tmp_path, settings=SandboxSettings(network=True))
    assert box.blocked("Connection refused") is None


def test_the_status_object(tmp_path: Path) -> None:
    ws, temp = str(tmp_path / "ws"), str(tmp_path / "temp")
    assert sandbox(tmp_path).status() == {
        "mode": "enforce",
        "engine": "bubblewrap",
        "available": True,
        "workspaceRoot": ws,
        "writeRoots": [ws, temp],
        "networkEnabled": False,
    }
    off = sandbox(tmp_path, "danger-full-access").status()
    assert (off["mode"], off["engine"], off["available"], off["writeRoots"]) == (
        "off",
        "bubblewrap",
        True,
        [ws],
    )


def test_the_probe_reports_a_missing_engine() -> None:
    found = probe(which=lambda name: None)
    assert not found.available and found.problem == "bwrap (bubblewrap) is not installed"


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"mode": "strict"}, "mode must be one of auto, enforce, off"),
        ({"network": "yes"}, "network must be true or false"),
        ({"write_roots": ["relative"]}, "write_roots must be a list of absolute paths"),
    ],
)
def test_bad_settings_are_named(table: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        SandboxSettings.parse(table)


def test_settings_from_config_and_environment(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[sandbox]\nmode = "enforce"\nnetwork = true\nwrite_roots = ["/srv/cache"]\n'
    )
    env = {"REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    assert config.load(env=env).sandbox == SandboxSettings("enforce", True, ("/srv/cache",))
    assert config.load(env={**env, "REASONIX_ACP_SANDBOX": "off"}).sandbox.mode == "off"
    assert config.load(env={**env, "REASONIX_ACP_SANDBOX": "bogus"}).sandbox.mode == "enforce"
    (tmp_path / "config.toml").write_text('[sandbox]\nmode = "bogus"\n')
    with pytest.raises(ValueError, match=r"\[sandbox\] mode must be one of"):
        config.load(env=env, strict=True)
    assert config.load(env=env).sandbox == SandboxSettings()


def test_the_gate_lets_a_whole_sandbox_stand_in_for_the_question(tmp_path: Path) -> None:
    workspace = Workspace(str(tmp_path))
    rules = Rules(frozenset({"rm"}))
    preset = "workspace-write"
    verdict = judge_line(parse("make && echo x > /etc/y"), preset, [], rules, workspace, True)
    assert verdict.decision == "allow"
    assert judge_line(parse("make"), preset, [], rules, workspace, False).decision == "ask"
    # Deny rules and remembered rejections still win; a line no one can read is still asked
    # when there are command rules it could hide from.
    assert judge_line(parse("rm -rf x"), preset, [], rules, workspace, True).decision == "deny"
    rejected = [("execute", "command make", False)]
    assert judge_line(parse("make"), preset, rejected, rules, workspace, True).decision == "reject"
    assert judge_line(parse("echo 'unclosed"), preset, [], rules, workspace, True).decision == "ask"
    assert (
        judge_line(parse("echo 'unclosed"), preset, [], Rules(), workspace, True).decision
        == "allow"
    )
