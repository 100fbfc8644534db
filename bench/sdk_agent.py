"""The baseline agent of the benchmarks, on the official ACP Python SDK: as small as its
examples/echo_agent.py (bench/startup.py times its start), and for bench/streaming.py it answers
every prompt with BENCH_CHUNKS chunks of BENCH_TEXT, the chunks our offline model streams."""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
)
from acp.helpers import text_block, update_agent_message
from acp.interfaces import Client

COUNT = int(os.environ.get("BENCH_CHUNKS", "20000"))
TEXT = os.environ.get("BENCH_TEXT", "chunk-8b")


class StreamAgent(Agent):
    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        return NewSessionResponse(session_id=uuid.uuid4().hex)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for _ in range(COUNT):
            await self._conn.session_update(
                session_id=session_id, update=update_agent_message(text_block(TEXT))
            )
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(StreamAgent()))
