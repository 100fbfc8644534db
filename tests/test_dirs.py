"""The agent's data and config directories are where platformdirs puts them, in every environment
a user can have, though on Linux they are found without loading it (reasonix_acp/dirs.py)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import platformdirs
import pytest

from reasonix_acp import dirs

HOMES = [None, "/home/ada", "/home/ada/", "/", "", "relative/home"]
XDG_VALUES = [None, "/srv/xdg", "/srv/xdg/", "", "   ", "relative/xdg", "~/xdg"]


def library(kind: str) -> Path:
    if kind == "data":
        return Path(platformdirs.user_data_dir(dirs.APP, appauthor=False))
    return Path(platformdirs.user_config_dir(dirs.APP, appauthor=False))


def answer(find: object, kind: str) -> Path | str:
    try:
        return find(kind)  # type: ignore[operator, no-any-return]
    except RuntimeError:
        return "RuntimeError"


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG rules are followed on Linux only")
@pytest.mark.parametrize("kind", sorted(dirs.XDG))
def test_the_directories_are_platformdirs_own_in_every_environment(kind: str) -> None:
    variable = dirs.XDG[kind][0]
    cases = 0
    for home, xdg in itertools.product(HOMES, XDG_VALUES):
        env = {"PATH": "/usr/bin:/bin"}
        if home is not None:
            env["HOME"] = home
        if xdg is not None:
            env[variable] = xdg
        with mock.patch.dict(os.environ, env, clear=True):
            ours, theirs = answer(dirs.user_dir, kind), answer(library, kind)
        assert ours == theirs, (env, ours, theirs)
        cases += 1
    assert cases == len(HOMES) * len(XDG_VALUES)


def opened(home: Path, cwd: Path) -> dict[str, Any]:
    """What a real `acp` answers to session/new (after initialize) with only HOME set."""
    frames = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}) + "\n"
        for i, m, p in (
            (1, "initialize", {"protocolVersion": 1}),
            (2, "session/new", {"cwd": str(cwd), "mcpServers": []}),
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "reasonix_acp", "--model", "offline"],
        input=frames,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.splitlines())}
    assert 2 in answers, done.stderr[-2000:]
    return answers[2]


def test_a_user_with_only_home_keeps_sessions_under_it(tmp_path: Path) -> None:
    """A real `acp`, with HOME and nothing else to say where: the store is created under
    ~/.local/share/reasonix-acp and the config read from ~/.config/reasonix-acp."""
    home = tmp_path / "home"
    config = home / ".config" / "reasonix-acp"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("not toml [")  # proves the file is read
    new = opened(home, tmp_path)
    assert "config.toml" in new["error"]["message"], new
    (config / "config.toml").unlink()
    new = opened(home, tmp_path)
    assert "sessionId" in new["result"], new
    data = home / ".local" / "share" / "reasonix-acp"
    assert any(data.iterdir()), "no store under ~/.local/share/reasonix-acp"
