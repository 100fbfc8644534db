"""Reaching the files checkpoints keep and put back without ever following a link.

The paths recording and restoring touch are real paths: the roots' real paths and what is
listed under them, a write's target after `realpath`. No link lies on one when it is kept, so
a link met on the way later was put there since (by a command, by hand), and may lead anywhere.

Rules (every operation of recorder.py and restore.py on a workspace file goes through here):
- A path is reached from `/` one component at a time: each directory is opened with
  O_NOFOLLOW | O_DIRECTORY relative to the descriptor of the one above it (O_PATH where the
  system has it: search permission is all it needs). A link on the way raises `Linked` naming
  it, and nothing is done. What is done then is done in the directory that was opened: one
  swapped for a link after it was opened changes nothing (there is no check-then-use).
- The file itself is only named relative to its directory's descriptor, by operations that do
  not follow a link there: stat without following, open with O_NOFOLLOW | O_NONBLOCK (then
  fstat: a regular file only; a FIFO never blocks), a fresh temporary name (O_CREAT | O_EXCL
  | O_NOFOLLOW) renamed over it, unlink. A link at the file raises `Linked` too: checkpoints keep
  no links, and a rewind never makes, follows, replaces or removes one.
- Directories a write needs are made one at a time (mkdir relative to the one above), then
  opened like any other: a link swapped in between is refused.
- `.`, `..` and empty components never appear in a real path: a path with one is refused.

`Dirs` keeps the descriptors along the last path reached (at most its depth), so a pass over
many files of one directory opens it once; a pass closes them when it ends.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from types import TracebackType

DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(OSError):
    """A path this module will not reach (not a real path, or a link on it)."""


class Linked(Refused):
    """`path` is reached through a link (`where`), or is one itself (`where == path`)."""

    def __init__(self, path: str, where: str) -> None:
        why = "it is a link now" if where == path else f"reached through a link: {where}"
        super().__init__(errno.ELOOP, why, path)
        self.where = where


class NotRegular(OSError):
    """Not read: what is at the path is not a regular file (a FIFO, a device, a socket)."""


class Dirs:
    """Directory descriptors from `/` down to the last directory reached (a context manager)."""

    def __init__(self) -> None:
        self.chain: list[tuple[str, int]] = []

    def __enter__(self) -> Dirs:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._cut(0)

    def parent(self, path: str, create: bool = False) -> tuple[int, str]:
        """(a descriptor of `path`'s directory, its last name). Raises Linked (a link on the
        way), FileNotFoundError (a directory missing, unless `create`), NotADirectoryError."""
        parts = path.split("/")
        if not path.startswith("/") or any(p in ("", ".", "..") for p in parts[1:]):
            raise Refused(errno.EINVAL, "not a real path", path)
        if not self.chain:
            self.chain.append(("/", os.open("/", DIR_FLAGS)))
        where = ""
        for depth, name in enumerate(parts[1:-1], start=1):
            where += "/" + name
            if len(self.chain) > depth and self.chain[depth][0] == where:
                continue
            self._cut(depth)
            self.chain.append((where, _open_dir(self.chain[-1][1], name, where, path, create)))
        self._cut(len(parts) - 1)
        return self.chain[-1][1], parts[-1]

    def _cut(self, depth: int) -> None:
        while len(self.chain) > depth:
            os.close(self.chain.pop()[1])


def _open_dir(fd: int, name: str, where: str, path: str, create: bool) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        raise _refusal(fd, name, where, path) from exc
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=fd)
    try:
        return os.open(name, DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        raise _refusal(fd, name, where, path) from exc


def _refusal(fd: int, name: str, where: str, path: str) -> OSError:
    """Why `where` could not be opened as a directory: a link, or the error itself."""
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError as exc:
        return exc
    if stat.S_ISLNK(info.st_mode):
        return Linked(path, where)
    return NotADirectoryError(errno.ENOTDIR, "not a directory", where)


def lstat(dirs: Dirs, path: str) -> os.stat_result | None:
    """The file's own stat (a link's, not its target's); None when there is nothing there.
    Raises Linked for a link on the way."""
    try:
        fd, name = dirs.parent(path)
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def read(dirs: Dirs, path: str, limit: int = -1) -> tuple[os.stat_result, bytes]:
    """(fstat, bytes) of the regular file at `path`, at most `limit` bytes (-1: all). Raises
    Linked (a link on the way or at it), NotRegular, OSError (absent, unreadable)."""
    fd, name = dirs.parent(path)
    try:
        file = os.open(name, READ_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Linked(path, path) from exc
        raise
    with os.fdopen(file, "rb") as fh:
        info = os.fstat(file)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", path)
        return info, fh.read(limit)


def write(dirs: Dirs, path: str, data: bytes, mode: int | None) -> None:
    """`path` holds `data` (and `mode`; 0600 when None): written to a fresh name beside it and
    renamed over it, its directories made where missing. Raises Linked; never replaces a link."""
    fd, name = dirs.parent(path, create=True)
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
            raise Linked(path, path)  # a link swapped in after this check is replaced, not followed
    tmp = f".{name}.reasonix-rewind-{os.getpid()}.tmp"
    try:
        file = os.open(tmp, NEW_FLAGS, 0o600, dir_fd=fd)
    except FileExistsError:  # a name left by a process lost with this pid
        os.unlink(tmp, dir_fd=fd)
        file = os.open(tmp, NEW_FLAGS, 0o600, dir_fd=fd)
    try:
        with os.fdopen(file, "wb") as fh:
            fh.write(data)
            if mode is not None:
                os.fchmod(file, mode)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise


def remove(dirs: Dirs, path: str) -> None:
    """No file at `path` (already none is fine). Raises Linked; never removes a link."""
    try:
        fd, name = dirs.parent(path)
        if stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
            raise Linked(path, path)
        os.unlink(name, dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        return
