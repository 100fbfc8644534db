"""The asyncio connection over real pipes, with handlers written for the test."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import pytest

from reasonix_acp.generated.methods import (
    FS_READ_TEXT_FILE,
    SESSION_CANCEL,
    SESSION_CLOSE,
    SESSION_LIST,
    SESSION_PROMPT,
    SESSION_UPDATE,
)
from reasonix_acp.protocol.errors import ConnectionClosed, InternalError, RemoteError
from reasonix_acp.protocol.router import Call, Router
from reasonix_acp.server.connection import Connection


class Peer:
    """The client end of two pipes."""

    def __init__(self, to_agent: int, from_agent: int) -> None:
        self.to_agent = to_agent
        self.from_agent = from_agent
        self.buffer = b""

    def send(self, msg: dict[str, Any]) -> None:
        os.write(self.to_agent, json.dumps(msg).encode() + b"\n")

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        while b"\n" not in self.buffer:
            chunk = await asyncio.wait_for(
                loop.run_in_executor(None, os.read, self.from_agent, 65536), timeout
            )
            if not chunk:
                raise EOFError
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        frame: dict[str, Any] = json.loads(line)
        return frame

    def close(self) -> None:
        os.close(self.to_agent)


@asynccontextmanager
async def connected(router: Router) -> AsyncIterator[tuple[Connection, Peer, asyncio.Task[None]]]:
    c2a_r, c2a_w = os.pipe()
    a2c_r, a2c_w = os.pipe()
    conn = Connection(router, read_fd=c2a_r, write_fd=a2c_w)
    task = asyncio.create_task(conn.serve())
    peer = Peer(c2a_w, a2c_r)
    try:
        yield conn, peer, task
    finally:
        if not task.done():
            peer.close()
            await asyncio.wait_for(task, 10)
        for fd in (c2a_r, a2c_w, a2c_r):
            with suppress(OSError):
                os.close(fd)


def req(i: int | str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}


PROMPT = {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}


async def test_a_long_request_does_not_block_others_and_a_cancel_reaches_it() -> None:
    released = asyncio.Event()
    router = Router()

    async def prompt(call: Call, params: Any) -> dict[str, Any]:
        await released.wait()
        return {"stopReason": "cancelled"}

    router.add(SESSION_PROMPT, prompt)
    router.add(SESSION_LIST, lambda call, params: {"sessions": []})
    router.add(SESSION_CANCEL, lambda call, params: released.set())
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(1, SESSION_PROMPT, PROMPT))
        peer.send(req(2, SESSION_LIST, {}))
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"sessions": []}}
        peer.send({"jsonrpc": "2.0", "method": SESSION_CANCEL, "params": {"sessionId": "s"}})
        assert await peer.receive() == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"stopReason": "cancelled"},
        }


async def test_cancel_request_answers_minus_32800() -> None:
    router = Router()

    async def forever(call: Call, params: Any) -> None:
        await asyncio.Event().wait()

    router.add(SESSION_PROMPT, forever)
    async with connected(router) as (_conn, peer, _task):
        peer.send(req("p", SESSION_PROMPT, PROMPT))
        await asyncio.sleep(0.05)
        peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "p"}})
        reply = await peer.receive()
        assert reply == {
            "jsonrpc": "2.0",
            "id": "p",
            "error": {"code": -32800, "message": "session/prompt: request cancelled"},
        }


async def test_after_response_hooks_run_after_the_response() -> None:
    router = Router()

    def close(call: Call, params: Any) -> dict[str, Any]:
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "bye"},
        }
        call.after_response(
            lambda: call.connection.notify(SESSION_UPDATE, {"sessionId": "s", "update": update})
        )
        return {}

    router.add(SESSION_CLOSE, close)
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(1, SESSION_CLOSE, {"sessionId": "s"}))
        assert (await peer.receive())["id"] == 1
        assert (await peer.receive())["method"] == SESSION_UPDATE


async def test_outbound_requests_use_integer_ids_from_one_and_get_their_replies() -> None:
    router = Router()

    async def prompt(call: Call, params: Any) -> dict[str, Any]:
        first = await call.connection.request(FS_READ_TEXT_FILE, {"sessionId": "s", "path": "/a"})
        try:
            await call.connection.request(FS_READ_TEXT_FILE, {"sessionId": "s", "path": "/b"})
        except RemoteError as exc:
            return {
                "stopReason": "end_turn",
                "_meta": {"first": first.content, "second": exc.message},
            }
        raise AssertionError("the error reply was not raised")

    router.add(SESSION_PROMPT, prompt)
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(7, SESSION_PROMPT, PROMPT))
        out = await peer.receive()
        assert (out["id"], out["method"], out["params"]) == (
            1,
            FS_READ_TEXT_FILE,
            {"sessionId": "s", "path": "/a"},
        )
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"content": "A"}})
        out = await peer.receive()
        assert out["id"] == 2
        peer.send({"jsonrpc": "2.0", "id": 2, "error": {"code": -32002, "message": "no such file"}})
        reply = await peer.receive()
        assert reply["result"] == {
            "stopReason": "end_turn",
            "_meta": {"first": "A", "second": "no such file"},
        }


async def test_a_cancelled_wait_sends_cancel_request_for_our_request() -> None:
    router = Router()

    async def prompt(call: Call, params: Any) -> None:
        await call.connection.request(FS_READ_TEXT_FILE, {"sessionId": "s", "path": "/a"})

    router.add(SESSION_PROMPT, prompt)
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(3, SESSION_PROMPT, PROMPT))
        assert (await peer.receive())["id"] == 1
        peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 3}})
        frames = [await peer.receive(), await peer.receive()]
        assert {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": 1},
        } in frames
        assert any(f.get("id") == 3 and f["error"]["code"] == -32800 for f in frames)


async def test_end_of_input_cancels_handlers_fails_pending_requests_and_runs_close_hooks() -> None:
    router = Router()
    seen: list[str] = []

    async def prompt(call: Call, params: Any) -> None:
        try:
            await call.connection.request(FS_READ_TEXT_FILE, {"sessionId": "s", "path": "/a"})
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    router.add(SESSION_PROMPT, prompt)
    async with connected(router) as (conn, peer, task):
        conn.on_close(lambda: seen.append("closed"))
        peer.send(req(1, SESSION_PROMPT, PROMPT))
        await peer.receive()
        peer.close()
        await asyncio.wait_for(task, 10)
        assert seen == ["cancelled", "closed"]
        assert (await peer.receive())["error"]["code"] == -32800
        with pytest.raises(ConnectionClosed):
            await conn.request(FS_READ_TEXT_FILE, {"sessionId": "s", "path": "/a"})


async def test_a_handler_bug_is_an_internal_error_and_the_connection_goes_on() -> None:
    router = Router()

    def broken(call: Call, params: Any) -> None:
        raise KeyError("boom")

    router.add(SESSION_CLOSE, broken)
    router.add(SESSION_LIST, lambda call, params: {"sessions": []})
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(1, SESSION_CLOSE, {"sessionId": "s"}))
        reply = await peer.receive()
        assert reply["error"] == {
            "code": InternalError.CODE,
            "message": "session/close: 'boom'",
            "data": {"details": "session/close: 'boom'"},
        }
        peer.send(req(2, SESSION_LIST, {}))
        assert (await peer.receive())["id"] == 2


async def test_a_duplicate_id_in_flight_is_refused() -> None:
    router = Router()

    async def forever(call: Call, params: Any) -> None:
        await asyncio.Event().wait()

    router.add(SESSION_PROMPT, forever)
    async with connected(router) as (_conn, peer, _task):
        peer.send(req(5, SESSION_PROMPT, PROMPT))
        peer.send(req(5, SESSION_PROMPT, PROMPT))
        reply = await peer.receive()
        assert (
            reply["id"] == 5
            and reply["error"]["code"] == -32600
            and "in flight" in reply["error"]["message"]
        )


async def test_an_invalid_outgoing_shape_never_leaves() -> None:
    router = Router()
    async with connected(router) as (conn, _peer, _task):
        with pytest.raises(InternalError):
            conn.notify(SESSION_UPDATE, {"sessionId": "s", "update": {"sessionUpdate": "nope"}})
