"""Loading ahead: what the next request will need, on a background thread, while the client
is busy elsewhere.

A prompt comes once the user has typed it, so the prompt path (pydantic, the prompt's models, the
turn runner and its tools, the shell grammar, the redaction patterns, pricing, the provider's HTTP
client) loads as soon as a session is open. A prompt that arrives first simply finds some of it
loaded: imports are serialised by the interpreter's module locks, so it waits for a module the
thread is halfway through instead of loading it twice. (`session/new` itself is not warmed after `initialize`: editors send it at
once, and two threads importing against each other were slower than one, measured.)

Warming is best effort and silent: a failure is logged at debug level and changes nothing
(the request that needs the module then loads it and reports any error itself).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger("reasonix_acp.server.warm")

# What the first `session/prompt` loads that `session/new` did not (offline or HTTP provider).
# The turn's own modules come first: a text prompt needs them and not pydantic (it is decoded
# by protocol/light.py), so one sent right after `session/new` waits for a third of the loading.
PROMPT_PATH = (
    "reasonix_acp.turn.admission",
    "reasonix_acp.turn.wiring",
    "reasonix_acp.tools.command_line",
    "reasonix_acp.tools.files",
    "reasonix_acp.tools.shell",
    "reasonix_acp.tools.todo",
    "reasonix_acp.mcp_servers.tools",
    "reasonix_acp.config.pricing",
    "pydantic",
    "reasonix_acp.protocol.lenient",
    "reasonix_acp.generated.models.prompt_request",
)

_started: list[threading.Thread] = []


def _validator() -> None:
    """The prompt's validator, built on the event loop's thread: older pydantic releases have
    no lock around a deferred build, so it must not race a prompt decoded meanwhile."""
    with contextlib.suppress(Exception):  # best effort, as the rest
        importlib.import_module("reasonix_acp.generated.models").PromptRequest.model_rebuild()


def _finish(loaded: Callable[[], object] | None) -> None:
    """On the event loop's thread, once the thread has loaded the rest."""
    _validator()
    log.debug("the prompt path is loaded")  # tests/test_import_budget.py waits for it
    if loaded is not None:
        loaded()


def prompt_path(loaded: Callable[[], object] | None = None) -> None:
    """Start loading the prompt path, once per process; called on the event loop's thread,
    where `loaded` is called once it is all loaded (not when loading failed)."""
    if _started:
        return
    # lazy: start-up (loaded by then; not on the path of `initialize`, which imports this module)
    import asyncio

    loop = asyncio.get_running_loop()

    def then() -> None:
        importlib.import_module("reasonix_acp.tools.command_line").parser()  # the grammar
        importlib.import_module("reasonix_acp.redact").scrub("")  # every turn's end scrubs
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(_finish, loaded)

    log.debug("loading the prompt path ahead")  # tests/test_import_budget.py splits here
    _started.append(start(PROMPT_PATH, then))


def _load(names: Iterable[str], then: Callable[[], object] | None) -> None:
    try:
        for name in names:
            importlib.import_module(name)
        if then is not None:
            then()
    except Exception as exc:  # best effort: the request reports its own errors
        log.debug("warming failed: %s", exc)


def start(names: Iterable[str], then: Callable[[], object] | None = None) -> threading.Thread:
    """Import `names` (then call `then`) on a daemon thread; returns the started thread."""
    thread = threading.Thread(target=_load, args=(tuple(names), then), name="acp-warm", daemon=True)
    thread.start()
    return thread
