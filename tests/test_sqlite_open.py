"""Two processes opening the same new SQLite file at once (the session store, an inbox
sidecar): both get a working WAL connection, whichever one switches the journal first. The
switch takes a lock SQLite does not wait for when both hold a read lock (it would deadlock),
so it is retried within the busy timeout."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

FILES = 30


def _open_all(folder: str, barrier: Any, failures: Any) -> None:
    from reasonix_acp.sqlite import connect

    for n in range(FILES):
        barrier.wait()
        try:
            db = connect(Path(folder) / f"{n}.db", readonly=False, synchronous="FULL")
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            db.close()
        except Exception as exc:  # counted, not raised: the other process goes on
            failures.put(f"{n}: {exc}")


def test_two_processes_open_a_new_file_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, failures = ctx.Barrier(2), ctx.Queue()
    workers = [ctx.Process(target=_open_all, args=(str(tmp_path), barrier, failures)) for _ in "ab"]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    found = []
    while not failures.empty():
        found.append(failures.get())
    assert found == []
