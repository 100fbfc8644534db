"""The process groups the bash tool starts (tools/shell.py), and how they are stopped: each
command in its own group, killed as a whole (SIGTERM, a grace period, SIGKILL) and reaped; on
the agent's shutdown every group still there, sooner.

Kept apart from the tool itself so the shutdown path (server/stdio.py) can reach the groups
without loading the tools.

A command gets our environment without credentials (redact.py `child_env`) and with PATH's
absolute entries only (config/programs.py): a relative or empty entry is read by the kernel
against the directory the command runs in, the workspace, where the model can put a program of
any name; the proof and the grants read a command's name as the program PATH finds elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import weakref
from typing import Any

from reasonix_acp.config.programs import absolute_path
from reasonix_acp.redact import child_env

log = logging.getLogger("reasonix_acp.tools.groups")
Process = asyncio.subprocess.Process

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
SHUTDOWN_GRACE = 0.5  # the same once the agent is stopping (an editor waits for it to exit)
REAP_LIMIT = 2.0  # after SIGKILL; only a process outside the group can hold the output longer


def command_env() -> dict[str, str]:
    """The environment a command starts with: no credentials, PATH's absolute entries only."""
    env = child_env()
    env["PATH"] = absolute_path(env.get("PATH", os.defpath))
    return env


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class ProcessGroups:
    """The process groups the bash tool started and has not seen end, and the tasks that start
    and kill them. One per process (`GROUPS`).

    Invariants:
    - A group is killed by its reaper task, started once (`stop`): SIGTERM, a grace period,
      SIGKILL, reap. Whoever waits for it does so through a shield, so a second cancel (a
      session/cancel followed by `$/cancel_request` or session/close) ends only the wait.
    - A spawn runs in its own task: when the caller is cancelled while the process is still
      starting, the spawn completes anyway and what it started is stopped.
    - `shutdown` (a stop signal, end of input) stops every group, cuts every grace period short
      and awaits every task; whatever starts after it began is stopped at once.
    """

    def __init__(self) -> None:
        self.live: dict[int, Process] = {}  # by pid, which is also the group id
        self.closing = False
        self._tasks: set[asyncio.Future[Any]] = set()  # spawns and reapers not yet done
        self._reapers: weakref.WeakKeyDictionary[Process, asyncio.Future[None]] = (
            weakref.WeakKeyDictionary()
        )

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def spawn(self, argv: list[str], cwd: str) -> Process:
        starting = asyncio.ensure_future(self._start(argv, cwd))
        self._track(starting)
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            starting.add_done_callback(self._orphaned)
            raise

    async def _start(self, argv: list[str], cwd: str) -> Process:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=command_env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        self.live[proc.pid] = proc  # no await since the spawn: nothing can slip in between
        if self.closing:
            self.stop(proc)
        return proc

    def _orphaned(self, starting: asyncio.Future[Process]) -> None:
        """The caller was cancelled mid-spawn: stop what the spawn started, if anything."""
        if not starting.cancelled() and starting.exception() is None:
            self.stop(starting.result())

    def ended(self, proc: Process) -> None:
        """The command ended on its own (what it left running in the background stays)."""
        self.live.pop(proc.pid, None)

    def stop(self, proc: Process) -> asyncio.Future[None]:
        """The task that kills `proc`'s group and reaps it; the same task for every call."""
        reaper = self._reapers.get(proc)
        if reaper is None:
            grace = SHUTDOWN_GRACE if self.closing else KILL_GRACE
            reaper = self._reapers[proc] = asyncio.ensure_future(self._reap(proc, grace))
            self._track(reaper)
        return reaper

    async def _reap(self, proc: Process, grace: float) -> None:
        try:
            _kill_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace)
            # Even when the shell is gone: its children may have ignored SIGTERM.
            _kill_group(proc.pid, signal.SIGKILL)
            try:
                # wait() also waits for the output pipe, which only the group should hold
                await asyncio.wait_for(proc.wait(), REAP_LIMIT)
            except TimeoutError:
                log.warning("bash: process %d keeps its output open after SIGKILL", proc.pid)
        finally:
            self.live.pop(proc.pid, None)

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Kill and reap every group: SIGTERM now, SIGKILL after `grace` seconds at the latest
        (sooner than a reaper's own KILL_GRACE); spawns in progress are awaited first."""
        self.closing = True
        loop = asyncio.get_running_loop()
        kill_at = loop.time() + grace
        while self._tasks or self.live:
            for proc in list(self.live.values()):
                self.stop(proc)
            pending = set(self._tasks)
            if not pending:
                break
            remaining = kill_at - loop.time()
            if remaining > 0:
                await asyncio.wait(pending, timeout=remaining)
                continue
            for pid in list(self.live):
                _kill_group(pid, signal.SIGKILL)
            await asyncio.wait(pending)  # bounded: each reaper waits at most REAP_LIMIT now


GROUPS = ProcessGroups()
