"""A client nobody on this project wrote: the official ACP Python SDK spawns `acp` over stdio."""

from __future__ import annotations

from typing import Any

from acp import spawn_agent_process
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

from tests.transcript import acp_command


class SilentClient:
    """Answers nothing: the handshake needs no client-side method."""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn


async def test_sdk_client_completes_initialize() -> None:
    command = acp_command()
    async with spawn_agent_process(SilentClient(), command[0], *command[1:]) as (conn, _process):
        response = await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
            ),
            client_info=Implementation(name="sdk-test", version="1"),
        )
    assert response.protocol_version == 1
    assert response.agent_info is not None and response.agent_info.name == "reasonix-acp"
    assert (
        response.agent_capabilities is not None and response.agent_capabilities.load_session is True
    )
    assert [m.id for m in response.auth_methods] == ["reasonix-setup"]
