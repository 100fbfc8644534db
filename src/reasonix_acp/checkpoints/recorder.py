"""One turn's checkpoint: the bytes each file had before the turn first changed it.

A write or an edit keeps its file first (`keep`); the first command of the turn keeps every
file the checkpoint watches under the session's roots (`snapshot`, checkpoints/scan.py), as a
command may change any of them. At the turn's end (`finish`) each kept file is read again:
those whose bytes differ (or that appeared or went away) are the turn's changes, each with the
digest before (None: it did not exist) and after.

Only files under the session's roots are kept (`Roots`: its cwd and additional directories,
real paths; not its temp directory, the session's own scratch): a write the user allowed
outside them (`~/.aws/credentials`, say), or any under danger-full-access, never puts that
file's bytes in the blob store, as a copy of a secret outside the workspace would be one in
the agent's store; its change is named "not kept (outside the workspace)". Changes a command
made outside the roots are not seen.

What cannot be kept is named, never silently skipped: a file outside the roots, over the size
bound, one that may hold secrets (a deny rule's, `.env`, keys), past the session's byte budget,
or more files than a checkpoint watches.

Links (checkpoints/places.py): a file is read from `/` down without following a link, so a
checkpoint never reads a file elsewhere through one (a secret outside would land in the blob
store). A link is not kept (its change is named, "a link"), nor is a file reached through one
("reached through a link: <where>"), nor a file with other names ("a hard link": its bytes may
be a file's outside the roots), nor one the blob store refuses (a link in it). Such a file's
state is an UNKEPT one, so it is never a change a rewind acts on.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from reasonix_acp.checkpoints import places
from reasonix_acp.checkpoints.blobs import MAX_BLOB, Blobs
from reasonix_acp.checkpoints.scan import TooMany, listed

MAX_FILE = MAX_BLOB  # the blob store's bound: a blob is never larger
MAX_FILES = 20_000
SESSION_BYTES = 512 * 1024 * 1024
SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", ".netrc", ".pgpass")
UNKEPT = "-"  # starts the state of a file that cannot be kept: "-<stat>|<why>"


@dataclass(frozen=True)
class Roots:
    """Where checkpoints keep files: under `kept` (the real paths of the session's cwd and
    additional directories), never under `temp` (the session's temp directory, real)."""

    kept: tuple[str, ...]
    temp: str = ""

    def away(self, path: str) -> str | None:
        """Why `path` (a real path) is not one checkpoints keep; None when it is."""
        if self.temp and _under(path, self.temp):
            return "in the session's temp directory"
        if not any(_under(path, root) for root in self.kept):
            return "outside the workspace"
        return None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True)
class Change:
    """A file the turn changed: its digests before and after (None: absent), its mode before."""

    path: str
    before: str | None
    after: str | None
    mode: int | None


@dataclass
class Shadow:
    """What a session's checkpoints know across turns: each file's digest by its stat (so a
    file unchanged since it was last kept is not read again) and the bytes kept so far."""

    blobs: Blobs
    cache: dict[str, tuple[tuple[int, int, int], str]] = field(default_factory=dict)
    kept_bytes: int = 0


class Recorder:
    def __init__(
        self, shadow: Shadow, roots: Callable[[], Roots], denied: Callable[[str], bool]
    ) -> None:
        self.shadow = shadow
        self.roots = roots
        self._here: Roots | None = None  # the roots for the whole turn, found on first use
        self.denied = denied
        self.before: dict[str, tuple[str | None, int | None]] = {}
        self.untracked: list[str] = []
        self.scanned = False

    def keep(self, path: str) -> None:
        """Before a write to `path`: its bytes now, unless kept already this turn."""
        with places.Dirs() as dirs:
            self._keep(dirs, path)

    def _keep(self, dirs: places.Dirs, path: str) -> None:
        if path not in self.before:
            self.before[path] = self._state(dirs, path)

    def snapshot(self) -> None:
        """Before the turn's first command: every watched file under the roots."""
        if self.scanned:
            return
        self.scanned = True
        with places.Dirs() as dirs:
            for path in sorted(self._watched()):
                self._keep(dirs, path)

    def finish(self) -> list[Change]:
        """The turn's changes, in path order (each kept file read again)."""
        paths = set(self.before)
        if self.scanned:
            paths.update(self._watched())
        changes = []
        with places.Dirs() as dirs:
            for path in sorted(paths):
                before, mode = self.before.get(path, (None, None))
                after, _ = self._state(dirs, path)
                if before == after:
                    continue
                unkept = next((s for s in (before, after) if s and s.startswith(UNKEPT)), None)
                if unkept is not None:
                    self._untracked(f"{path}: changed, {unkept.partition('|')[2]}")
                    continue
                if before is not None and not self.shadow.blobs.has(before):
                    self._untracked(f"{path}: its earlier bytes are gone")
                    continue
                changes.append(Change(path, before, after, mode))
        return changes

    @property
    def here(self) -> Roots:
        """The session's roots, as they were when the turn first needed them (a snapshot and
        the turn's end watch the same files)."""
        if self._here is None:
            self._here = self.roots()
        return self._here

    def _watched(self) -> list[str]:
        found: list[str] = []
        for root in self.here.kept:
            try:
                found += listed(root, MAX_FILES - len(found))
            except TooMany as exc:
                self._untracked(f"commands' changes: {exc}")
                return found
        return found

    def _state(self, dirs: places.Dirs, path: str) -> tuple[str | None, int | None]:
        """(digest, mode) of the file now; (None, None) when absent; for one that cannot be
        kept, UNKEPT with its stat and why (a change to it is named by `finish`)."""
        try:
            info = places.lstat(dirs, path)
        except OSError as exc:  # places.Linked: a link on the way
            return f"{UNKEPT}|not kept ({self.here.away(path) or exc.strerror or exc})", None
        if info is None or stat.S_ISDIR(info.st_mode):
            return None, None
        mode = stat.S_IMODE(info.st_mode)
        signature = (info.st_size, info.st_mtime_ns, info.st_ino)
        why = self._unkeepable(path, info)
        if why:
            return f"{UNKEPT}{signature}|{why}", mode
        cached = self.shadow.cache.get(path)
        if cached is not None and cached[0] == signature:
            return cached[1], mode
        try:
            info, data = places.read(dirs, path, MAX_FILE + 1)
        except OSError as exc:  # gone, or a link swapped in since the stat
            return f"{UNKEPT}{signature}|not kept ({exc.strerror or exc})", mode
        signature = (info.st_size, info.st_mtime_ns, info.st_ino)
        why = self._unkeepable(path, info)  # what was opened, not what the stat saw
        if not why and len(data) != info.st_size:
            why = "not kept (it changed while it was read)"
        if why:
            return f"{UNKEPT}{signature}|{why}", mode
        try:
            digest, added = self.shadow.blobs.put(data)
        except OSError as exc:  # the blob store refused (a link in it) or failed: named
            return f"{UNKEPT}{signature}|not kept ({exc.strerror or exc})", mode
        self.shadow.kept_bytes += len(data) if added else 0
        self.shadow.cache[path] = (signature, digest)
        return digest, mode

    def _unkeepable(self, path: str, info: os.stat_result) -> str | None:
        away = self.here.away(path)
        if away:
            return f"not kept ({away})"
        if stat.S_ISLNK(info.st_mode):
            return "not kept (a link)"
        if not stat.S_ISREG(info.st_mode):
            return "not a file"
        if info.st_nlink > 1:
            return "not kept (it has other names: a hard link)"
        name = os.path.basename(path)
        if self.denied(path) or any(fnmatch.fnmatch(name, p) for p in SECRET_NAMES):
            return "not kept (it may hold secrets)"
        if info.st_size > MAX_FILE:
            return f"not kept (over {MAX_FILE // (1024 * 1024)} MB)"
        if self.shadow.kept_bytes + info.st_size > SESSION_BYTES:
            return f"not kept (the session's checkpoints hold {SESSION_BYTES // 2**20} MB)"
        return None

    def _untracked(self, note: str) -> None:
        if note not in self.untracked:
            self.untracked.append(note)
