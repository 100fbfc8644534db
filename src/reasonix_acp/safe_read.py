"""Reading a file the agent opens on its own (a file linked in a prompt, project instructions,
skills, command files, config.toml): a regular file only, without blocking, a bounded amount.

A FIFO opened for reading blocks until a writer comes, and a device may never end: the file is
opened with O_NONBLOCK (a FIFO then opens at once), checked with fstat on the open descriptor
(what was opened, not what the path named a moment earlier), refused unless it is a regular
file, and read to at most `limit` bytes. Nothing under /proc, /dev or /sys is read at all: the
"regular" files there are a process's environment, memory and the like.
"""

from __future__ import annotations

import errno
import os
import stat

SYSTEM = ("/proc", "/dev", "/sys")


class NotRegular(OSError):
    """Not read: the path is not a regular file (a FIFO, a device, a directory, a socket) or it
    is under /proc, /dev or /sys. `strerror` says which."""


def system_path(real: str) -> bool:
    """Whether the real path `real` is under /proc, /dev or /sys."""
    return any(real == top or real.startswith(top + "/") for top in SYSTEM)


def read_regular(
    path: str | os.PathLike[str], limit: int, follow: bool = True
) -> tuple[int, bytes]:
    """(the file's size, its first `limit` bytes). `follow=False`: a link at `path` itself is
    refused (O_NOFOLLOW; for a path whose links were already resolved and checked). Raises
    NotRegular for a file that is not read, and OSError when it cannot be opened."""
    if system_path(os.path.realpath(path)):
        raise NotRegular(errno.EPERM, "a system file (under /proc, /dev or /sys)", str(path))
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        chunks: list[bytes] = []
        left = max(limit, 0)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return info.st_size, b"".join(chunks)
