"""Pinned npm packages for the tests that drive `acp` with clients written in TypeScript (the
official SDK's client, acpx): node found or the test skipped (failed under
REASONIX_ACP_REQUIRE_NODE), and a directory's packages installed with `npm ci` from its
committed lock file."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

INSTALL_SECONDS = 300


def node() -> str:
    """The `node` command; the test is skipped (or fails, where node is required) without node
    and npm."""
    found, npm = shutil.which("node"), shutil.which("npm")
    if found is None or npm is None:
        reason = "node and npm are needed to run the TypeScript clients"
        if os.environ.get("REASONIX_ACP_REQUIRE_NODE"):
            pytest.fail(f"REASONIX_ACP_REQUIRE_NODE is set, and: {reason}")
        pytest.skip(reason)
    return found


def installed(source: Path, name: str, package: str) -> Path:
    """`source`'s package.json and lock file installed with `npm ci` into a directory under
    the system temp dir named `name` and by the two files' hash, so later runs reuse it; its
    `node_modules`. `package` is one the lock file holds: its package.json shows an install
    finished."""
    node()
    files = ("package.json", "package-lock.json")
    key = hashlib.sha256(b"".join((source / f).read_bytes() for f in files)).hexdigest()
    cache = Path(tempfile.gettempdir()) / f"reasonix-acp-{name}-{key[:16]}"
    if not (cache / "node_modules" / package / "package.json").exists():
        shutil.rmtree(cache, ignore_errors=True)  # an incomplete one
        staging = Path(tempfile.mkdtemp(prefix=cache.name + ".", dir=cache.parent))
        try:
            for file in files:
                shutil.copy(source / file, staging / file)
            done = subprocess.run(
                ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=staging,
                capture_output=True,
                text=True,
                timeout=INSTALL_SECONDS,
            )
            if done.returncode != 0:
                pytest.fail(f"npm ci failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
            with contextlib.suppress(OSError):  # another run installed it first
                staging.rename(cache)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return cache / "node_modules"
