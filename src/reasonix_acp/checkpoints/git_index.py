"""A git index (`.git/index`) read in Python, for the paths it tracks (checkpoints/scan.py): the
format git documents (gitformat-index(5)), versions 2, 3 and 4, SHA-1 and SHA-256 repositories.

The file is data a command may have written: it is read as such, never trusted.

Rules:
- Header `DIRC`, a version of 2 to 4, the entry count; each entry's 40 bytes of stat data, its
  object name (20 or 32 bytes: whichever reads the whole file consistently), 16 bits of flags
  (and 16 more when the extended flag is set, version 3 and up), then its path: NUL-ended and
  padded to a multiple of 8 bytes (2 and 3), or a prefix of the previous path kept and a
  NUL-ended suffix (4).
- Only files: gitlinks (submodules) and sparse directory entries are left out; a path is given
  once whatever its stages.
- A path that is absolute, empty, has an empty, `.` or `..` component, or a NUL is refused, and
  with it the whole index (None): nothing read from it may lead outside the work tree.
- Anything that does not read as an index (bad header, an entry running past the end, a count
  that does not fit) is None: the caller lists by walking instead.
"""

from __future__ import annotations

import os
import struct

MAX_BYTES = 256 * 1024 * 1024  # an index larger than this is not read
_HEADER = struct.Struct(">4sII")
_STAT = 40  # ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size
_MODE = 24  # offset of the mode in an entry
GITLINK = 0o160000
DIRECTORY = 0o040000


class Unreadable(ValueError):
    """The bytes are not an index this reader understands."""


def paths(gitdir: str) -> list[str] | None:
    """The tracked paths (relative, `/`-separated) of the index in `gitdir`, or None."""
    try:
        with open(os.path.join(gitdir, "index"), "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_BYTES:
        return None
    for size in (20, 32):
        try:
            return parse(data, size)
        except Unreadable:
            continue
    return None


def parse(data: bytes, hash_size: int) -> list[str]:
    """The paths of an index whose object names are `hash_size` bytes; Unreadable otherwise."""
    if len(data) < _HEADER.size + hash_size:
        raise Unreadable("too short")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise Unreadable("not an index")
    end = len(data) - hash_size
    if count > (end - _HEADER.size) // (_STAT + hash_size + 3):
        raise Unreadable("more entries than bytes")
    names: list[bytes] = []
    at, previous = _HEADER.size, b""
    fixed = struct.Struct(f">{_MODE}xI{_STAT - _MODE - 4 + hash_size}xH")  # mode, flags
    for _ in range(count):
        start = at
        at += fixed.size
        if at > end:
            raise Unreadable("an entry runs past the end")
        mode, flags = fixed.unpack_from(data, start)
        if flags & 0x4000:
            if version < 3:
                raise Unreadable("an extended entry in a version 2 index")
            at += 2
        if version < 4:  # the path, NUL-ended and padded to a multiple of 8
            nul = data.find(b"\0", at, end)
            if nul < 0:
                raise Unreadable("a path with no end")
            name, at = data[at:nul], start + ((nul - start + 8) & ~7)
            if at > end:
                raise Unreadable("an entry runs past the end")
        else:
            name, at = _name(data, at, end, previous)
        previous = name
        if mode & 0o170000 not in (GITLINK, DIRECTORY):
            names.append(name)
    _extensions(data, at, end)
    return _checked(names)


def _name(data: bytes, at: int, end: int, previous: bytes) -> tuple[bytes, int]:
    """A version 4 entry's path (the previous path but its last N bytes, then a NUL-ended
    suffix) and where the entry ends."""
    strip, at = _varint(data, at, end)
    if strip > len(previous):
        raise Unreadable("a path that strips more than the previous one holds")
    nul = data.find(b"\0", at, end)
    if nul < 0:
        raise Unreadable("a path with no end")
    return previous[: len(previous) - strip] + data[at:nul], nul + 1


def _varint(data: bytes, at: int, end: int) -> tuple[int, int]:
    """git's offset encoding (each continuation adds one before shifting)."""
    if at >= end:
        raise Unreadable("a path prefix past the end")
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        if at >= end or value > 1 << 32:
            raise Unreadable("a path prefix past the end")
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _extensions(data: bytes, at: int, end: int) -> None:
    """What follows the entries: extensions (a 4-byte signature and a 32-bit size each), to
    exactly the trailing hash."""
    while at < end:
        if at + 8 > end:
            raise Unreadable("an extension header past the end")
        (size,) = struct.unpack_from(">I", data, at + 4)
        at += 8 + size
    if at != end:
        raise Unreadable("the extensions do not end at the trailing hash")


def _checked(names: list[bytes]) -> list[str]:
    """The paths, once each; Unreadable when one is empty or absolute, or has an empty, `.`
    or `..` component (one scan: the names framed by `/`, a NUL between two, which no name
    holds)."""
    framed = b"/" + b"/\0/".join(names) + b"/"
    for bad in (b"//", b"/./", b"/../"):
        if bad in framed:
            raise Unreadable("a path the index may not hold")
    joined = b"\0".join(dict.fromkeys(names))
    return joined.decode("utf-8", "surrogateescape").split("\0") if names else []
