"""bash: run a shell command in the session cwd: in the editor's terminal when the client
offers terminals (tools/bridge.ClientTerminal; the call shows `{type: terminal}` content), else
locally, as follows.

- The command runs in its own process group; on timeout or cancel the whole group is killed
  (SIGTERM, then SIGKILL after a grace period) and reaped before the tool returns. The kill
  sequence runs in its own task (`ProcessGroups`, tools/groups.py), so a second cancel ends
  the tool's wait for it, never the sequence; the agent's shutdown kills and reaps every group
  still there.
- Output (stdout and stderr together) is scrubbed as it is read, by one scrubber for the
  whole command (scrubber.py): every secret the agent holds (provider keys, MCP header and env
  values) is replaced by [redacted], also one split across two reads of the pipe; the turn
  scrubs every tool's output again where it enters the session (turn/tool_calls.py). Past
  OUTPUT_CAP bytes the scrubbed output is cut in what the client and the model see; the full
  output is written to a file in the session's temp directory, which the cut content names.
- A command running longer than PROGRESS_EVERY shows its latest scrubbed output (bounded) in
  `in_progress` updates: the unfinished end of a line that could begin a secret shows once
  what follows it is read.
- In the editor's terminal the editor keeps the output (tools/bridge.py scrubs what it reads
  back).
- A non-zero exit status makes the call `failed`, with the output and the status.
- Every command line asks for permission unless the preset is danger-full-access or the
  command runs in a whole sandbox; the gate judges the whole line, every simple command in it
  (turn/gate.py, command_proof/command_line.py).
- Where the session's sandbox is active the command runs inside it (tools/sandbox.py), in the
  agent's process or in the editor's terminal alike (`bwrap ... -- <shell> -c <command>`).
  A sandboxed command that fails as the sandbox would make it fail (a read-only file system,
  the network off) is offered once for a run outside the sandbox (`ctx.rerun`: a permission
  question saying why); refused, its failure stands.
"""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any

from reasonix_acp.config.programs import which
from reasonix_acp.scrubber import ByteStreamScrubber
from reasonix_acp.tools.background import BashKill, BashOutput, started
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult
from reasonix_acp.tools.groups import GROUPS, Process
from reasonix_acp.tools.workspace import keep

OUTPUT_CAP = 47 * 1024  # with its note, under the turn's default output cap (48 KB): cut once
DEFAULT_TIMEOUT_MS = 120_000
PROGRESS_EVERY = 0.25  # seconds; quick commands show no partial output at all
PROGRESS_TAIL = 4096
KEPT_BYTES = 16 * 1024 * 1024  # output kept of one command; the rest is counted, not kept
EXIT_POLL = 0.1  # seconds between looks at whether the shell has exited while output stays open
BACKGROUND_GRACE = 0.2  # output still read after the shell exited, before it is left behind
BACKGROUND_NOTE = (
    "[the shell exited; a background process is still running and its output is not shown]"
)


BASH_FLAGS = ("--noprofile", "--norc", "-p")  # -p: no BASH_ENV, no imported functions


@functools.cache
def _found(shell: str) -> str | None:
    """The program `shell` names: a path as given; a bare name at its usual place in /bin,
    else on PATH's absolute entries (config/programs.py)."""
    if os.path.isabs(shell):
        return shell if os.access(shell, os.X_OK) else None
    usual = os.path.join("/bin", shell)
    return usual if os.access(usual, os.X_OK) else which(shell)


def reads_as_bash(shell: str) -> bool:
    """Commands run in bash, the shell the gate reads (turn/gate.py, command_proof/proof.py)."""
    return os.path.basename(shell) == "bash" and _found(shell) is not None


def ran_by(shell: str) -> str:
    """The program a command line runs in, as the question names it."""
    return command_argv(shell, "")[0]


def command_argv(shell: str, command: str) -> list[str]:
    """How a command line runs: bash without its startup files, BASH_ENV or functions and
    options from the environment; another configured shell (every line then asks) as it is."""
    if reads_as_bash(shell):
        return [_found(shell) or shell, *BASH_FLAGS, "-c", command]
    if os.path.basename(shell) == "bash":
        return ["/bin/sh", "-c", command]  # no bash here: the gate reads nothing of it
    return [shell, "-c", command]


def _detach(proc: Process) -> None:
    """Stop reading a pipe a background process holds: close our end (the shell has exited)."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def clip_output(data: bytes, where: tuple[str, str]) -> tuple[str, bool]:
    """(text to show, whether it was cut) of `data`, output already scrubbed (a cut made
    before could split a secret); a cut output is kept whole (0600) in `where` (directory,
    name)."""
    if len(data) <= OUTPUT_CAP:
        return data.decode("utf-8", "replace"), False
    kept = keep(*where, data)
    head = data[:OUTPUT_CAP].decode("utf-8", "ignore")
    return (
        head + f"\n[output cut at {OUTPUT_CAP} of {len(data)} bytes; the full output is in {kept}]",
        True,
    )


class Bash:
    name = "bash"
    kind = "execute"
    access = "execute"
    schema: dict[str, Any] = {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a shell command in the workspace. Output is stdout and stderr together.",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout_ms": {"type": "integer"},
                    "run_in_background": {
                        "type": "boolean",
                        "description": "Start it and return at once (a server, a watcher): "
                        "read its output with bash_output, stop it with bash_kill",
                    },
                },
                "required": ["command"],
            },
        },
    }

    def _command(self, args: dict[str, Any]) -> str:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolFailed("`command` must be a non-empty string")
        return command

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(".")

    def shown_at_start(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """For clients with Zed's terminal display: a terminal card named by the call id."""
        if not ctx.terminal_meta or ctx.terminal is not None or _background(args):
            return {}
        return {
            "content": [{"type": "terminal", "terminalId": ctx.call_id}],
            "_meta": {"terminal_info": {"terminal_id": ctx.call_id, "cwd": ctx.cwd}},
        }

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        command = self._command(args)
        shown = command if len(command) <= 60 else command[:57] + "..."
        return f"Run {shown} in the background" if _background(args) else f"Run {shown}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = self._command(args)
        timeout_ms = args.get("timeout_ms")
        timeout = (
            timeout_ms if isinstance(timeout_ms, int) and timeout_ms > 0 else DEFAULT_TIMEOUT_MS
        ) / 1000
        plain = command_argv(ctx.shell, command)
        sandbox = ctx.sandbox
        if _background(args):  # locally, never in a client terminal left open behind the turn
            if ctx.jobs is None:
                raise ToolFailed("this session cannot run background commands")
            active = sandbox is not None and sandbox.active()
            argv = sandbox.argv(plain, ctx.cwd) if active else plain
            return started(await ctx.jobs.start(argv, ctx.cwd, command))
        if sandbox is None or not sandbox.active():
            return await self._execute(plain, ctx, timeout)
        try:
            return await self._execute(sandbox.argv(plain, ctx.cwd), ctx, timeout)
        except ToolFailed as exc:
            why = sandbox.blocked(str(exc)) if ctx.rerun is not None else None
            if why is None or not await ctx.rerun(why):
                raise
        return await self._execute(plain, ctx, timeout)

    async def _execute(self, argv: list[str], ctx: ToolContext, timeout: float) -> ToolResult:
        if ctx.terminal is not None:
            terminal_id = await ctx.terminal.create(argv, ctx.cwd)
            if terminal_id is not None:
                return await self._in_client(ctx, terminal_id, timeout)
        proc = await GROUPS.spawn(argv, ctx.cwd)
        # No await between the spawn and _collect's `try`: a cancel cannot land in between.
        chunks: list[bytes] = []
        timed_out, background = await self._collect(proc, chunks, ctx, timeout)
        if background:
            chunks.append((b"\n" if any(chunks) else b"") + BACKGROUND_NOTE.encode())
            if ctx.jobs is not None:  # what it left running stops with the session
                ctx.jobs.adopt(proc)
        return self._outcome(proc, b"".join(chunks), ctx, timeout, timed_out, background)

    async def _collect(
        self, proc: Process, chunks: list[bytes], ctx: ToolContext, timeout: float
    ) -> tuple[bool, bool]:
        """Pump the output until the command ends or times out → (timed out, left a background
        process). On a timeout, a cancel or any failure the group is stopped by its reaper task
        before this returns; a background process left by a shell that exited goes on, its group
        still the agent's to stop (with the session, or at the agent's exit)."""
        finished = background = False
        deadline = asyncio.get_running_loop().time() + timeout
        try:
            # The pump checks the deadline itself: a cancel from `wait_for` alone can be lost
            # when every read completes at once (endless output; Python 3.11's wait_for).
            background = await asyncio.wait_for(self._pump(proc, chunks, ctx, deadline), timeout)
            finished = True
        except TimeoutError:
            pass
        finally:
            if finished:
                if not background:  # a group still running stays the agent's to stop
                    GROUPS.ended(proc)
            else:
                # Shielded: a second cancel ends this wait, never the kill sequence.
                await asyncio.shield(GROUPS.stop(proc))
        return not finished, background

    def _outcome(
        self,
        proc: Process,
        data: bytes,
        ctx: ToolContext,
        timeout: float,
        timed_out: bool,
        background: bool = False,
    ) -> ToolResult:
        text, cut = clip_output(data, (ctx.workspace.temp, f"bash-{proc.pid}.log"))
        raw: dict[str, Any] = {"exitCode": proc.returncode, "truncated": cut}
        if background:
            raw["background"] = True
        content = [{"type": "content", "content": {"type": "text", "text": text or "(no output)"}}]
        if ctx.terminal_meta and not timed_out:
            # Zed's display: output and exit status in `_meta`, content left as the terminal card.
            code = proc.returncode or 0
            exit_info: dict[str, Any] = {"terminal_id": ctx.call_id}
            exit_info.update({"exit_code": code} if code >= 0 else {"signal": f"signal {-code}"})
            meta = {
                "terminal_output": {"terminal_id": ctx.call_id, "data": text},
                "terminal_exit": exit_info,
            }
            if code != 0:
                raise ToolFailed(f"{text}\n[exit status {code}]".lstrip(), meta=meta)
            return ToolResult(text=text, content=None, raw_output=raw, meta=meta)
        if timed_out:
            raise ToolFailed(
                f"timed out after {timeout:g} s; the command and its children were killed"
            )
        if proc.returncode != 0:
            status = (
                f"exit status {proc.returncode}"
                if proc.returncode and proc.returncode > 0
                else f"terminated by signal {-(proc.returncode or 0)}"
            )
            raise ToolFailed(f"{text}\n[{status}]".lstrip())
        return ToolResult(text=text, content=content, raw_output=raw)

    async def _pump(
        self, proc: Process, chunks: list[bytes], ctx: ToolContext, deadline: float
    ) -> bool:
        """Collect output, scrubbed as it is read, until the output pipe closes, or until the
        shell has exited and a process it left in the background still holds the pipe (→
        True: the pipe is then closed on our side and that process goes on). A command that
        runs for a while shows its latest output as it goes (in_progress updates, at most
        every PROGRESS_EVERY seconds, the last PROGRESS_TAIL bytes). Past `deadline` it raises
        TimeoutError; past KEPT_BYTES the output is counted, not kept."""
        assert proc.stdout is not None
        loop = asyncio.get_running_loop()
        started = shown = loop.time()
        exited_at: float | None = None
        scrubber = ByteStreamScrubber()  # what `chunks` gets: no secret, whole or in parts
        kept = dropped = 0
        while True:
            if loop.time() >= deadline:
                raise TimeoutError
            try:
                data = await asyncio.wait_for(proc.stdout.read(1 << 16), EXIT_POLL)
            except TimeoutError:
                if proc.returncode is None:
                    continue
                exited_at = exited_at or loop.time()
                if loop.time() - exited_at < BACKGROUND_GRACE:
                    continue
                _detach(proc)
                # The output goes on unread: what is held may be half of a secret.
                chunks.append(scrubber.end(cut=True))
                return True
            if not data:
                break
            if kept >= KEPT_BYTES:  # the scrubber is fed nothing more: no half secret is kept
                dropped += len(data)
                continue
            chunks.append(scrubber.feed(data))
            kept += len(chunks[-1])
            now = loop.time()
            if (
                ctx.progress is not None
                and not ctx.terminal_meta  # a content update would replace the terminal card
                and now - started >= PROGRESS_EVERY
                and now - shown >= PROGRESS_EVERY
            ):
                shown = now
                tail = b"".join(chunks[-64:])[-PROGRESS_TAIL:].decode("utf-8", "ignore")
                ctx.progress([{"type": "content", "content": {"type": "text", "text": tail}}])
        chunks.append(scrubber.end(cut=dropped > 0))
        if dropped:
            chunks.append(f"\n[{dropped} more bytes of output were not kept]".encode())
        await proc.wait()
        return False

    async def _in_client(self, ctx: ToolContext, terminal_id: str, timeout: float) -> ToolResult:
        shown = [{"type": "terminal", "terminalId": terminal_id}]
        if ctx.progress is not None:
            ctx.progress(shown)
        output, truncated, code, sig, timed_out = await ctx.terminal.finish(terminal_id, timeout)
        if truncated:
            output += "\n[output truncated by the client terminal]"
        if timed_out:
            raise ToolFailed(f"timed out after {timeout:g} s; the editor's terminal was killed")
        if sig:
            raise ToolFailed(f"{output}\n[terminated by signal {sig}]".lstrip())
        if code not in (0, None):
            raise ToolFailed(f"{output}\n[exit status {code}]".lstrip())
        return ToolResult(
            text=output, content=shown, raw_output={"exitCode": code, "truncated": truncated}
        )


def _background(args: dict[str, Any]) -> bool:
    return args.get("run_in_background") is True


SHELL_TOOLS: list[Any] = [Bash(), BashOutput(), BashKill()]
