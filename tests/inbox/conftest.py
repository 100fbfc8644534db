from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reasonix_acp.reasonix_io.inbox import InboxStore, SessionInbox
from tests.inbox import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[InboxStore]:
    s = InboxStore(tmp_path, run_id="run-a", clock=clock)
    yield s
    s.close()


@pytest.fixture
def inbox(store: InboxStore) -> SessionInbox:
    return store.open("s1")
