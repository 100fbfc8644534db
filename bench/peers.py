"""`acp` beside the public ACP agents: what a user of each waits for, measured in one run.

For this tree's `acp` (from PATH) and each public agent installed under --peers (as
docs/speed.md shows; each started through its wrapper in docs/agents/, which gives it a home
of its own and points it at the model), in fresh processes and a fresh temporary directory
per run:

  (a) spawn → `initialize` answered;
  (b) spawn → `session/new` answered (sent the moment the `initialize` answer is read);
  (c) a first text prompt, sent the moment `session/new` is answered → its response;
  (d) a second prompt, sent at once after the first → its response.

All wall time, in ms, against one instant local OpenAI-compatible model (acp-conformance's
scripted model: every request, streamed or not, is answered at once with a short text), so the
figures are the agents' own time. Rounds alternate the agents (the order turns each round),
after one unmeasured warm-up round (OS caches, bytecode); an agent that fails its warm-up is
left out with the reason printed. Every wait is bounded (--timeout): a peer that hangs is
recorded as a timeout for that run. The table gives the median [min-max] of each figure and
the ratio of each agent's median to acp's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ready import ACP, Agent, environment

from acp_conformance.model import MODEL_ID, ModelServer

DOCS = Path(__file__).resolve().parents[1] / "docs" / "agents"
FIGURES = ("initialize", "session_new", "first_prompt", "second_prompt")
HEADS = ("spawn → initialize", "spawn → session/new", "first prompt", "second prompt")
INIT = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}},
}


@dataclass(frozen=True)
class Spec:
    """How one agent is started: its wrapper in docs/agents/ (none for acp itself)."""

    name: str
    label: str
    where: str = ""  # under --peers: the directory holding its command
    command: str = "acp"
    script: str = ""
    model_arg: bool = True  # the wrapper takes {model_url} after {tmp}
    extra: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # "{url}" is the model's URL
    prompts: bool = True  # it can be pointed at an OpenAI-compatible model
    package: str = ""  # a Python distribution (dist-info) or an npm package


QWEN_ENV = {"OPENAI_BASE_URL": "{url}", "OPENAI_API_KEY": "unused", "OPENAI_MODEL": MODEL_ID}
AGENTS = {
    s.name: s
    for s in (
        Spec("acp", "reasonix-acp"),
        Spec("kimi", "kimi-cli", "kimi/bin", "kimi", "kimi-cli.sh", package="kimi_cli"),
        Spec("vibe", "mistral-vibe", "vibe/bin", "vibe-acp", "mistral-vibe.sh", package="mistral_vibe"),
        Spec("fast", "fast-agent", "fast/bin", "fast-agent-acp", "fast-agent.sh", extra=("-x",), package="fast_agent_mcp"),
        Spec("gptme", "gptme-acp", "gptme/bin", "gptme-acp", "gptme-acp.sh", package="gptme_acp"),
        Spec("gemini", "gemini-cli", "gemini/node_modules/.bin", "gemini", "gemini-cli.sh", False, env={"GEMINI_API_KEY": "unused"}, prompts=False, package="@google/gemini-cli"),
        Spec("qwen", "qwen-code", "qwen/node_modules/.bin", "qwen", "qwen-code.sh", False, env=QWEN_ENV, package="@qwen-code/qwen-code"),
        Spec("opencode", "opencode", "opencode/node_modules/.bin", "opencode", "opencode.sh", package="opencode-ai"),
    )
}  # fmt: skip
NO_PROMPTS = "speaks only the Gemini API: no OpenAI-compatible model URL to point it at"


class Bounded(Agent):
    """An agent in a process group of its own, its stderr kept, every wait bounded."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path, log: Path) -> None:
        self.timed_out = False
        self.start = time.perf_counter()
        with log.open("wb") as err:
            self.p = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        self.n = 0

    def ask(self, method: str, params: dict[str, Any], limit: float) -> tuple[Any, float]:
        """The result of a request and when it was read; a timeout ends the process."""
        timer = threading.Timer(limit, self._expire)
        timer.start()
        try:
            return self.until(self.send(method, params))
        finally:
            timer.cancel()

    def _expire(self) -> None:
        self.timed_out = True
        self.kill()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.p.pid, signal.SIGKILL)

    def stop(self) -> None:
        """Close its input, give it a moment to exit, then end its whole process group."""
        try:
            assert self.p.stdin is not None
            self.p.stdin.close()
            self.p.wait(3)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()
        self.p.wait()


def spawn(spec: Spec, tmp: Path, url: str, peers: Path) -> Bounded:
    ws, log = tmp / "ws", tmp / "stderr.log"
    ws.mkdir(parents=True, exist_ok=True)
    env = environment(tmp, None)  # HOME in tmp, no provider of this machine, bytecode cached
    if spec.name == "acp":
        env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="unused", OPENAI_MODEL=MODEL_ID)
        return Bounded([ACP], env, ws, log)
    env["PATH"] = f"{peers / spec.where}{os.pathsep}{env.get('PATH', '')}"
    env.update({k: v.replace("{url}", url) for k, v in spec.env.items()})
    args = [str(tmp), *([url] if spec.model_arg else []), *spec.extra]
    return Bounded(["sh", str(DOCS / spec.script), *args], env, ws, log)


def run_once(spec: Spec, model: ModelServer, peers: Path, limit: float) -> dict[str, Any]:
    """One fresh process of an agent: the four figures (ms), None where not reached."""
    tmp = Path(tempfile.mkdtemp(prefix=f"peers-{spec.name}-"))
    out: dict[str, Any] = {figure: None for figure in FIGURES}
    out["error"] = ""
    agent = spawn(spec, tmp, model.url, peers)
    try:
        _, at = agent.ask("initialize", INIT, limit)
        out["initialize"] = (at - agent.start) * 1000
        new, at = agent.ask("session/new", {"cwd": str(tmp / "ws"), "mcpServers": []}, limit)
        out["session_new"] = (at - agent.start) * 1000
        for i, figure in enumerate(FIGURES[2:] if spec.prompts else ()):
            asked = len(model.requests)
            prompt = [{"type": "text", "text": f"Say hello ({i + 1})."}]
            sent = time.perf_counter()
            result, at = agent.ask(
                "session/prompt", {"sessionId": new["sessionId"], "prompt": prompt}, limit
            )
            out[figure] = (at - sent) * 1000
            out[f"{figure}_stop"] = result.get("stopReason")
            out[f"{figure}_model_requests"] = len(model.requests) - asked
    except Exception as exc:  # one failed run must not end the bench
        out["error"] = "timeout" if agent.timed_out else f"{type(exc).__name__}: {exc}"[:300]
        out["stderr"] = (tmp / "stderr.log").read_text(errors="replace")[-600:]
    finally:
        agent.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def version(spec: Spec, peers: Path) -> str:
    if spec.name == "acp":
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=DOCS.parents[1],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return f"this tree ({rev or 'no git'})"
    base = peers / spec.where.split("/")[0]
    if "node_modules" in spec.where:
        meta = base / "node_modules" / spec.package / "package.json"
        found = meta.is_file() and json.loads(meta.read_text()).get("version")
        return str(found or "?")
    for info in base.glob(f"lib/python*/site-packages/{spec.package}-*.dist-info"):
        return info.name.removeprefix(f"{spec.package}-").removesuffix(".dist-info")
    return "?"


def installed(spec: Spec, peers: Path) -> str:
    """Why an agent cannot be run here, or "" when it can."""
    if spec.name == "acp":
        return "" if Path(ACP).exists() else f"no acp at {ACP}"
    if not (peers / spec.where / spec.command).exists():
        return f"not installed ({peers / spec.where / spec.command} is missing)"
    return ""


def warm(specs: list[Spec], model: ModelServer, peers: Path, limit: float) -> list[Spec]:
    """One unmeasured run of each; those that cannot answer `session/new` are left out."""
    ready = []
    for spec in specs:
        why = installed(spec, peers)
        if not why:
            run = run_once(spec, model, peers, limit)
            if run["session_new"] is None:
                why = f"failed to start: {run['error']} {run.get('stderr', '')[-200:]!r}"
        if why:
            print(f"skipped {spec.name}: {why}", flush=True)
        else:
            ready.append(spec)
    return ready


def measure(
    specs: list[Spec], rounds: int, model: ModelServer, peers: Path, limit: float
) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = {spec.name: [] for spec in specs}
    for r in range(rounds):
        order = specs[r % len(specs) :] + specs[: r % len(specs)]  # the order turns each round
        for spec in order:
            run = run_once(spec, model, peers, limit)
            runs[spec.name].append(run)
            shown = " ".join(f"{run[f]:.0f}" if run[f] is not None else "-" for f in FIGURES)
            print(f"  round {r + 1} {spec.name:9} {shown} {run['error']}", flush=True)
    return runs


def cell(values: list[float | None], base: float | None, wanted: bool) -> str:
    if not wanted:
        return "n/a"
    got = [v for v in values if v is not None]
    if not got:
        return f"no answer ({len(values)} runs)"
    median = statistics.median(got)
    text = f"{median:.0f} [{min(got):.0f}-{max(got):.0f}]"
    if len(got) < len(values):
        text += f" ({len(values) - len(got)} of {len(values)} failed)"
    if base:
        text += f" {median / base:.1f}x"
    return text


def table(specs: list[Spec], runs: dict[str, list[dict[str, Any]]], peers: Path) -> str:
    """A Markdown table: median [min-max] ms of each figure, and its ratio to acp's median."""
    bases: dict[str, float | None] = {}
    for figure in FIGURES:
        got = [r[figure] for r in runs.get("acp", []) if r[figure] is not None]
        bases[figure] = statistics.median(got) if got else None
    lines = [
        "| agent | version | " + " | ".join(f"{h} (ms)" for h in HEADS) + " |",
        "|---|---|" + "---:|" * len(HEADS),
    ]
    for spec in specs:
        cells = [
            cell([r[f] for r in runs[spec.name]], bases[f], spec.prompts or i < 2)
            for i, f in enumerate(FIGURES)
        ]
        lines.append(f"| {spec.label} | {version(spec, peers)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    return {
        "cpus": os.cpu_count(),
        "cpu": model.group(1) if model else platform.processor(),
        "system": platform.platform(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--agents", default=",".join(AGENTS), help="names, comma-separated")
    parser.add_argument("--peers", type=Path, default=Path("/tmp/peers"))
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--json", type=Path, help="write the raw numbers here")
    args = parser.parse_args()
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    unknown = [n for n in names if n not in AGENTS]
    if unknown:
        parser.error(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
    info = machine()
    info["load_before"] = uptime()
    print(f"{info['date']}, {info['cpus']} cpus, {info['cpu']}\nbefore: {info['load_before']}")
    model = ModelServer([[{"text": "Hello, world."}]])
    specs = warm([AGENTS[n] for n in names], model, args.peers, args.timeout)
    if not specs:
        print("nothing to measure")
        return 1
    runs = measure(specs, max(args.rounds, 1), model, args.peers, args.timeout)
    model.close()
    info["load_after"] = uptime()
    print(f"after: {info['load_after']}")
    for spec in specs:
        if not spec.prompts:
            print(f"{spec.name}: prompts not measured: {NO_PROMPTS}")
    print(table(specs, runs, args.peers))
    if args.json:
        versions = {s.name: version(s, args.peers) for s in specs}
        raw = {"machine": info, "rounds": args.rounds, "versions": versions, "runs": runs}
        args.json.write_text(json.dumps(raw, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
