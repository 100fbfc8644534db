"""Background commands: `bash` with `run_in_background` starts one and returns at once;
`bash_output` reads what it printed since the last read, `bash_kill` stops it.

Invariants:
- A command belongs to the session that started it (`Jobs`, one per session): another session
  cannot name it (its id is "not found" there). Closing, deleting or losing the session stops
  every command it still runs (`Jobs.close`); the agent's exit stops them with every other
  process group (tools/groups.py: they are spawned there).
- Each runs in its own process group, under the same gate, sandbox and environment as any
  command; stopping it kills the whole group and reaps it.
- A plain command whose shell exits leaving a process in the background (`server &`) has its
  group adopted (`adopt`): it too stops with the session and with the agent.
- Its output (stdout and stderr together) goes to a file in the session's private temp
  directory (0600), at most LOG_CAP bytes, scrubbed of every secret the agent holds as it is
  written, by one scrubber for the command's whole life (scrubber.py): a secret split across
  two reads of the pipe, or of the file, is never shown in halves. The unfinished end of a line
  that could still begin a secret is written once what follows is seen, or the command ends;
  a read says how many bytes wait so.
- The model reads what is new since its last read, at most READ_CAP bytes, never ending in the
  middle of a character or of a [redacted] mark when more follows; "N more bytes" counts what
  the file holds past the read.
- At most LIMIT run at once per session; one past that is refused, saying so.
- A command that ends on its own is told to the model at its next request (`notes`), never by
  interrupting a turn.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.redact import MARK, scrub_known
from reasonix_acp.scrubber import ByteStreamScrubber
from reasonix_acp.tools.base import (
    ToolContext,
    ToolFailed,
    ToolResult,
    function_schema,
    string_arg,
    text_content,
)
from reasonix_acp.tools.groups import GROUPS, Process
from reasonix_acp.tools.workspace import ensure_temp

LIMIT = 8
LOG_CAP = 8 * 1024 * 1024
READ_CAP = 32 * 1024  # bytes one bash_output returns; the rest waits for the next read


@dataclass
class Job:
    """One background command: its process, its output file, what the model has read."""

    id: str
    command: str
    proc: Process
    log: str
    written: int = 0
    read: int = 0
    cut: bool = False  # output past LOG_CAP was not kept
    told: bool = False  # its end was told to the model
    pump: asyncio.Future[None] | None = field(default=None, repr=False)
    # What the log is written through, and what the model's reads are decoded with.
    scrubber: ByteStreamScrubber = field(default_factory=ByteStreamScrubber, repr=False)
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"), repr=False
    )

    @property
    def running(self) -> bool:
        return self.proc.returncode is None or (self.pump is not None and not self.pump.done())

    def state(self) -> str:
        code = self.proc.returncode
        if self.running or code is None:
            return "running"
        return f"exited {code}" if code >= 0 else f"killed by signal {-code}"


class Jobs:
    """A session's background commands."""

    def __init__(self, temp: str) -> None:
        self.temp = temp
        self.jobs: dict[str, Job] = {}
        self.count = 0
        # Groups a plain command left running (`server &`): stopped with the session.
        self.adopted: list[Process] = []

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.running]

    async def start(self, argv: list[str], cwd: str, command: str) -> Job:
        if len(self.running()) >= LIMIT:
            raise ToolFailed(
                f"{LIMIT} background commands are running in this session already: stop one "
                "with bash_kill first"
            )
        ensure_temp(self.temp)
        self.count += 1
        job_id = f"bg-{self.count}"
        log = os.path.join(self.temp, f"{job_id}.log")
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            proc = await GROUPS.spawn(argv, cwd)
        except BaseException:
            os.close(fd)
            raise
        job = self.jobs[job_id] = Job(job_id, command, proc, log)
        job.pump = asyncio.ensure_future(_pump(job, fd))
        return job

    def listed(self) -> list[dict[str, str]]:
        """The running background commands as the session's status lists them."""
        return [{"id": j.id, "command": scrub_known(j.command)} for j in self.running()]

    def describe(self) -> str:
        """The running background commands, for /status."""
        running = self.running()
        if not running:
            return "no background commands"
        return "background commands: " + ", ".join(
            f"{j.id} ({scrub_known(j.command)})" for j in running
        )

    def get(self, job_id: Any) -> Job:
        job = self.jobs.get(job_id) if isinstance(job_id, str) else None
        if job is None:
            raise ToolFailed(f"no background command {job_id!r} in this session")
        return job

    def take(self, job: Job) -> tuple[str, int]:
        """What `job` printed since the last read (the log is scrubbed as it is written; at
        most READ_CAP bytes, a mark it would cut left for the next read), and how many bytes
        more the log holds after it."""
        with open(job.log, "rb") as f:
            f.seek(job.read)
            data = f.read(READ_CAP)
        if job.read + len(data) < job.written:
            data = data[: len(data) - _cut_mark(data)]
        job.read += len(data)
        final = not job.running and job.read >= job.written
        return job.decoder.decode(data, final), job.written - job.read

    async def stop(self, job: Job) -> None:
        if job.proc.returncode is None:
            await asyncio.shield(GROUPS.stop(job.proc))
        if job.pump is not None:
            await asyncio.gather(job.pump, return_exceptions=True)

    def adopt(self, proc: Process) -> None:
        self.adopted.append(proc)

    async def close(self) -> None:
        """Stop every command still running (the session is closing), and what plain commands
        left running in their groups."""
        left = [asyncio.shield(GROUPS.stop(p)) for p in self.adopted]
        stops = [self.stop(j) for j in self.jobs.values()]
        await asyncio.gather(*stops, *left, return_exceptions=True)

    def ended_note(self) -> dict[str, Any] | None:
        """The model's note of the commands that ended on their own since it last heard, for
        its history before its next request; None when there are none."""
        notes = self.notes()
        return {"role": "user", "content": f"[{'; '.join(notes)}]"} if notes else None

    def notes(self) -> list[str]:
        """The commands that ended on their own since the model was last told."""
        done = [j for j in self.jobs.values() if not j.running and not j.told]
        for job in done:
            job.told = True
        return [f"background command {j.id} ({scrub_known(j.command)}) {j.state()}" for j in done]


def _cut_mark(data: bytes) -> int:
    """How many bytes at the end of `data` begin a [redacted] mark (0 when none do)."""
    mark = MARK.encode()
    return next((n for n in range(len(mark) - 1, 0, -1) if data.endswith(mark[:n])), 0)


async def _pump(job: Job, fd: int) -> None:
    """The command's output into its log, through its scrubber, up to LOG_CAP bytes; past
    that it is read and dropped (the command must not block on a full pipe)."""
    stream = job.proc.stdout
    assert stream is not None
    try:
        while chunk := await stream.read(65536):
            if not job.cut:
                _write(job, fd, job.scrubber.feed(chunk))
        await job.proc.wait()
        if not job.cut:
            _write(job, fd, job.scrubber.end())
        GROUPS.ended(job.proc)
    finally:
        os.close(fd)


def _write(job: Job, fd: int, data: bytes) -> None:
    room = LOG_CAP - job.written
    if len(data) > room:
        job.cut = True
        job.scrubber.end(cut=True)  # what it holds is dropped with the rest
    kept = data[: max(room, 0)]
    os.write(fd, kept)
    job.written += len(kept)


def started(job: Job) -> ToolResult:
    text = (
        f"Started background command {job.id}: {job.command}\n"
        f"Read its output with bash_output (id {job.id!r}); stop it with bash_kill."
    )
    return ToolResult(text, text_content(text), raw_output={"backgroundId": job.id})


class BashOutput:
    name = "bash_output"
    kind = "read"
    schema = function_schema(
        "bash_output",
        "Read what a background command (bash with run_in_background) printed since the last "
        "read, and whether it still runs.",
        {"id": {"type": "string", "description": "The command's id, e.g. bg-1"}},
        ["id"],
    )

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Output of {args.get('id', '')}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        jobs = _jobs(ctx)
        job = jobs.get(string_arg(args, "id"))
        await asyncio.sleep(0)  # let the pump write what is already there
        text, more = jobs.take(job)
        notes = [f"[{job.id}: {job.state()}]"]
        if more > 0:
            notes.append(f"[{more} more bytes: read again]")
        elif job.running and (held := job.scrubber.held):
            notes.append(f"[{held} more bytes, a line not finished yet: shown once it is]")
        if job.cut and more <= 0:
            notes.append(f"[output past {LOG_CAP // (1024 * 1024)} MB was not kept]")
        shown = text if text.endswith("\n") else f"{text}\n" if text else "(no new output)\n"
        body = shown + " ".join(notes)
        return ToolResult(body, text_content(body), raw_output={"state": job.state()})


class BashKill:
    name = "bash_kill"
    kind = "execute"
    schema = function_schema(
        "bash_kill",
        "Stop a background command (bash with run_in_background) and everything it started.",
        {"id": {"type": "string", "description": "The command's id, e.g. bg-1"}},
        ["id"],
    )

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Stop {args.get('id', '')}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        jobs = _jobs(ctx)
        job = jobs.get(string_arg(args, "id"))
        was = job.running
        await jobs.stop(job)
        job.told = True
        text = f"{job.id} {'stopped' if was else 'had already ended'}: {job.state()}"
        return ToolResult(text, text_content(text))


def _jobs(ctx: ToolContext) -> Jobs:
    if ctx.jobs is None:
        raise ToolFailed("this session runs no background commands")
    jobs: Jobs = ctx.jobs
    return jobs
