"""A session left running: 300 turns of tool calls with large outputs against an
OpenAI-compatible server on 127.0.0.1 that reports usage (a token per 4 bytes of the request)
and refuses, as real servers do, a request longer than its 32,768-token context.

Each turn: the prompt, a `read` of a 24 KB file (its result cut to what one result may take of
the context, 16 KB here), a `read` of a small one, a reply. The session compacts as it goes; the figures:

1. turns that failed (target 0), compactions, and the server's refusals (target 0: the agent
   compacts before it is refused);
2. the common prefix of consecutive requests, as a share of the previous request's bytes
   (without its closing brackets), outside compaction points: median and lowest (target: the
   lowest ≥ 0.95; only a compaction changes the prefix);
3. the agent's own time per model request (from the prompt, or the previous answer's last
   byte, to the request's first byte), median over turns 5-15 and over turns 290-300, and their
   ratio (shown only: the two windows are minutes apart and half a second long, so a burst of
   other work on the machine in one of them moves it by half either way); then the aged
   session's turns against a young session's (5 turns) in the same process, alternating turn
   for turn: the median of the pairs' ratios (target ≤ 1.1: a turn costs what it adds, not what
   the session holds);
4. the time a compaction adds apart from the model's own time (from the summary's last byte to
   the next request), median;
5. `session/load` of the session in a fresh process, after one `session/list` has loaded the
   session code as in bench/sessions.py (its transcript: every compaction and every event of
   the 300 turns, the tool output shown included), median of 5 (target ≤ 60 ms).

`--deepseek`: the server also keeps DeepSeek's rules (tests/deepseek_server.py): thinking on,
each reply's `reasoning_content` streamed first, a request refused (HTTP 400) when a tool
stretch lacks its reasoning; the agent runs on a `deepseek` provider, and the prefix figures
include the reasoning sent back. It also reports the cache hit share: prompt tokens the server
counted as hits (the request's prefix shared with the previous one, in 64-token blocks).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ready import Agent, environment

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the stand-in's rules
from tests.deepseek_server import BLOCK, problem

WINDOW = 32768
RESULT = 24 * 1024
FILES = ("big.txt", "small.txt")  # read in this order, each turn


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _stream(
    delta: dict[str, Any], finish: str, prompt_tokens: int, thought: str = "", hit: int = 0
) -> bytes:
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 20}
    if thought:
        usage |= {"prompt_cache_hit_tokens": hit, "prompt_cache_miss_tokens": prompt_tokens - hit}
    thinking = [_chunk({"reasoning_content": thought})] if thought else []
    return b"".join(
        [
            *thinking,
            _chunk({"role": "assistant", **delta}),
            _chunk({}, finish=finish),
            b"data: " + json.dumps({"id": "c", "choices": [], "usage": usage}).encode() + b"\n\n",
            b"data: [DONE]\n\n",
        ]
    )


class Model(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, deepseek: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.deepseek = deepseek  # DeepSeek's rules and reasoning (tests/deepseek_server.py)
        self.why: list[str] = []  # why each refusal was given
        self.hits = [0, 0]  # prompt tokens counted as cache hits, and in all
        self.requests: list[tuple[float, bytes, str]] = []  # (arrived, body, kind)
        self.answered: list[float] = []
        self.refused = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: Model

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(200, "application/json", json.dumps({"data": [{"id": "bench-model"}]}).encode())

    def do_POST(self) -> None:
        arrived = time.perf_counter()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request = json.loads(body)
        tokens = len(body) // 4
        why = problem(request, ["deepseek-flash"]) if self.server.deepseek else None
        if tokens > WINDOW or why is not None:
            self.server.refused += 1
            message = why or f"This model's maximum context length is {WINDOW} tokens"
            self.server.why.append(message)
            self._send(
                400, "application/json", json.dumps({"error": {"message": message}}).encode()
            )
            return
        last = request["messages"][-1]
        kind, answer = _answer(request["messages"], last, tokens, self._hit(body, tokens))
        with self.server.lock:
            self.server.requests.append((arrived, body, kind))
        self._send(200, "text/event-stream", answer)
        with self.server.lock:
            self.server.answered.append(time.perf_counter())

    def _hit(self, body: bytes, tokens: int) -> int | None:
        """DeepSeek: the prompt tokens its prefix cache holds (shared with the previous
        request, in 64-token blocks); None when the server is not DeepSeek's."""
        if not self.server.deepseek:
            return None
        with self.server.lock:
            before = self.server.requests[-1][1] if self.server.requests else b""
        hit = min(common_prefix(before, body) // 4 // BLOCK * BLOCK, tokens)
        self.server.hits[0] += hit
        self.server.hits[1] += tokens
        return hit

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def _answer(
    messages: list[dict[str, Any]], last: dict[str, Any], tokens: int, hit: int | None = None
) -> tuple[str, bytes]:
    content = str(last.get("content") or "")
    thought = "" if hit is None else f"Step {len(messages)}: the next read, then the reply. " * 3
    if last["role"] == "user" and content.startswith("[Compaction]"):
        summary = "Summary: the user asked for the big file to be read, turn after turn. " * 12
        return "summary", _stream({"content": summary}, "stop", tokens, thought, hit or 0)
    reads = 0
    for message in reversed(messages):
        if message["role"] == "user":
            break
        reads += message["role"] == "tool"
    if reads < len(FILES):
        call = {
            "index": 0,
            "id": f"call_{time.perf_counter_ns()}",
            "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": FILES[reads]})},
        }
        return "tool", _stream({"tool_calls": [call]}, "tool_calls", tokens, thought, hit or 0)
    reply = {"content": "Read both; nothing changed."}
    return "reply", _stream(reply, "stop", tokens, thought, hit or 0)


def common_prefix(a: bytes, b: bytes) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # the longest equal prefix, by halving (the bodies are long)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def run(tmp: Path, turns: int, deepseek: bool = False) -> dict[str, Any]:
    model = Model(deepseek)
    cwd = tmp / "ws"
    cwd.mkdir()
    (cwd / "big.txt").write_text(("0123456789abcdef" * 4 + "\n") * (RESULT // 65), "utf-8")
    (cwd / "small.txt").write_text("a few lines\nof a small file\n" * 20, "utf-8")
    env = environment(tmp, model)
    env["REASONIX_ACP_SANDBOX"] = "off"
    config = Path(env["HOME"]) / ".config" / "reasonix-acp"
    config.mkdir(parents=True, exist_ok=True)
    text = f'[context.windows]\n"openai/bench-model" = {WINDOW}\n'
    if deepseek:  # a DeepSeek provider at the server, in DeepSeek's dialect
        for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            env.pop(name)
        base = model.url.removesuffix("/v1")
        text = (
            f'default_model = "ds/deepseek-flash"\n[context.windows]\n"ds/deepseek-flash" = {WINDOW}\n'
            f'[providers.ds]\nkind = "deepseek"\nbase_url = "{base}"\napi_key = "k"\n'
            'models = ["deepseek-flash"]\n'
        )
    (config / "config.toml").write_text(text, "utf-8")
    agent = Agent(env)
    agent.until(agent.send("initialize", {"protocolVersion": 1}))
    sid = agent.until(agent.send("session/new", {"cwd": str(cwd), "mcpServers": []}))[0][
        "sessionId"
    ]
    failed, own = 0, []  # own: per turn, the agent's time per model request (ms)
    for n in range(turns):
        ok, ms = _turn(agent, model, sid, n)
        failed += not ok
        own.append(ms)
    requests = len(model.requests)  # the figures below read the long session's only
    hits = list(model.hits)
    aged = _alongside(agent, model, sid, cwd)
    agent.close()
    return {
        "model": model,
        "own": own,
        "failed": failed,
        "sid": sid,
        "env": env,
        "cwd": cwd,
        "requests": requests,
        "hits": hits,
        "aged": aged,
    }


def _turn(agent: Agent, model: Model, sid: str, n: int) -> tuple[bool, float]:
    """One turn; whether it ended well, and the agent's median time per model request (ms)."""
    first = len(model.requests)
    sent = time.perf_counter()
    prompt = [{"type": "text", "text": f"read big.txt and small.txt ({n})"}]
    frame_id = agent.send("session/prompt", {"sessionId": sid, "prompt": prompt})
    try:
        result, _ = agent.until(frame_id)
    except AssertionError:
        return False, 0.0
    with model.lock:
        mine = model.requests[first:]
        answers = model.answered[first:]
    starts = [sent, *answers[:-1]]
    waits = [
        (arrived - start) * 1000
        for (arrived, _, kind), start, before in zip(mine, starts, [None, *mine[:-1]], strict=True)
        if kind != "summary" and (before is None or before[2] != "summary")
    ]
    return result.get("stopReason") == "end_turn", statistics.median(waits) if waits else 0.0


def _alongside(agent: Agent, model: Model, sid: str, cwd: Path, pairs: int = 12) -> list[float]:
    """The aged session's turns against a young one's in the same process, alternating, turn
    for turn (after 5 turns to settle the young one): per pair, aged / young agent time. Turns
    seconds apart share the machine's state, so the ratio is the session's age, not the
    machine's mood between the early and the late turns of the long run."""
    young = agent.until(agent.send("session/new", {"cwd": str(cwd), "mcpServers": []}))[0][
        "sessionId"
    ]
    for n in range(5):
        _turn(agent, model, young, n)
    ratios = []
    for n in range(pairs):
        order = (sid, young) if n % 2 == 0 else (young, sid)
        times = {one: _turn(agent, model, one, 1000 + n)[1] for one in order}
        if times[young]:
            ratios.append(times[sid] / times[young])
    return ratios


def figures(done: dict[str, Any]) -> dict[str, Any]:
    model: Model = done["model"]
    requests = model.requests[: done["requests"]]
    ratios, added = [], []
    for i in range(1, len(requests)):
        (_, prev, prev_kind), (arrived, cur, kind) = requests[i - 1], requests[i]
        if prev_kind == "summary":
            added.append((arrived - model.answered[i - 1]) * 1000)
            continue
        if kind == "summary" or (i >= 2 and requests[i - 2][2] == "summary"):
            continue  # the summary request ends with its own ask
        ratios.append(common_prefix(prev, cur) / (len(prev) - 2))
    own = done["own"]
    return {
        "compactions": sum(kind == "summary" for _, _, kind in requests),
        "requests": len(requests),
        "refused": model.refused,
        "prefix_median": statistics.median(ratios),
        "prefix_lowest": min(ratios),
        "own_early": statistics.median(own[5:15]),
        "own_late": statistics.median(own[-10:]),
        "compaction_added": statistics.median(added) if added else 0.0,
    }


def load_time(done: dict[str, Any], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        agent = Agent(done["env"])
        agent.until(agent.send("initialize", {"protocolVersion": 1}))
        agent.until(agent.send("session/list", {}))  # warm, as bench/sessions.py measures
        sent = time.perf_counter()
        params = {"sessionId": done["sid"], "cwd": str(done["cwd"]), "mcpServers": []}
        _, answered = agent.until(agent.send("session/load", params))
        times.append((answered - sent) * 1000)
        agent.close()
    return statistics.median(times)


def events(done: dict[str, Any]) -> int:
    import sqlite3

    data = Path(done["env"]["HOME"]) / ".local" / "share" / "reasonix-acp"
    db = next(data.rglob("*.sqlite*"), None) or next(data.rglob("*.db"))
    with sqlite3.connect(db) as conn:
        query = "SELECT count(*) FROM events WHERE session_id = ?"  # the aged session's
        (count,) = conn.execute(query, (done["sid"],)).fetchone()
    return int(count)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--deepseek", action="store_true", help="DeepSeek's rules and thinking")
    args = parser.parse_args()
    turns = max(args.turns, 30)
    done = run(Path(tempfile.mkdtemp()), turns, args.deepseek)
    f = figures(done)
    load = load_time(done)
    stored = events(done)
    ratio = f["own_late"] / f["own_early"] if f["own_early"] else float("inf")
    kind = ", DeepSeek's rules, thinking on" if args.deepseek else ""
    print(
        f"long session ({turns} turns, {f['requests']} model requests, window {WINDOW} tokens{kind})"
    )
    print(f"  failed turns            {done['failed']}   (target 0)")
    print(f"  compactions             {f['compactions']}   refused by the server: {f['refused']}")
    model: Model = done["model"]
    if model.why:
        print(f"  refusals said           {sorted(set(model.why))[:3]}")
    if model.deepseek:
        hit, tokens = done["hits"]
        share = hit / tokens if tokens else 0.0
        print(f"  cache hit share         {share:.4f} of {tokens} prompt tokens (DeepSeek)")
    print(
        f"  common prefix           median {f['prefix_median']:.4f}, lowest {f['prefix_lowest']:.4f}"
        "   (target: lowest ≥ 0.95 outside compactions)"
    )
    aged = statistics.median(done["aged"])
    print(
        f"  agent time per request  turns 5-15 {f['own_early']:.2f} ms, last 10 turns "
        f"{f['own_late']:.2f} ms, ratio {ratio:.2f}   (minutes apart: the machine's noise too)"
    )
    print(
        f"  aged against young      {aged:.2f}, pairs {min(done['aged']):.2f}-"
        f"{max(done['aged']):.2f}   (target ≤ 1.1: turn {turns} against a 5-turn session's,"
        " alternating)"
    )
    print(f"  a compaction adds       {f['compaction_added']:.2f} ms apart from the model")
    print(f"  session/load            {load:.1f} ms for {stored} events   (target ≤ 60 ms)")
    over = (
        done["failed"] > 0
        or f["refused"] > 0
        or f["prefix_lowest"] < 0.95
        or aged > 1.1
        or load > 60
    )
    return 1 if over else 0


if __name__ == "__main__":
    os.chdir(Path(__file__).parent)
    raise SystemExit(main())
