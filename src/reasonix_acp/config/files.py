"""config.toml on disk: where it is, reading it, and writing a private file in its place."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from reasonix_acp.dirs import user_dir
from reasonix_acp.safe_read import read_regular

log = logging.getLogger("reasonix_acp.config")
MAX_BYTES = 4 * 1024 * 1024  # a config.toml larger than this is not read


def config_dir(env: dict[str, str] | None = None) -> Path:
    override = (os.environ if env is None else env).get("REASONIX_ACP_CONFIG_DIR")
    if override:
        return Path(override)
    return user_dir("config")


def read_table(path: Path, strict: bool = False) -> tuple[dict[str, Any], str | None]:
    """(the table, None), or ({}, why the file cannot be read: path, line, column, cause)."""
    try:  # a regular file only, never a FIFO to wait on (safe_read.py)
        size, data = read_regular(path, MAX_BYTES + 1)
        if size > MAX_BYTES or len(data) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES} bytes")
        text = data.decode("utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return {}, unreadable(path, exc, strict)
    # lazy: start-up (no file, no parser: a configuration from the environment alone)
    import tomllib

    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as exc:
        return {}, unreadable(path, exc, strict)


def unreadable(path: Path, exc: Exception, strict: bool) -> str:
    why = f"{path}: {exc.strerror if isinstance(exc, OSError) else exc}"
    if strict:  # a runtime reload keeps the configuration it has instead
        raise ValueError(why) from None
    log.warning("ignoring %s", why)
    return why


def bad_table(strict: bool, path: Path | None, what: str, exc: ValueError) -> None:
    if strict:  # a runtime reload keeps the configuration it has instead
        raise ValueError(f"{path}: {exc}") from None
    log.warning("ignoring %s of %s: %s", what, path, exc)


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text`, mode 0600 from the first byte: a fresh temp file (a leftover
    one, whatever its mode, is replaced), synced, then renamed over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
