"""One agent process for one scenario: spawned from the `--agent` command line with its
placeholders filled, read line by line on a thread, every byte logged both ways.

Placeholders in the command and in `--env` values: `{tmp}` (a fresh directory for this
scenario), `{cwd}` (the scenario's workspace inside it) and `{model_url}` (the scripted model's
base URL, when one runs). Each agent has a home of its own, {tmp}/home, as HOME and with the
XDG_* directories under it, and of the runner's environment only what finds programs, speaks the
locale, reaches the network and makes temp files (`PASSED`): a variable that configures an agent
(`REASONIX_ACP_CONFIG_DIR`, `OPENAI_MODEL`, an API key) is the user's config too. Unless the
runner is told to keep the user's home and environment (`--keep-home`): what is tested is the
agent, not the user's config of it on this machine. `--env` values win over both. Frames the agent writes that are not JSON objects are kept as
`{"_unparsed": line}` so a check can name them.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any


def fill(text: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


@dataclass
class Wire:
    """What crossed the pipes, in order: ("c2a" | "a2c" | "stderr", text, when)."""

    lines: list[tuple[str, str, float]] = field(default_factory=list)

    def add(self, direction: str, text: str) -> None:
        self.lines.append((direction, text, time.time()))

    def ndjson(self) -> str:
        return "".join(
            json.dumps({"dir": d, "line": t, "t": round(w, 3)}) + "\n" for d, t, w in self.lines
        )


def _read_some(fd: int) -> bytes:
    """What the pipe holds now (at least a byte, waiting for one), b"" at its end."""
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return b""


class CannotStart(Exception):
    """The agent's command could not be started at all (not found, not executable)."""


# The variables of a home of the agent's own, under {tmp}/home, made before it starts.
OWN_HOME = {
    "HOME": "",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}


# A scenario ends once the agent wrote nothing for QUIET seconds (at most QUIET_CAP after it ends).
QUIET, QUIET_CAP = 0.15, 1.0
# What an agent with a home of its own gets of the runner's environment (and every LC_*).
PASSED = frozenset(
    (
        *("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "TMP", "TEMP"),
        *("USER", "LOGNAME", "SHELL", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT"),
        *(f"{proxy}_proxy" for proxy in ("http", "https", "no", "all")),
        *(f"{proxy}_PROXY" for proxy in ("HTTP", "HTTPS", "NO", "ALL")),
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"),
    )
)


def passed_env() -> dict[str, str]:
    """The runner's variables an agent of its own gets (`PASSED`, `LC_*`)."""
    return {k: v for k, v in os.environ.items() if k in PASSED or k.startswith("LC_")}


def own_home(tmp: str) -> dict[str, str]:
    """HOME and the XDG_* directories under `tmp`/home, made."""
    home = os.path.join(tmp, "home")
    made = {k: os.path.join(home, under) if under else home for k, under in OWN_HOME.items()}
    for path in made.values():
        os.makedirs(path, exist_ok=True)
    return made


class Agent:
    remote = False

    def __init__(
        self, command: str, env: dict[str, str], places: dict[str, str], keep_home: bool = False
    ) -> None:
        argv = [fill(word, places) for word in shlex.split(command)]
        self.wire = Wire()
        self.last_output = time.monotonic()  # when the agent last wrote a line
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.not_utf8: list[str] = []  # lines of its stdout that are not UTF-8 (as read)
        self._writing = threading.Lock()  # the runner and the client's terminal threads write
        # Held while a line sent is logged, and while the lines of one read are: never while
        # writing to the agent, so reading its output never waits on a write its input blocks.
        self._logging = threading.Lock()
        own = "tmp" in places and not keep_home
        base, home = (passed_env(), own_home(places["tmp"])) if own else (dict(os.environ), {})
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**base, **home, **{k: fill(v, places) for k, v in env.items()}},
                cwd=places.get("cwd"),
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:  # ValueError: an empty command
            raise CannotStart(f"{argv[0] if argv else '(empty command)'}: {exc}") from None
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._stderr, daemon=True).start()

    def _read(self) -> None:
        """The agent's stdout, line by line. The lines of one read are logged and queued
        together, under the lock a send logs under: an answer to one of them (sent as soon as
        the runner has it) is logged after them all, whichever thread the interpreter runs
        first (with --jobs, many threads want it)."""
        assert self.proc.stdout is not None
        fd, rest = self.proc.stdout.fileno(), bytearray()
        while chunk := _read_some(fd):
            rest += chunk
            if b"\n" not in chunk:
                continue  # a line longer than one read: on with it
            *lines, tail = rest.split(b"\n")
            rest = bytearray(tail)
            with self._logging:
                for raw in lines:
                    self._line(bytes(raw))
        if rest:  # a last line without its newline
            with self._logging:
                self._line(bytes(rest))
        self.frames.put(None)  # end of output

    def _line(self, raw: bytes) -> None:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "replace")
            self.not_utf8.append(line)
        self.wire.add("a2c", line)
        self.last_output = time.monotonic()
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        self.frames.put(frame if isinstance(frame, dict) else {"_unparsed": line})

    def _stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.wire.add("stderr", raw.decode("utf-8", "replace").rstrip("\n"))

    def send_line(self, text: str) -> None:
        assert self.proc.stdin is not None
        with self._writing:
            with self._logging:
                self.wire.add("c2a", text)
            try:
                self.proc.stdin.write(text.encode("utf-8") + b"\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass  # the agent is gone: the next read says so

    def send(self, frame: Any) -> None:
        self.send_line(json.dumps(frame, ensure_ascii=False))

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next frame, None at end of output; raises TimeoutError when none comes."""
        try:
            return self.frames.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None

    def close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.wire.add("c2a", "<end of input>")
            with contextlib.suppress(OSError):  # the agent is gone and left bytes unread
                self.proc.stdin.close()

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End the agent and everything it started (its process group), once it is quiet: what
        it sends right after its last answer (acp's commands after `session/new`) is read before
        the end of input, so the wire log does not depend on how fast the machine is."""
        deadline = time.monotonic() + QUIET_CAP
        while time.monotonic() - self.last_output < QUIET and time.monotonic() < deadline:
            time.sleep(QUIET / 4)
        self.close_stdin()
        if self.wait(2.0) is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                if self.wait(2.0) is not None:
                    break
        deadline = time.monotonic() + 2
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
