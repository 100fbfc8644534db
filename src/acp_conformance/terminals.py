"""Real terminals for `terminal/*`: each `terminal/create` starts the command as a process in
its own process group (stdout and stderr together), kept until `terminal/release`. A
`command` without `args` is a whole command line and runs through `sh -c`, as editors do.

- `terminal/output` answers what it printed so far, cut from the front to the agent's
  `outputByteLimit` (at a character boundary), with `truncated` and, once it ended,
  `exitStatus`;
- `terminal/wait_for_exit` is answered from a thread when the process ends (the runner keeps
  reading the agent meanwhile);
- `terminal/kill` kills the process group and keeps the terminal; `terminal/release` kills
  what still runs and forgets the terminal: its id is unknown from then on (-32602);
- a terminal id the client never gave, or gave and released, is noted on the Call.
Whatever the agent never released is killed when the scenario ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Terminal:
    proc: subprocess.Popen[bytes]
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    done: threading.Event = field(default_factory=threading.Event)

    def pump(self) -> None:
        out = self.proc.stdout
        assert out is not None
        for chunk in iter(lambda: os.read(out.fileno(), 4096), b""):
            self.output += chunk
        self.proc.wait()
        self.done.set()

    def status(self) -> dict[str, Any]:
        code = self.proc.returncode
        if code is None:
            return {}
        if code < 0:
            return {"exitCode": None, "signal": signal.Signals(-code).name}
        return {"exitCode": code, "signal": None}

    def shown(self) -> tuple[str, bool]:
        data = bytes(self.output)
        if self.limit is None or len(data) <= self.limit:
            return data.decode("utf-8", "replace"), False
        cut = data[len(data) - self.limit :]
        return cut.decode("utf-8", "ignore"), True

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)


class Terminals:
    def __init__(self, reply: Callable[..., None], cwd: str) -> None:
        self.reply, self.cwd = reply, cwd
        self.live: dict[str, Terminal] = {}
        self.created: list[str] = []
        self.released: list[str] = []

    def handle(self, rid: Any, call: Any, params: dict[str, Any]) -> None:
        verb = call.method.removeprefix("terminal/")
        if verb == "create":
            return self._create(rid, call, params)
        tid = params.get("terminalId")
        terminal = self.live.get(tid) if isinstance(tid, str) else None
        if terminal is None:
            call.note = f"terminal {tid!r} is not one the client created and still holds"
            return self.reply(rid, call, error=(-32602, f"unknown terminal {tid!r}"))
        if verb == "output":
            text, cut = terminal.shown()
            status = terminal.status() if terminal.done.is_set() else {}
            body = {"output": text, "truncated": cut, **({"exitStatus": status} if status else {})}
            return self.reply(rid, call, body)
        if verb == "wait_for_exit":
            later = threading.Thread(target=self._wait, args=(rid, call, terminal), daemon=True)
            return later.start()
        if verb in ("kill", "release"):
            terminal.kill()
            if verb == "release":
                self.released.append(tid)  # type: ignore[arg-type]
                del self.live[tid]  # type: ignore[arg-type]
            return self.reply(rid, call, {})
        return self.reply(rid, call, error=(-32601, f"{call.method} is not offered"))

    def _create(self, rid: Any, call: Any, params: dict[str, Any]) -> None:
        command, args = params.get("command"), params.get("args") or []
        argv = [str(command), *map(str, args)] if args else ["sh", "-c", str(command)]
        env = {**os.environ}
        for item in params.get("env") or []:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                env[item["name"]] = str(item.get("value", ""))
        cwd = params.get("cwd") or self.cwd
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=cwd if isinstance(cwd, str) and os.path.isabs(cwd) else self.cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            return self.reply(rid, call, error=(-32603, f"could not start {command!r}: {exc}"))
        limit = params.get("outputByteLimit")
        terminal = Terminal(proc, limit if isinstance(limit, int) else None)
        threading.Thread(target=terminal.pump, daemon=True).start()
        tid = f"term-{len(self.created) + 1}"
        self.created.append(tid)
        self.live[tid] = terminal
        return self.reply(rid, call, {"terminalId": tid})

    def _wait(self, rid: Any, call: Any, terminal: Terminal) -> None:
        terminal.done.wait()
        self.reply(rid, call, terminal.status())

    def close(self) -> None:
        for terminal in self.live.values():
            terminal.kill()
