"""`acp serve`: the agent on a TCP port (server/listen.py), for editors elsewhere.

Decided here: the listener is loopback unless told otherwise, and a token is always required
(server/remote_auth.py). On any other address the token would cross a network, so TLS is
required there too (`--tls-cert`/`--tls-key`, or a TLS proxy in front listening on loopback),
unless `--allow-plaintext` says the network is already private (a VPN, a tailnet, an SSH
tunnel's far end).
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import ssl
import sys
from collections.abc import Callable

from reasonix_acp.protocol.framing import DEFAULT_LINE_LIMIT

DEFAULT_LISTEN = "127.0.0.1:8421"
VALUED = (
    "--listen",
    "--tls-cert",
    "--tls-key",
    "--allow-origin",
    "--max-connections",
    "--sessions-per-connection",
    "--idle-timeout",
    "--orphan-timeout",
    "--max-unread",
    "--model",
    "--data-dir",
    "--script",
    "--line-limit",
    "--log-level",
)


class UsageError(Exception):
    pass


def parse(args: list[str]) -> dict[str, list[str]]:
    opts: dict[str, list[str]] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--allow-plaintext":
            opts[arg] = ["1"]
            continue
        name, eq, value = arg.partition("=")
        if name not in VALUED:
            raise UsageError(f"unknown option {arg}")
        if not eq:
            if not rest:
                raise UsageError(f"{name} needs a value")
            value = rest.pop(0)
        opts.setdefault(name, []).append(value)
    return opts


def _one(opts: dict[str, list[str]], name: str, default: str | None = None) -> str | None:
    values = opts.get(name)
    return values[-1] if values else default


def address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen {text}: give HOST:PORT (port 0 picks a free one)")
    return host.strip("[]") or "127.0.0.1", int(port)


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    if cert is None and key is None:
        return None
    if cert is None:
        raise UsageError("--tls-key needs --tls-cert")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--tls-cert/--tls-key: {exc}") from None
    return context


def run_serve(args: list[str], configure_logging: Callable[[str | None], None]) -> int:
    """`configure_logging`: cli/main.py's, given the --log-level value."""
    try:
        opts = parse(args)
        configure_logging(_one(opts, "--log-level"))
        host, port = address(_one(opts, "--listen", DEFAULT_LISTEN) or DEFAULT_LISTEN)
        tls = tls_context(_one(opts, "--tls-cert"), _one(opts, "--tls-key"))
        if not loopback(host) and tls is None and "--allow-plaintext" not in opts:
            raise UsageError(
                f"--listen {host}: the token would cross the network in clear; give "
                "--tls-cert and --tls-key, serve on loopback behind a TLS proxy, or add "
                "--allow-plaintext where the network is already private (a VPN, a tailnet)"
            )
        limits = _limits(opts)
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"acp serve: {exc}\n")
        return 2
    return asyncio.run(_serve(opts, host, port, tls, limits))


def _limits(opts: dict[str, list[str]]) -> object:
    # lazy: start-up
    from reasonix_acp.server.listen import Limits

    limits = Limits(
        max_connections=int(_one(opts, "--max-connections", "32") or 32),
        sessions_per_connection=int(_one(opts, "--sessions-per-connection", "16") or 16),
        line_limit=int(_one(opts, "--line-limit", str(DEFAULT_LINE_LIMIT)) or DEFAULT_LINE_LIMIT),
        idle_timeout=float(_one(opts, "--idle-timeout", "3600") or 3600),
        orphan_timeout=float(_one(opts, "--orphan-timeout", "60") or 60),
        max_unread=int(_one(opts, "--max-unread", str(16 << 20)) or 16 << 20),
    )
    counts = (limits.max_connections, limits.sessions_per_connection, limits.line_limit)
    if min(*counts, limits.max_unread) < 1:
        raise UsageError(
            "--max-connections, --sessions-per-connection, --line-limit, --max-unread: at least 1"
        )
    if min(limits.idle_timeout, limits.orphan_timeout) <= 0:
        raise UsageError("--idle-timeout and --orphan-timeout must be positive")
    return limits


async def _serve(
    opts: dict[str, list[str]], host: str, port: int, tls: ssl.SSLContext | None, limits: object
) -> int:
    # lazy: start-up
    from reasonix_acp import config

    # lazy: start-up
    from reasonix_acp.redact import remember

    # lazy: start-up
    from reasonix_acp.server.listen import Limits, Listener

    # lazy: start-up
    from reasonix_acp.server.remote_auth import Gate, TokenError, load_token

    # lazy: start-up
    from reasonix_acp.server.services import Options, Shared

    # lazy: start-up
    from reasonix_acp.tools.groups import GROUPS

    assert isinstance(limits, Limits)
    try:
        token, source = load_token(config.config_dir())
    except (TokenError, OSError) as exc:
        sys.stderr.write(f"acp serve: {exc}\n")
        return 2
    remember(token)  # a secret of the agent's: out of every output, log and command
    options = Options(_one(opts, "--model"), _one(opts, "--data-dir"), _one(opts, "--script"))
    listener = Listener(
        Shared(options, solo=False), Gate(token, opts.get("--allow-origin")), limits, tls
    )
    try:
        url = await listener.start(host, port)
    except OSError as exc:
        sys.stderr.write(f"acp serve: cannot listen on {host}:{port}: {exc}\n")
        return 1
    where = "REASONIX_ACP_TOKEN" if source == "REASONIX_ACP_TOKEN" else f"the file {source}"
    sys.stderr.write(
        f"acp: serving ACP at {url} (Streamable HTTP and WebSocket)\n"
        f"acp: clients send the token from {where} as `Authorization: Bearer TOKEN`; "
        f"an editor runs `acp connect {url}` with it in REASONIX_ACP_TOKEN\n"
    )
    sys.stderr.flush()
    stop, received = asyncio.Event(), []

    def stopping(signum: int) -> None:
        received.append(signum)
        stop.set()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping, sig)
    try:
        await listener.serve(stop)
    finally:
        await GROUPS.shutdown()
    return 130 if received[:1] == [signal.SIGINT] else 0
