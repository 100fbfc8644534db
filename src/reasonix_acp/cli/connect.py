"""`acp connect URL`: an editor's stdio ACP connection carried to a remote agent over a
WebSocket, so any editor that launches an agent command can use a remote agent unchanged.

Rules:
- stdout carries the agent's frames and the bridge's own answers, nothing else: it is claimed
  as the stdio agent claims it (server/stdio.py) before anything runs. Diagnostics go to stderr
  (`acp:` prefix, through the redacting log filter).
- The URL: `http://` becomes `ws://`, `https://` `wss://`; `ws://` and `wss://` are taken as
  given; anything else, or a URL carrying credentials (`user:pass@`), is a usage error (2).
- The token comes from REASONIX_ACP_TOKEN, or the variable `--token-env` names, and goes only
  into the upgrade's `Authorization: Bearer` header: never into the URL, a log line or an
  error (it is also remembered by redact.py, so a log line that would show it shows
  [redacted]). No token set: the connection is tried without one.
- TLS is verified against the system's CAs (`SSL_CERT_FILE` honoured), or against `--ca-file`
  alone when given.
- Exit status: 0 at end of input and after SIGTERM (the WebSocket closed with 1000), 130 after
  SIGINT, 1 when the link is gone for good (one line on stderr says why), 2 for a usage error.
  What the link does with frames, drops and reconnection: connect_link.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import logging
import os
import re
import ssl
import sys
import threading
import urllib.parse
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import process_exception
from websockets.exceptions import ConnectionClosed, InvalidStatus

from reasonix_acp import __version__
from reasonix_acp.cli.connect_link import Bridge, Fatal, Retry
from reasonix_acp.cli.usage import CONNECT
from reasonix_acp.protocol.errors import ParseError
from reasonix_acp.protocol.framing import (
    DEFAULT_LINE_LIMIT,
    READ_CHUNK,
    Event,
    LineFramer,
    Overflow,
    encode,
)
from reasonix_acp.protocol.messages import Ignored, Invalid, decode
from reasonix_acp.redact import remember, scrub
from reasonix_acp.server.stdio import STOP_SIGNALS, EarlyStop, claim_stdio, exit_status
from reasonix_acp.server.writer import Writer

log = logging.getLogger("reasonix_acp.cli.connect")

TOKEN_ENV = "REASONIX_ACP_TOKEN"
SCHEMES = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
OPTIONS = ("--token-env", "--ca-file", "--line-limit", "--log-level")
_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
EOF_GRACE = 2.0  # at end of input, how long requests in flight may still be answered
SETTLE = 1.0  # after a final failure, how long input already read gets to be answered
RETRY_CODES = frozenset({1001, 1006, 1011, 1012, 1013, 1014})  # closes worth reconnecting after
OPEN_TIMEOUT = 10.0
USER_AGENT = f"reasonix-acp/{__version__} (acp connect)"


class UsageError(Exception):
    pass


def parse_args(argv: list[str]) -> tuple[str, dict[str, str]]:
    """(URL, options by name without the dashes)."""
    args = list(argv)
    urls: list[str] = []
    opts: dict[str, str] = {}
    while args:
        arg = args.pop(0)
        if not arg.startswith("-"):
            urls.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name not in OPTIONS:
            raise UsageError(f"unknown option {name}")
        if not eq:
            if not args:
                raise UsageError(f"{name} needs a value")
            value = args.pop(0)
        opts[name[2:]] = value
    if len(urls) != 1:
        raise UsageError("give one URL, the remote agent's (e.g. https://host/acp)")
    return urls[0], opts


def websocket_url(url: str) -> str:
    """The ws:// or wss:// URL for `url`; UsageError when it cannot be one."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError as exc:
        raise UsageError(f"the URL does not parse: {exc}") from None
    scheme = SCHEMES.get(parts.scheme.lower())
    if scheme is None:
        raise UsageError("the URL must start with https://, http://, wss:// or ws://")
    if "@" in parts.netloc:
        raise UsageError(
            f"credentials in the URL are refused: put the token in {TOKEN_ENV} "
            "(or the variable --token-env names)"
        )
    if not parts.hostname:
        raise UsageError("the URL names no host")
    return urllib.parse.urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def token_of(var: str) -> str | None:
    value = os.environ.get(var, "").strip()
    if not value:
        return None
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in value):
        raise UsageError(f"{var} holds characters a token cannot have (spaces, control)")
    remember(value)
    return value


def tls_context(url: str, ca_file: str | None) -> ssl.SSLContext | None:
    if not url.startswith("wss:"):
        if ca_file is not None:
            raise UsageError("--ca-file is for https:// and wss:// URLs")
        return None
    try:
        return ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--ca-file {ca_file}: {exc}") from None


def is_loopback(host: str | None) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


class Remote:
    """The remote agent: where, with what, and what its answers mean. `headers` holds the
    token: never printed."""

    def __init__(
        self, url: str, shown: str, token: str | None, token_var: str, tls: ssl.SSLContext | None
    ) -> None:
        self.url, self.shown, self.tls, self.token_var = url, shown, tls, token_var
        self.token_set = token is not None
        self.headers = {"Authorization": f"Bearer {token}"} if token is not None else {}

    async def open(self) -> ClientConnection:
        """A new connection; Fatal when refused for good, Retry when another try may work."""
        try:
            return await connect(
                self.url,
                additional_headers=self.headers,
                ssl=self.tls,
                max_size=None,  # as on stdio, the editor reads whatever the agent writes
                open_timeout=OPEN_TIMEOUT,
                close_timeout=2,
                user_agent_header=USER_AGENT,
            )
        except ssl.SSLCertVerificationError as exc:
            raise Fatal(
                f"the TLS certificate of {self.shown} was not accepted ({exc.verify_message}); "
                "--ca-file PATH trusts a private CA"
            ) from None
        except InvalidStatus as exc:
            if process_exception(exc) is None:  # 500, 502, 503, 504: a proxy, a restart
                raise Retry(str(exc)) from None
            raise Fatal(self.refusal(exc.response.status_code)) from None
        except TimeoutError:
            raise Retry(f"no answer in {OPEN_TIMEOUT:.0f} s") from None
        except Exception as exc:
            if process_exception(exc) is None:  # network errors
                raise Retry(str(exc) or type(exc).__name__) from None
            raise Fatal(f"{self.shown} did not open a WebSocket: {exc}") from None

    def refusal(self, status: int) -> str:
        where = f"the agent at {self.shown}"
        if status == 401 and self.token_set:
            return f"{where} refused the token in {self.token_var} (HTTP 401)"
        if status == 401:
            return f"{where} asks for a token (HTTP 401): set {self.token_var} to it"
        if status == 403:
            return f"{where} refused the connection (HTTP 403 Forbidden)"
        if status == 404:
            return f"nothing at {self.shown} (HTTP 404): is the path right (usually /acp)?"
        return f"{where} refused the WebSocket upgrade (HTTP {status})"

    def dropped(self, exc: ConnectionClosed) -> str:
        """Why the link dropped, to retry; Fatal when the agent closed it for good."""
        rcvd = exc.rcvd
        if rcvd is None:
            return "broken without a close frame"
        said = f"closed with code {rcvd.code}" + (f": {rcvd.reason}" if rcvd.reason else "")
        if rcvd.code in RETRY_CODES:
            return said
        raise Fatal(f"the agent at {self.shown} {said}")


def make_remote(url: str, opts: dict[str, str]) -> Remote:
    var = opts.get("token-env", TOKEN_ENV)
    if not _VAR_NAME.fullmatch(var):
        raise UsageError("--token-env takes the name of an environment variable")
    ws_url = websocket_url(url)
    token = token_of(var)
    plain = ws_url.startswith("ws:") and not is_loopback(urllib.parse.urlsplit(ws_url).hostname)
    if token is not None and plain:
        log.warning("the token goes unencrypted over ws:// (https:// would protect it)")
    return Remote(ws_url, scrub(url), token, var, tls_context(ws_url, opts.get("ca-file")))


def run_connect(argv: list[str], configure_logging: Callable[[str | None], None]) -> int:
    """`acp connect URL [options]`; `configure_logging` is the command line's own."""
    try:
        url, opts = parse_args(argv)
        try:
            configure_logging(opts.get("log-level"))
        except Exception as exc:  # the command line's UsageError: an unknown level
            raise UsageError(str(exc)) from None
        logging.getLogger("websockets").setLevel(logging.WARNING)  # no handshake dumps
        limit = int(opts.get("line-limit", DEFAULT_LINE_LIMIT))
        if limit < 1:
            raise UsageError("--line-limit must be positive")
        remote = make_remote(url, opts)
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"acp: {exc}\n{CONNECT}")
        return 2
    early = EarlyStop()
    in_fd, out_fd = claim_stdio()
    early.release()
    stopped_by: list[int] = []
    status = asyncio.run(_bridge(remote, in_fd, out_fd, limit, early, stopped_by))
    early.hold()  # the closed loop put the default handlers back; the exit stays orderly
    return exit_status(stopped_by[0]) if stopped_by else status


class Output:
    """stdout: frames go to one writer thread in order; `drain` waits while the editor is
    behind (server/writer.py's marks)."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.writer = Writer(fd)
        self.loop = loop

    def put(self, data: bytes) -> None:
        self.writer.put(data)

    async def drain(self) -> None:
        if not self.writer.congested():
            return
        drained: asyncio.Future[None] = self.loop.create_future()

        def wake() -> None:
            if not drained.done():
                drained.set_result(None)

        def on_drained() -> None:  # on the writer's thread, or this one
            self.loop.call_soon_threadsafe(wake)

        self.writer.when_drained(on_drained)
        await drained


async def _bridge(
    remote: Remote, in_fd: int, out_fd: int, limit: int, early: EarlyStop, stopped_by: list[int]
) -> int:
    loop = asyncio.get_running_loop()
    out = Output(out_fd, loop)
    queue: asyncio.Queue[list[Event] | None] = asyncio.Queue(maxsize=1)

    def start_reading() -> None:
        args = (in_fd, LineFramer(limit), loop, queue)
        threading.Thread(target=_read_input, args=args, name="acp-reader", daemon=True).start()

    bridge = Bridge(remote, out, start_reading)

    def stop(signum: int) -> None:
        stopped_by.append(signum)
        bridge.stop()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    if early.received is not None:  # before the handlers above
        stop(early.received)
    consumer = loop.create_task(consume(bridge, queue))
    status = await bridge.run()
    if bridge.failed is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(queue.join(), SETTLE)
        sys.stderr.write(f"acp: {scrub(bridge.failed)}\n")
    consumer.cancel()
    out.writer.close()
    return status


def _read_input(
    fd: int,
    framer: LineFramer,
    loop: asyncio.AbstractEventLoop,
    queue: asyncio.Queue[list[Event] | None],
) -> None:
    """The editor's input, a chunk at a time: the next is read once the last has room in the
    queue, which holds one (the link sends a chunk before it takes the next)."""
    while True:
        try:
            data = os.read(fd, READ_CHUNK)
        except OSError as exc:
            log.warning("input failed: %s", exc)
            data = b""
        items: list[list[Event] | None] = [framer.feed(data)] if data else [framer.close(), None]
        for item in items:
            if item == []:
                continue
            try:
                asyncio.run_coroutine_threadsafe(queue.put(item), loop).result()
            except (RuntimeError, concurrent.futures.CancelledError):
                return  # the loop has ended
        if not data:
            return


async def consume(bridge: Bridge, queue: asyncio.Queue[list[Event] | None]) -> None:
    """The editor's input as the reader queues it (None: end of input)."""
    while True:
        events = await queue.get()
        try:
            if events is None:  # requests in flight get EOF_GRACE to be answered
                if bridge.ready.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(bridge.settled.wait(), EOF_GRACE)
                bridge.stop()
                return
            await feed(bridge, events)
        finally:
            queue.task_done()


async def feed(bridge: Bridge, events: list[Event]) -> None:
    """One chunk of the editor's input: bad frames answered here as the stdio agent answers
    them, the others to the bridge."""
    for event in events:
        if isinstance(event, Overflow):
            skipped = f"parse error: a line of more than {event.limit} bytes was skipped"
            error = ParseError(skipped).to_error()
            bridge.out.put(encode({"jsonrpc": "2.0", "id": None, "error": error}))
            continue
        frame = decode(event.data)
        if isinstance(frame, Invalid):
            error = frame.error.to_error()
            bridge.out.put(encode({"jsonrpc": "2.0", "id": frame.id, "error": error}))
        elif isinstance(frame, Ignored):
            log.log(logging.WARNING if frame.warn else logging.DEBUG, "ignored: %s", frame.reason)
        else:
            await bridge.from_editor(frame, event.data.decode("utf-8"))
    await bridge.room()
