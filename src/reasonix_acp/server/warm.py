"""Loading ahead: what the next request will need, on a background thread, while the client
is busy elsewhere.

A prompt comes once the user has typed it, so the prompt path (pydantic, the prompt's models, the
turn runner and its tools, the shell grammar, the redaction patterns, pricing, the provider's HTTP
client) loads as soon as a session is open. A prompt that arrives first simply finds some of it
loaded: imports are serialised by the interpreter's module locks, so it waits for a module the
thread is halfway through instead of loading it twice. (`session/new` itself is not warmed after `initialize`: editors send it at
once, and two threads importing against each other were slower than one, measured.)

What a text prompt needs loads first; pydantic and the prompt's models (what only a prompt with
other blocks, or a request decoded by its model, needs) after MODELS_AFTER seconds more, once
the agent is idle (a turn under way is not slowed by loading beside it): a text
prompt sent at once does not share the interpreter with them, a process that leaves soon after
(`acpx exec`, a script, a probe) never loads them, and a user typing for seconds finds them loaded.

Warming is best effort and silent: a failure is logged at debug level and changes nothing
(the request that needs the module then loads it and reports any error itself).

The process waits for a loading thread before it exits (at most EXIT_WAIT seconds): the thread
may be inside a C library that the interpreter's exit tears down (OpenSSL, loading the CA
bundle for the provider's client), which crashed the process. It waits only for the step under
way: a process leaving before its first prompt (a client that opened a session to look, a
closed editor) does not load the rest of a path nobody will take.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Callable, Iterable

log = logging.getLogger("reasonix_acp.server.warm")

# What the first `session/prompt` loads that `session/new` did not, in order. The turn's own
# modules come first, then the session's provider prepares its first request (httpx and its
# connection pool for an HTTP endpoint), then pydantic and the prompt's models: a text prompt
# needs the first two and not pydantic (it is decoded by protocol/light.py), so one sent right
# after `session/new` waits for them only, without pydantic loading against them.
TURN_PATH = (
    "reasonix_acp.turn.admission",
    "reasonix_acp.turn.wiring",
    "reasonix_acp.command_proof.command_line",
    "reasonix_acp.tools.files",
    "reasonix_acp.tools.shell",
    "reasonix_acp.tools.todo",
    "reasonix_acp.mcp_servers.tools",
    "reasonix_acp.config.pricing",
    "reasonix_acp.config.ledger",  # the turn's cost ledger
    "concurrent.futures.thread",  # the loop's default executor, first used by a turn
)
MODELS_PATH = (
    "pydantic",
    "reasonix_acp.protocol.lenient",
    "reasonix_acp.generated.models.prompt_request",
)

Step = str | Callable[[], object]  # a module to import, or something to call
EXIT_WAIT = 10.0  # seconds the exit waits for a loading thread
MODELS_AFTER = 2.0  # seconds between the turn's modules and MODELS_PATH, at least
IDLE_WINDOW, IDLE_CPU = 0.25, 0.05  # idle: a window in which the process used < 5 % of a CPU
_started: list[threading.Thread] = []
_running: list[threading.Thread] = []
_leaving = threading.Event()  # set at exit: a loading thread stops after its step under way


def _wait_at_exit() -> None:
    _leaving.set()
    for thread in _running:
        thread.join(EXIT_WAIT)


def _built() -> None:
    """What a text prompt's turn builds once: the shell grammar (a command's question) and the
    redaction patterns (every turn's end scrubs)."""
    importlib.import_module("reasonix_acp.command_proof.command_line").parser()
    importlib.import_module("reasonix_acp.redact").scrub("")


def _pause() -> None:
    """MODELS_AFTER seconds with nothing loaded ahead, then until the agent is idle (a turn
    under way is not slowed by loading beside it); the exit ends it at once."""
    if _leaving.wait(MODELS_AFTER):
        return
    while True:
        spent = time.process_time()  # every thread's CPU
        if _leaving.wait(IDLE_WINDOW) or time.process_time() - spent < IDLE_CPU * IDLE_WINDOW:
            return


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


def prompt_path(
    prepare: Callable[[], object] | None = None, loaded: Callable[[], object] | None = None
) -> None:
    """Start loading the prompt path, once per process, running the first session's provider's
    `prepare` between the turn's modules and pydantic (after a pause); called on the event
    loop's thread, where `loaded` is called once it is all loaded (not when loading failed)."""
    if _started:
        return
    # lazy: start-up (loaded by then; not on the path of `initialize`, which imports this module)
    import asyncio

    loop = asyncio.get_running_loop()

    def then() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(_finish, loaded)

    log.debug("loading the prompt path ahead")  # tests/test_import_budget.py splits here
    steps: list[Step] = [*TURN_PATH, _built, *([prepare] if prepare else []), _pause, *MODELS_PATH]
    _started.append(start(steps, then))


def _load(steps: Iterable[Step], then: Callable[[], object] | None) -> None:
    try:
        for step in steps:
            if _leaving.is_set():
                return
            if callable(step):
                step()
            else:
                importlib.import_module(step)
        if then is not None and not _leaving.is_set():
            then()
    except Exception as exc:  # best effort: the request reports its own errors
        log.debug("warming failed: %s", exc)


def start(steps: Iterable[Step], then: Callable[[], object] | None = None) -> threading.Thread:
    """Import each module named in `steps` and call each callable, in order, then `then`, on a
    daemon thread the exit waits for; returns the started thread."""
    args = (tuple(steps), then)
    thread = threading.Thread(target=_load, args=args, name="acp-warm", daemon=True)
    if not _running:
        atexit.register(_wait_at_exit)
    _running.append(thread)
    thread.start()
    return thread
