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
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.sandbox import Engine, probe
from tests.client import Client
from tests.tools.driver import agent, bash, prompt

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
