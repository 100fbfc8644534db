"""Loading ahead (server/warm.py): a process that leaves before its first prompt waits at exit
for the step under way only, and loads nothing after it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from reasonix_acp.server import warm


@pytest.fixture
def leaving() -> Iterator[None]:
    yield
    warm._leaving.clear()


def test_an_exit_during_a_step_waits_for_it_and_runs_no_later_step(leaving: None) -> None:
    under_way, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def step() -> None:
        under_way.set()
        release.wait(5)
        ran.append("the step under way")

    thread = warm.start([step, lambda: ran.append("a later step")], lambda: ran.append("then"))
    assert under_way.wait(5)
    exiting = threading.Thread(target=warm._wait_at_exit)
    exiting.start()
    exiting.join(0.2)
    assert exiting.is_alive(), "the exit did not wait for the step under way"
    release.set()
    exiting.join(5)
    thread.join(5)
    assert ran == ["the step under way"]


def test_with_no_exit_every_step_and_then_run(leaving: None) -> None:
    ran: list[str] = []
    thread = warm.start(
        [lambda: ran.append("one"), lambda: ran.append("two")], lambda: ran.append("then")
    )
    thread.join(5)
    assert ran == ["one", "two", "then"]


def test_the_models_wait_for_the_pause_and_then_for_an_idle_agent(
    leaving: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After MODELS_AFTER, the pause lasts while the process is busy (a turn streaming), and
    ends in the first window it is idle; an exit ends it at once."""
    monkeypatch.setattr(warm, "MODELS_AFTER", 0.05)
    busy_until = time.monotonic() + 0.8

    def busy() -> None:
        while time.monotonic() < busy_until:
            pass

    worker = threading.Thread(target=busy)
    started = time.monotonic()
    worker.start()
    warm._pause()
    ended = time.monotonic()
    worker.join()
    assert ended >= busy_until, "the pause ended while the process was busy"
    assert ended - busy_until < 1.0, "the pause outlasted the busy spell by far"
    warm._leaving.set()
    quick = time.monotonic()
    warm._pause()
    assert time.monotonic() - quick < 0.1 and started < quick
