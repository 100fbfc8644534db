"""Search and listing tools: list, glob, grep.

Each is judged twice. Before it runs, the gate judges the directory it searches (`target`: for
glob, the pattern's fixed part after `..` in it is resolved, so `s*/../../x/*` is judged as
`../x`), and that real directory is the one searched: a path that leads elsewhere by the time
the call runs (a link swapped while the user was asked) fails it (tools/base.py
`judged_target`). While it runs, every result is judged after `realpath` against the judged
directory (Workspace.reports): one outside the roots (and outside that directory) or matched by
a deny rule is left out, and the answer says how many were. Symbolic links to directories are
not followed.

The walk runs in a worker thread, so the event loop keeps answering (`session/cancel`,
`session/list`) during a search over a big tree; a cancel stops it at the next file. Results,
bytes read and entries visited are bounded.

A pattern that is not valid (a glob's reversed range `[z-a]`, a regular expression that does not
compile) fails the call with a message naming it and what is wrong, before anything is read.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.redact import scrub_known
from reasonix_acp.tools.base import (
    ToolContext,
    ToolFailed,
    ToolResult,
    function_schema,
    judged_target,
    string_arg,
    text_content,
)
from reasonix_acp.tools.workspace import Workspace

MAX_LIST = 500
MAX_MATCHES = 200
MAX_VISITED = 200_000  # directory entries a glob or grep looks at
MAX_SCANNED = 256 * 1024 * 1024  # bytes a grep reads
MAX_FILE = 16 * 1024 * 1024  # a bigger file is not searched
MAX_LINE = 400  # characters of a matching line shown


@dataclass
class Tally:
    """What a search left out, and why; said in its answer."""

    outside: int = 0
    denied: int = 0
    notes: list[str] = field(default_factory=list)

    def judge(self, workspace: Workspace, real: str, searched: str) -> bool:
        why = workspace.reports(real, searched)
        if why == "outside":
            self.outside += 1
        elif why == "denied":
            self.denied += 1
        return not why

    def said(self) -> str:
        parts = list(self.notes)
        if self.outside:
            parts.append(f"{self.outside} results outside the workspace were skipped")
        if self.denied:
            parts.append(f"{self.denied} results denied by deny_paths were skipped")
        return "".join(f"\n[{p}]" for p in parts)

    def raw(self) -> dict[str, int]:
        return {"skippedOutside": self.outside, "skippedDenied": self.denied}


async def off_loop(work: Callable[[threading.Event], ToolResult]) -> ToolResult:
    """Run `work` in a thread; a cancel returns at once and tells the thread to stop."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    finally:
        stop.set()


def walk(root: str, stop: threading.Event, tally: Tally) -> Iterator[tuple[str, list[str]]]:
    """(directory, its file names), depth first in name order, hidden directories and symbolic
    links to directories skipped, at most MAX_VISITED entries."""
    visited = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if stop.is_set():
            return
        visited += len(dirnames) + len(filenames)
        if visited > MAX_VISITED:
            tally.notes.append(f"stopped after {MAX_VISITED} entries")
            return
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        yield dirpath, sorted(filenames)


class ListDir:
    name = "list"
    kind = "read"
    access = "read"
    schema = function_schema(
        "list", "List a directory (default: the workspace root).", {"path": {"type": "string"}}, []
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(string_arg(args, "path", "."))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"List {ctx.workspace.display(self.target(args, ctx))}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        real = judged_target(self, args, ctx)
        return await off_loop(lambda stop: self._list(real, ctx.workspace))

    def _list(self, real: str, workspace: Workspace) -> ToolResult:
        try:
            entries = sorted(os.scandir(real), key=lambda e: e.name)
        except OSError as exc:
            raise ToolFailed(f"{real}: {exc.strerror}") from None
        tally = Tally()
        shown = [e for e in entries if tally.judge(workspace, os.path.realpath(e.path), real)]
        names = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in shown]
        if len(names) > MAX_LIST:
            names = [*names[:MAX_LIST], f"[... {len(names) - MAX_LIST} more]"]
        text = ("\n".join(names) or "(empty)") + tally.said()
        raw = {"entries": len(shown), **tally.raw()}
        return ToolResult(text=text, content=text_content(text), raw_output=raw)


def split_pattern(pattern: str, cwd: str) -> tuple[str, str]:
    """(the fixed directory, the rest): `..` resolved first, so nothing climbs out unseen."""
    joined = os.path.normpath(pattern if os.path.isabs(pattern) else os.path.join(cwd, pattern))
    parts = joined.split(os.sep)
    fixed = next((i for i, p in enumerate(parts) if re.search(r"[*?\[]", p)), len(parts) - 1)
    return os.sep.join(parts[:fixed]) or os.sep, "/".join(parts[fixed:])


def _bracket(pattern: str, i: int) -> tuple[str, int] | None:
    """The set that starts at `pattern[i]` (`[`) as a regex class and the index after it, or
    None when it has no end (the `[` is then a plain character). As a shell reads it: `!` or
    `^` first negates, a `]` right after that is one of the characters. ValueError names a
    reversed range."""
    j = i + 1
    negate = pattern[j : j + 1] in ("!", "^")
    j += negate + (pattern[j + negate : j + negate + 1] == "]")
    end = pattern.find("]", j)
    if end < 0:
        return None
    body = pattern[i + 1 + negate : end]
    out, k = [], 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low > high:
                whole = pattern[i : end + 1]
                raise ValueError(f"the range {low}-{high} in {whole} is reversed")
            out.append(f"{re.escape(low)}-{re.escape(high)}")
            k += 3
        else:
            out.append(re.escape(body[k]))
            k += 1
    return ("[^/" if negate else "[") + "".join(out) + "]", end + 1


def translate(pattern: str) -> re.Pattern[str]:
    """A glob over `/`-separated relative paths: `**` any depth, `*` and `?` within a name,
    `[...]` one character of a set. ValueError says what makes `pattern` invalid."""
    out, i = [], 0
    while i < len(pattern):
        bracket = _bracket(pattern, i) if pattern[i] == "[" else None
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif bracket is not None:
            out.append(bracket[0])
            i = bracket[1]
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    try:
        return re.compile("".join(out) + r"\Z", re.S)
    except (re.error, OverflowError, RecursionError) as exc:  # a translation not foreseen
        raise ValueError(getattr(exc, "msg", str(exc))) from None


class Glob:
    name = "glob"
    kind = "search"
    access = "read"
    schema = function_schema(
        "glob",
        "Find files by a glob pattern relative to the workspace, such as src/**/*.py.",
        {"pattern": {"type": "string"}},
        ["pattern"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return os.path.realpath(split_pattern(string_arg(args, "pattern"), ctx.cwd)[0])

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """The pattern, and the real directory searched where a link on the way leads
        elsewhere than the pattern reads (`keys/*`, `keys` a link to ~/.ssh)."""
        pattern = args.get("pattern", "")
        if not isinstance(pattern, str) or not pattern:
            return f"Find {pattern}"
        real = self.target(args, ctx)
        if real == split_pattern(pattern, os.path.realpath(ctx.cwd))[0]:
            return f"Find {pattern}"
        return f"Find {pattern} in {ctx.workspace.display(real)}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = string_arg(args, "pattern")
        fixed, rest = split_pattern(pattern, ctx.cwd)
        try:
            matcher = translate(rest)
        except ValueError as exc:
            raise ToolFailed(f"glob: {pattern!r} is not a valid pattern: {exc}") from None
        real = judged_target(self, args, ctx)
        return await off_loop(lambda stop: self._glob(fixed, matcher, real, ctx.workspace, stop))

    def _glob(
        self,
        fixed: str,
        matcher: re.Pattern[str],
        real: str,
        workspace: Workspace,
        stop: threading.Event,
    ) -> ToolResult:
        tally = Tally()
        found: list[str] = []
        for dirpath, filenames in walk(fixed, stop, tally):
            base = os.path.relpath(dirpath, fixed)
            for name in filenames + ([] if dirpath == fixed else [""]):
                rel = os.path.join(base, name) if base != "." else name
                if not rel or not matcher.match(rel.rstrip("/").replace(os.sep, "/")):
                    continue
                path = os.path.join(dirpath, name).rstrip(os.sep)
                if tally.judge(workspace, os.path.realpath(path), real):
                    found.append(workspace.display(os.path.realpath(path)))
        found = sorted(set(found))
        names = found[:MAX_LIST] + (
            [f"[... {len(found) - MAX_LIST} more]"] if len(found) > MAX_LIST else []
        )
        text = ("\n".join(names) or "no matches") + tally.said()
        return ToolResult(
            text=text, content=text_content(text), raw_output={"matches": len(found), **tally.raw()}
        )


class Grep:
    name = "grep"
    kind = "search"
    access = "read"
    schema = function_schema(
        "grep",
        "Search files under a directory for a regular expression; returns path:line: text.",
        {"pattern": {"type": "string"}, "path": {"type": "string"}},
        ["pattern"],
    )

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(string_arg(args, "path", "."))

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        where = ctx.workspace.display(self.target(args, ctx))
        return f"Search {args.get('pattern', '')!r} in {where}"

    def locations(self, args: dict[str, Any], ctx: ToolContext) -> list[dict[str, Any]]:
        return [{"path": self.target(args, ctx)}]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        given = string_arg(args, "pattern")
        try:
            pattern = re.compile(given)
        except re.error as exc:
            raise ToolFailed(f"grep: {given!r} is not a valid regular expression: {exc}") from None
        except (OverflowError, RecursionError) as exc:  # a repeat count too big, too deep a nest
            reason = str(exc) if isinstance(exc, OverflowError) else "it is nested too deeply"
            raise ToolFailed(
                f"grep: {given!r} is not a valid regular expression: {reason}"
            ) from None
        root = judged_target(self, args, ctx)
        return await off_loop(lambda stop: self._grep(pattern, root, ctx.workspace, stop))

    def _files(self, root: str, stop: threading.Event, tally: Tally) -> Iterator[str]:
        if os.path.isfile(root):
            yield root
            return
        for dirpath, filenames in walk(root, stop, tally):
            for name in filenames:
                yield os.path.join(dirpath, name)

    def _grep(
        self, pattern: re.Pattern[str], root: str, workspace: Workspace, stop: threading.Event
    ) -> ToolResult:
        tally = Tally()
        hits: list[str] = []
        scanned = 0
        for path in self._files(root, stop, tally):
            real = os.path.realpath(path)
            if stop.is_set() or not tally.judge(workspace, real, root):
                continue
            try:
                info = os.stat(real)
                size = info.st_size
                if (
                    not stat.S_ISREG(info.st_mode)
                    or size > MAX_FILE
                    or scanned + size > MAX_SCANNED
                ):
                    continue  # a FIFO or device would block the search, or never end
                scanned += size
                with open(real, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if pattern.search(line):
                            shown = scrub_known(line.rstrip())[:MAX_LINE]  # cut once scrubbed
                            hits.append(f"{workspace.display(path)}:{n}: {shown}")
                            if len(hits) >= MAX_MATCHES:
                                break
            except (OSError, UnicodeDecodeError):
                continue
            if len(hits) >= MAX_MATCHES:
                tally.notes.append(f"stopped at {MAX_MATCHES} matches")
                break
        text = ("\n".join(hits) or "no matches") + tally.said()
        return ToolResult(
            text=text, content=text_content(text), raw_output={"matches": len(hits), **tally.raw()}
        )


SEARCH_TOOLS: list[Any] = [ListDir(), Glob(), Grep()]
