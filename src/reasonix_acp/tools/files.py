"""File tools: read (line windows), list, glob, grep, write, edit (exact replacements).

Each declares the access it needs for the path it touches (`access`), which the turn runner
checks against the session's preset before running it; the tools themselves only do the work.
Writes and edits return `diff` content (`oldText: null` for a new file). Reads and writes go
through the client's file system when it offers one (tools/bridge.py).
"""

from __future__ import annotations

import os
import re
from typing import Any

from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult

MAX_LINES = 2000
MAX_LIST = 500
MAX_MATCHES = 200


def _fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _path_arg(args: dict[str, Any], key: str = "path", default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str) or not value:
        raise ToolFailed(f"`{key}` must be a non-empty string")
    return value


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


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
        with open(real, "rb") as fh:
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
    schema = _fn(
        "read",
        "Read a text file. `offset` is the first line (1-based), `limit` the number of lines.",
        {"path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
        ["path"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(_path_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Read {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        loc: dict[str, Any] = {"path": self.target(args, ctx)}
        if isinstance(args.get("offset"), int) and args["offset"] > 1:
            loc["line"] = args["offset"]
        return [loc]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = self.target(args, ctx)
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
            text=text, content=_text(text), raw_output={"lines": len(window), "total": len(lines)}
        )


class ListDir:
    name = "list"
    kind = "read"
    access = "read"
    schema = _fn(
        "list", "List a directory (default: the workspace root).", {"path": {"type": "string"}}, []
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(_path_arg(args, default="."))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"List {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = self.target(args, ctx)
        try:
            entries = sorted(os.scandir(real), key=lambda e: e.name)
        except OSError as exc:
            raise ToolFailed(f"{real}: {exc.strerror}") from None
        names = [e.name + ("/" if e.is_dir() else "") for e in entries[:MAX_LIST]]
        if len(entries) > MAX_LIST:
            names.append(f"[... {len(entries) - MAX_LIST} more]")
        text = "\n".join(names) or "(empty)"
        return ToolResult(text=text, content=_text(text), raw_output={"entries": len(entries)})


class Glob:
    name = "glob"
    kind = "search"
    access = "read"
    schema = _fn(
        "glob",
        "Find files by a glob pattern relative to the workspace, such as src/**/*.py.",
        {"pattern": {"type": "string"}},
        ["pattern"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        pattern = _path_arg(args, "pattern")
        fixed = (
            pattern.split("*", 1)[0].split("?", 1)[0].rsplit("/", 1)[0] if "/" in pattern else "."
        )
        return ctx.workspace.resolve(fixed or "/")

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Find {args.get('pattern', '')}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        import glob as globbing

        pattern = _path_arg(args, "pattern")
        root = pattern if os.path.isabs(pattern) else os.path.join(ctx.cwd, pattern)
        found = sorted(globbing.glob(root, recursive=True))
        names = [ctx.workspace.display(os.path.realpath(p)) for p in found[:MAX_LIST]]
        if len(found) > MAX_LIST:
            names.append(f"[... {len(found) - MAX_LIST} more]")
        text = "\n".join(names) or "no matches"
        return ToolResult(text=text, content=_text(text), raw_output={"matches": len(found)})


class Grep:
    name = "grep"
    kind = "search"
    access = "read"
    schema = _fn(
        "grep",
        "Search files under a directory for a regular expression; returns path:line: text.",
        {"pattern": {"type": "string"}, "path": {"type": "string"}},
        ["pattern"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(_path_arg(args, default="."))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return (
            f"Search {args.get('pattern', '')!r} in {ctx.workspace.display(self.target(args, ctx))}"
        )

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            pattern = re.compile(_path_arg(args, "pattern"))
        except re.error as exc:
            raise ToolFailed(f"bad pattern: {exc}") from None
        root = self.target(args, ctx)
        hits: list[str] = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                try:
                    with open(path, encoding="utf-8") as fh:
                        for n, line in enumerate(fh, 1):
                            if pattern.search(line):
                                hits.append(f"{ctx.workspace.display(path)}:{n}: {line.rstrip()}")
                                if len(hits) >= MAX_MATCHES:
                                    break
                except (OSError, UnicodeDecodeError):
                    continue
                if len(hits) >= MAX_MATCHES:
                    break
            if len(hits) >= MAX_MATCHES:
                break
        text = "\n".join(hits) or "no matches"
        return ToolResult(text=text, content=_text(text), raw_output={"matches": len(hits)})


async def _load(ctx: ToolContext, real: str) -> str:
    if ctx.files is not None:
        text = await ctx.files.read(real)
        if text is not None:
            return str(text)
    return _read_text(real)


async def _store(ctx: ToolContext, real: str, text: str) -> None:
    if ctx.files is not None and await ctx.files.write(real, text):
        return
    try:
        _write(real, text)
    except OSError as exc:
        raise ToolFailed(f"{real}: {exc.strerror}") from None


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
    tmp = real + ".reasonix-tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, real)


class WriteFile:
    name = "write"
    kind = "edit"
    access = "write"
    schema = _fn(
        "write",
        "Create or replace a text file with `content`.",
        {"path": {"type": "string"}, "content": {"type": "string"}},
        ["path", "content"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(_path_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Write {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = self.target(args, ctx)
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolFailed("`content` must be a string")
        old = await _load(ctx, real) if os.path.isfile(real) else None
        await _store(ctx, real, content)
        diff = {"type": "diff", "path": real, "oldText": old, "newText": content}
        verb = "created" if old is None else "replaced"
        return ToolResult(text=f"{verb} {ctx.workspace.display(real)}", content=[diff])


class EditFile:
    name = "edit"
    kind = "edit"
    access = "write"
    schema = _fn(
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
        return ctx.workspace.resolve(_path_arg(args))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Edit {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = self.target(args, ctx)
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolFailed("`edits` must be a non-empty list")
        old = await _load(ctx, real)
        new = old
        for i, edit in enumerate(edits):
            if (
                not isinstance(edit, dict)
                or not isinstance(edit.get("old_text"), str)
                or not isinstance(edit.get("new_text"), str)
            ):
                raise ToolFailed(f"edits[{i}] needs `old_text` and `new_text` strings")
            count = new.count(edit["old_text"]) if edit["old_text"] else 0
            if count != 1:
                raise ToolFailed(
                    f"edits[{i}]: `old_text` occurs {count} times; it must occur exactly once"
                )
            new = new.replace(edit["old_text"], edit["new_text"], 1)
        await _store(ctx, real, new)
        diff = {"type": "diff", "path": real, "oldText": old, "newText": new}
        return ToolResult(
            text=f"edited {ctx.workspace.display(real)} ({len(edits)} replacements)", content=[diff]
        )


FILE_TOOLS: list[Any] = [ReadFile(), ListDir(), Glob(), Grep(), WriteFile(), EditFile()]
