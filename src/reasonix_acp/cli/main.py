"""`acp`: serve ACP over stdio (the default), or `acp setup` to configure a provider.

Argument parsing is hand-rolled on purpose: argparse costs start-up time an editor pays on
every spawn, and the option set is small.
"""

from __future__ import annotations

import logging
import os
import sys

from reasonix_acp import __version__
from reasonix_acp.cli.usage import USAGE, help_for
from reasonix_acp.protocol.framing import DEFAULT_LINE_LIMIT
from reasonix_acp.redact import RedactingFilter

TTY_NOTE = (
    "acp: this is an Agent Client Protocol agent: it speaks JSON-RPC on stdin and stdout, for an "
    "editor to drive. Try `acp demo`, or see docs/editors.md for Zed, JetBrains, Neovim and more "
    "(Ctrl-C to stop).\n"
)


class UsageError(Exception):
    pass


def parse(argv: list[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    args = list(argv)
    if args and not args[0].startswith("-"):
        opts["command"] = args.pop(0)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help", "--version"):
            opts["help" if arg == "-h" else arg.lstrip("-")] = "1"
            continue
        name, eq, value = arg.partition("=")
        if name not in ("--model", "--log-level", "--line-limit", "--script", "--data-dir"):
            raise UsageError(f"unknown option {arg}")
        if not eq:
            if not args:
                raise UsageError(f"{name} needs a value")
            value = args.pop(0)
        opts[name[2:]] = value
    return opts


def configure_logging(level_name: str | None) -> None:
    name = (level_name or os.environ.get("REASONIX_ACP_LOG_LEVEL") or "warning").upper()
    level = logging.getLevelName(name)
    if not isinstance(level, int):
        raise UsageError(f"unknown log level {level_name}")
    logging.basicConfig(
        stream=sys.stderr, level=level, format="acp: %(levelname)s %(name)s: %(message)s"
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())  # remote text in a log line loses its credentials


def sessions_command(args: list[str]) -> int:
    data: str | None = None
    rest: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "--data-dir" and args:
            data = args.pop(0)
        elif arg.startswith("--data-dir="):
            data = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    # lazy: start-up
    from reasonix_acp.cli import sessions as sessions_cli

    # lazy: start-up
    from reasonix_acp.server.agent import Options, data_dir

    # lazy: start-up
    from reasonix_acp.session.store import Store

    store = Store(data_dir(Options(data_dir=data)))
    try:
        return sessions_cli.run(store, rest)
    except BrokenPipeError:  # `acp sessions export ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _main(args)
    except BrokenPipeError:  # a reader that stopped reading: `acp demo | head -1`
        _stdout_gone()
        return 0  # the reader has what it wanted


def _stdout_gone() -> None:
    """What is left to print goes nowhere, the interpreter's last flush at exit included (it
    would raise again)."""
    gone = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(gone, sys.stdout.fileno())
    finally:
        os.close(gone)


def _main(args: list[str]) -> int:
    usage = help_for(args)  # `acp [COMMAND] --help`: its usage, and nothing else done
    if usage is not None:
        sys.stdout.write(usage)
        return 0
    if args[:1] == ["sessions"]:
        configure_logging(None)
        return sessions_command(args[1:])
    if args[:1] == ["setup"]:
        configure_logging(None)
        # lazy: start-up
        from reasonix_acp.cli.setup import run_setup

        return run_setup(args[1:])
    if args[:1] == ["serve"]:
        # lazy: start-up
        from reasonix_acp.cli.serve import run_serve

        return run_serve(args[1:], configure_logging)
    if args[:1] == ["connect"]:
        # lazy: start-up
        from reasonix_acp.cli.connect import run_connect

        return run_connect(args[1:], configure_logging)
    try:
        opts = parse(args)
        if "version" in opts:
            sys.stdout.write(f"acp (reasonix-acp) {__version__}\n")
            return 0
        configure_logging(opts.get("log-level"))
        command = opts.get("command")
        if command == "demo":
            # lazy: start-up
            from reasonix_acp.cli.demo import run_demo

            return run_demo()
        if command == "doctor":
            # lazy: start-up
            from reasonix_acp.cli.doctor import run_doctor

            # lazy: start-up
            from reasonix_acp.server.agent import Options, data_dir

            return run_doctor(data_dir(Options(data_dir=opts.get("data-dir"))))
        if command is not None:
            raise UsageError(f"unknown command {command}")
        limit = int(opts.get("line-limit", DEFAULT_LINE_LIMIT))
        if limit < 1:
            raise UsageError("--line-limit must be positive")
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"acp: {exc}\n{USAGE}")
        return 2
    if sys.stdin.isatty():
        sys.stderr.write(TTY_NOTE)
    # lazy: start-up
    from reasonix_acp.server.stdio import EarlyStop, serve

    # From here on SIGTERM and SIGINT shut the agent down in order (exit status 0); installed
    # before the agent's heavier imports, so that a signal during them is not fatal either.
    early = EarlyStop()
    # lazy: start-up
    from reasonix_acp.server.agent import Options

    return serve(
        limit,
        Options(model=opts.get("model"), data_dir=opts.get("data-dir"), script=opts.get("script")),
        early,
    )
