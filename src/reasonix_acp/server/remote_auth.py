"""Who may reach `acp serve` (server/listen.py): a bearer token on every request and upgrade,
no browser page, and failures that cost the one who fails.

Rules:
- The token is `REASONIX_ACP_TOKEN` when set, else the one in the token file (`serve-token` in
  the config directory), made with 32 random bytes and mode 0600 on first run. A token file that
  others may read, or a token shorter than MIN_TOKEN characters, is refused: the server does not
  start.
- A request is admitted only with `Authorization: Bearer <token>`, compared in constant time.
  The token is never taken from the URL or a cookie, and never written to any output or log.
- A request that carries an `Origin` header is refused (403) unless that origin was allowed
  (`--allow-origin`): a page in a browser always sends one, an editor or `acp connect` never
  does, so a web page the user visits cannot reach an agent on their loopback.
- Each failed attempt from an address makes that address's next refusal slower (FAIL_DELAY
  doubling up to FAIL_DELAY_MAX, forgotten after FAIL_WINDOW seconds without one), so guessing
  costs time, not just requests.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import time
from pathlib import Path

TOKEN_VARIABLE = "REASONIX_ACP_TOKEN"
TOKEN_FILE = "serve-token"
MIN_TOKEN = 16
FAIL_DELAY = 0.25
FAIL_DELAY_MAX = 5.0
FAIL_WINDOW = 60.0
MAX_TRACKED = 4096  # addresses whose failures are remembered at once


class TokenError(Exception):
    """The token cannot be had safely; the message says what to do."""


def load_token(config_dir: Path) -> tuple[str, str]:
    """(token, where it came from: the variable's name or the file's path)."""
    given = os.environ.get(TOKEN_VARIABLE, "").strip()
    if given:
        if len(given) < MIN_TOKEN:
            raise TokenError(f"{TOKEN_VARIABLE} is shorter than {MIN_TOKEN} characters")
        return given, TOKEN_VARIABLE
    path = config_dir / TOKEN_FILE
    try:
        return _read(path), str(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by another `acp serve` starting at the same moment
        return _read(path), str(path)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    return _read(path), str(path)


def _read(path: Path) -> str:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenError(
            f"{path} may be read by other users (mode {stat.S_IMODE(mode):o}); "
            f"`chmod 600 {path}` or remove it to have a new one made"
        )
    token = path.read_text(encoding="ascii").strip()
    if len(token) < MIN_TOKEN:
        raise TokenError(f"{path} holds a token shorter than {MIN_TOKEN} characters")
    return token


class Gate:
    """The checks every request and upgrade passes before anything else is read."""

    def __init__(self, token: str, origins: list[str] | None = None) -> None:
        self._expected = f"Bearer {token}".encode()
        self.origins = {o.rstrip("/") for o in origins or []}
        self._failures: dict[str, tuple[int, float]] = {}  # address → (count, last)

    def refusal(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        """(status, reason) to refuse with, or None when the request may go on. `headers`:
        lower-case names."""
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1").rstrip("/") not in self.origins:
            return 403, "requests from web pages are not accepted (Origin)"
        given = headers.get(b"authorization", b"")
        if not hmac.compare_digest(given, self._expected):
            return 401, "a bearer token is needed (Authorization: Bearer ...)"
        return None

    def failed(self, address: str) -> float:
        """Count a failure from `address`; the seconds its refusal should wait."""
        now = time.monotonic()
        count, last = self._failures.get(address, (0, now))
        count = 1 if now - last > FAIL_WINDOW else count + 1
        if len(self._failures) >= MAX_TRACKED and address not in self._failures:
            self._forget(now)
        self._failures[address] = (count, now)
        return float(min(FAIL_DELAY * 2 ** (count - 1), FAIL_DELAY_MAX))

    def _forget(self, now: float) -> None:
        stale = [a for a, (_, last) in self._failures.items() if now - last > FAIL_WINDOW]
        for address in stale or list(self._failures)[: MAX_TRACKED // 2]:
            del self._failures[address]
