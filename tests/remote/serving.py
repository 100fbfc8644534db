"""A real `acp serve` for the remote tests: started on 127.0.0.1, port 0, with its own home,
data directory and token; its URL read from what it prints; stopped with SIGTERM."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.agent_process import acp_command

TOKEN = "test-token-for-acp-serve-0123456789"
URL = re.compile(r"serving ACP at (\S+) ")


class Served:
    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        self.env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "REASONIX_ACP_TOKEN": TOKEN,
            **(env or {}),
        }
        self.workspace = tmp_path / "ws"
        self.workspace.mkdir(exist_ok=True)
        command = [*acp_command(), "serve", "--listen", "127.0.0.1:0", "--log-level", "info"]
        self.proc = subprocess.Popen(
            [*command, "--data-dir", str(tmp_path / "data"), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self.wait_for(URL).group(1)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.log.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 20.0) -> re.Match[str]:
        """The first line from now on that matches, within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern.pattern!r}: {self.log}") from None
            found = pattern.search(line)
            if found:
                return found

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by itself, and its key (PEM files under tmp_path)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key
