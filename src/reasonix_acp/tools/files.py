"""File tools: read (line windows), write, edit (exact replacements); list, glob and grep are
in tools/search.py.

Each declares the access it needs for the path it touches (`access`), which the turn runner
checks against the session's preset before running it; the tools themselves only do the work,
on the real path judged (tools/base.py `judged_target`: a link swapped since fails the call).
Writes and edits return `diff` content (`oldText: null` for a new file), and say it before they
run (`proposed`: the permission question shows it). Reads and writes go
through the client's file system when it offers one (tools/bridge.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from typing import Any

from reasonix_acp.tools.base import (
    ToolContext,
    ToolFailed,
    ToolResult,
    function_schema,
    judged_target,
    string_arg,
    text_content,
)
from reasonix_acp.tools.search import SEARCH_TOOLS
from reasonix_acp.words import counted

MAX_LINES = 2000
MAX_READ = 64 * 1024 * 1024  # bytes: a bigger file is not read whole


def encoding_of(data: bytes) -> str:
    """UTF-8 when the bytes are UTF-8 (or start with its BOM), UTF-16 with a BOM, else latin-1,
    which maps every byte to one character, so an edit leaves the bytes it does not touch as
    they were (a GBK or Shift-JIS file keeps its encoding)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"


def _read_bytes(real: str) -> bytes:
    try:
        if (
            os.path.exists(real)
            and not stat.S_ISREG(os.stat(real).st_mode)
            and not os.path.isdir(real)
        ):
            raise ToolFailed(f"{real}: not a regular file")
        with open(real, "rb") as fh:
            if os.fstat(fh.fileno()).st_size > MAX_READ:
                raise ToolFailed(f"{real}: larger than {MAX_READ >> 20} MB; read it with bash")
            return fh.read()
    except FileNotFoundError:
        raise ToolFailed(f"{real}: no such file") from None
    except IsADirectoryError:
        raise ToolFailed(f"{real}: is a directory") from None
    except OSError as exc:
        raise ToolFailed(f"{real}: {exc.strerror}") from None


def _read_text(real: str) -> str:
    data = _read_bytes(real)
    return data.decode(encoding_of(data))


class ReadFile:
    name = "read"
    kind = "read"
    access = "read"
    schema = function_schema(
        "read",
        "Read a text file. `offset` is the first line (1-based), `limit` the number of lines.",
        {"path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
        ["path"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(string_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Read {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        loc: dict[str, Any] = {"path": self.target(args, ctx)}
        if isinstance(args.get("offset"), int) and args["offset"] > 1:
            loc["line"] = args["offset"]
        return [loc]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = judged_target(self, args, ctx)
        lines = (await _load(ctx, real)).splitlines(keepends=True)
        raw_offset, raw_limit = args.get("offset"), args.get("limit")
        offset: int = raw_offset if isinstance(raw_offset, int) else 1
        limit: int = raw_limit if isinstance(raw_limit, int) else MAX_LINES
        start = max(offset - 1, 0)
        window = lines[start : start + min(max(limit, 1), MAX_LINES)]
        text = "".join(window)
        more = len(lines) - start - len(window)
        if more > 0:
            text += f"\n[... {more} more lines; read again with offset={start + len(window) + 1}]"
        return ToolResult(
            text=text,
            content=text_content(text),
            raw_output={"lines": len(window), "total": len(lines)},
        )


async def _load(ctx: ToolContext, real: str) -> str:
    if ctx.files is not None:
        text = await ctx.files.read(real)
        if text is not None:
            return str(text)
    return await asyncio.to_thread(_read_text, real)


async def _store(ctx: ToolContext, real: str, text: str) -> None:
    if ctx.files is not None and await ctx.files.write(real, text):
        return
    try:
        await asyncio.to_thread(_write, real, text)
    except OSError as exc:
        raise ToolFailed(f"{real}: {exc.strerror}") from None


def _umask() -> int:
    """The process umask, read without setting it (os.umask would race other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _write(real: str, text: str) -> None:
    """Write `text` in the file's present encoding (UTF-8 for a new file)."""
    encoding = encoding_of(_read_bytes(real)) if os.path.isfile(real) else "utf-8"
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        raise ToolFailed(
            f"{real}: the new text cannot be written in the file's encoding ({encoding})"
        ) from None
    os.makedirs(os.path.dirname(real), exist_ok=True)
    try:
        before: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        before = None
    tmp = f"{real}.reasonix-{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            # The replaced file's mode and, where allowed, owner; a new file gets the umask's.
            if before is not None:
                os.fchmod(fh.fileno(), stat.S_IMODE(before.st_mode))
                with contextlib.suppress(OSError):
                    os.fchown(fh.fileno(), before.st_uid, before.st_gid)
            else:
                os.fchmod(fh.fileno(), 0o666 & ~_umask())
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class WriteFile:
    name = "write"
    kind = "edit"
    access = "write"
    schema = function_schema(
        "write",
        "Create or replace a text file with `content`.",
        {"path": {"type": "string"}, "content": {"type": "string"}},
        ["path", "content"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(string_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Write {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def proposed(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """The change it would make, as `diff` content (`oldText: null`: a new file)."""
        real = judged_target(self, args, ctx)
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolFailed("`content` must be a string")
        old = await _load(ctx, real) if os.path.isfile(real) else None
        return {"type": "diff", "path": real, "oldText": old, "newText": content}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        diff = await self.proposed(args, ctx)
        real = diff["path"]
        await _store(ctx, real, diff["newText"])
        verb = "created" if diff["oldText"] is None else "replaced"
        return ToolResult(text=f"{verb} {ctx.workspace.display(real)}", content=[diff])


class EditFile:
    name = "edit"
    kind = "edit"
    access = "write"
    schema = function_schema(
        "edit",
        "Replace exact text in a file. Each `old_text` must occur exactly once.",
        {
            "path": {"type": "string"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"old_text": {"type": "string"}, "new_text": {"type": "string"}},
                    "required": ["old_text", "new_text"],
                },
            },
        },
        ["path", "edits"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(string_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Edit {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def proposed(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """The change it would make, as `diff` content; ToolFailed when an edit cannot apply."""
        real = judged_target(self, args, ctx)
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolFailed("`edits` must be a non-empty list")
        old = await _load(ctx, real)
        # A file with CRLF line ends is edited as LF text and written back with CRLF.
        crlf = "\r\n" in old and old.count("\r\n") == old.count("\n")
        new = old.replace("\r\n", "\n") if crlf else old
        for i, edit in enumerate(edits):
            if (
                not isinstance(edit, dict)
                or not isinstance(edit.get("old_text"), str)
                or not isinstance(edit.get("new_text"), str)
            ):
                raise ToolFailed(f"edits[{i}] needs `old_text` and `new_text` strings")
            if crlf:
                edit = {k: edit[k].replace("\r\n", "\n") for k in ("old_text", "new_text")}
            count = new.count(edit["old_text"]) if edit["old_text"] else 0
            if count != 1:
                raise ToolFailed(
                    f"edits[{i}]: `old_text` occurs {count} times; it must occur exactly once"
                )
            new = new.replace(edit["old_text"], edit["new_text"], 1)
        if crlf:
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        return {"type": "diff", "path": real, "oldText": old, "newText": new}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        diff = await self.proposed(args, ctx)
        real = diff["path"]
        await _store(ctx, real, diff["newText"])
        shown = ctx.workspace.display(real)
        return ToolResult(
            text=f"edited {shown} ({counted(len(args['edits']), 'replacement')})", content=[diff]
        )


FILE_TOOLS: list[Any] = [ReadFile(), *SEARCH_TOOLS, WriteFile(), EditFile()]
