"""The agent a hostile run plays against: a real `acp` started in the workspace (as an editor
starts it) over real pipes, on the DeepSeek stand-in (tests/deepseek_server.py, whose `replies`
queue is the model), with the world's HOME, TMPDIR, PATH and config. It sends prompts and the
client's actions, hands the agent's questions to the user stand-in, and keeps every frame the
agent sent and the stderr of every process that has exited, for the invariants to scan. A
reload ends the process (killed or closed) and loads the session in a new one."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

from tests.client import STATUS_OPT_IN, Client
from tests.deepseek_server import DeepSeek
from tests.hostile.user import User
from tests.hostile.world import World
from tests.mcp_acp import Provider
from tests.test_deepseek import config
from tests.test_history_exact import converse
from tests.transcript import Scenario

Frame = dict[str, Any]
REWIND = "_reasonix.io/session/rewind"
# The client's own MCP server, reached over ACP (tests/mcp_acp.py): its `echo` tool is
# `mcp__tools__echo` to the model, and every call of it must have been allowed by the user.
TOOLS = {"type": "acp", "name": "tools", "serverId": "hostile-tools"}


class Frozen(AssertionError):
    """The agent left a request unanswered past the bound (tests/transcript.py WAIT_SECONDS)."""


class Player:
    """One session of a real `acp`; `frames` holds every frame its processes sent, `stderr`
    what each exited process wrote there; `tools` is the MCP server the client provides."""

    def __init__(self, world: World, server: DeepSeek, user: User) -> None:
        self.world = world
        self.server = server
        self.user = user
        self.scenario = Scenario(world.root)
        self.scenario.env.update(world.env())
        config_dir = Path(self.scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "config.toml").write_text(config(server, world.config()), encoding="utf-8")
        self.frames: list[Frame] = []
        self.stderr: list[bytes] = []
        self.tools = Provider(server_ids=(TOOLS["serverId"],))
        self.client = self._process()
        self.client.result(
            "initialize", {"protocolVersion": 1, "clientCapabilities": STATUS_OPT_IN}
        )
        opened = {"cwd": str(world.ws), "mcpServers": [TOOLS]}
        self.sid: str = self.client.result("session/new", opened)["sessionId"]
        if world.setting.preset != "workspace-write":
            self.preset(world.setting.preset)
        self._harvest()

    def _process(self) -> Client:
        return Client(self.world.root, scenario=self.scenario, cwd=str(self.world.ws))

    def _harvest(self) -> None:
        """Keep the frames read meanwhile, and answer the MCP requests among them."""
        for frame in self.client.take_notes():
            self.frames.append(frame)
            if frame.get("method") == "mcp/message" and "id" in frame:
                result = self._mcp(frame)
                self.client.send({"jsonrpc": "2.0", "id": frame["id"], "result": result})

    def _asked(self, request: Frame) -> Any:
        self.frames.append(request)
        if request["method"] == "mcp/message":
            return self._mcp(request)
        return self.user.answer(request)

    def _mcp(self, request: Frame) -> Any:
        answer = self.tools.answer(request)
        assert "result" in answer, f"the binding refused acp's mcp/message: {answer}"
        return answer["result"]

    def preset(self, value: str) -> Frame:
        params = {"sessionId": self.sid, "configId": "tool_approval", "value": value}
        return self.call("session/set_config_option", params)

    def prompt(self, blocks: list[dict[str, Any]]) -> Frame:
        """A prompt's answer; the agent's questions meanwhile answered by the user. `frames`
        keeps its frames in the order they came, its questions among them."""
        self._harvest()
        try:
            frame = converse(self.client, self.sid, blocks, self._asked, self.frames.append)
        except queue.Empty:
            raise Frozen("a prompt was not answered within the bound") from None
        finally:
            self.client.take_notes()  # kept as they came
        self.frames.append(frame)
        return frame

    def text(self, text: str) -> Frame:
        return self.prompt([{"type": "text", "text": text}])

    def call(self, method: str, params: dict[str, Any]) -> Frame:
        try:
            frame = self.client.call(method, params)
        except queue.Empty:
            raise Frozen(f"{method} was not answered within the bound") from None
        finally:
            self._harvest()
        self.frames.append(frame)
        return frame

    def rewind(self, prompts: int, force: bool) -> Frame:
        return self.call(REWIND, {"sessionId": self.sid, "prompts": prompts, "force": force})

    def end(self, kill: bool) -> None:
        """End the process: SIGKILL, or end of input (it must exit 0)."""
        if kill:
            self.client.kill()
        else:
            code = self.client.close()
            assert code == 0, f"acp exited {code} at the end of its input"
        self._harvest()
        self.stderr.append(self.client.agent.stderr)

    def reload(self, kill: bool) -> Frame:
        """End the process and load the session in a new one; the load's answer."""
        self.end(kill)
        self.client = self._process()
        self.call("initialize", {"protocolVersion": 1, "clientCapabilities": STATUS_OPT_IN})
        loaded = {"sessionId": self.sid, "cwd": str(self.world.ws), "mcpServers": [TOOLS]}
        return self.call("session/load", loaded)

    def alive(self) -> bool:
        return self.client.agent.proc.poll() is None
