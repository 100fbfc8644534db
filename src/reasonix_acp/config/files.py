"""config.toml on disk: where it is, reading it, writing a private file in its place, and
`logout` taking the keys out of it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.dirs import user_dir
from reasonix_acp.safe_read import read_regular

if TYPE_CHECKING:
    from reasonix_acp.config.settings import Config

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
    """Why `path` cannot be read: the path, then the cause (a parse error's line and column)."""
    why = f"{path}: {exc.strerror if isinstance(exc, OSError) else exc}"
    if strict:  # a runtime reload keeps the configuration it has instead
        raise ValueError(why) from None
    return why


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


def clear_credentials(config: Config) -> list[str]:
    """`logout`: remove every `api_key` from config.toml; returns the providers cleared."""
    path = config.config_file
    cleared: list[str] = []
    if path is None or not path.is_file():
        return cleared
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    section = ""
    kept = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]")
        if stripped.split("=", 1)[0].strip() == "api_key":
            cleared.append(section.removeprefix("providers."))
            continue
        kept.append(line)
    write_private(path, "".join(kept))
    for name in cleared:
        if name in config.providers:
            config.providers[name].api_key = ""
    return cleared
