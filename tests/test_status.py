"""Status telemetry and priced usage, checked against the vendor schemas."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.config.ledger import Ledger
from reasonix_acp.config.pricing import (
    DEEPSEEK_SCHEDULE,
    CostQuote,
    ModelPrice,
    PricingTable,
    Rates,
    format_amount,
    unpriced,
)
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.reasonix_io.status import StatusTracker
from reasonix_acp.reasonix_io.status import clip as status_clip
from reasonix_acp.redact import remember, scrub
from reasonix_acp.server import capabilities
from tests import wire
from tests.client import STATUS_OPT_IN, Client


@dataclass
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cache_hit_tokens: int = 0
    reasoning_tokens: int = 0


NOON_UTC = datetime(2026, 12, 2, 4, 0, tzinfo=UTC)  # 12:00 in Beijing
DEEPSEEK = PricingTable.defaults().models["deepseek-flash"]


def deepseek(usage: Usage, at: datetime = NOON_UTC) -> CostQuote:
    return DEEPSEEK.quote(usage, "deepseek/deepseek-flash", at)


def tracker(published: list[dict[str, Any]]) -> StatusTracker:
    return StatusTracker(
        "s1",
        published.append,
        model="deepseek/deepseek-flash",
        effort="auto",
        mode="normal",
        roots=["/w"],
        clock=lambda: NOON_UTC,
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [("65", "65"), ("0.0123000", "0.0123"), ("0", "0"), ("1.0000000004", "1"), ("2.5", "2.5")],
)
def test_amounts_are_trimmed_fixed_point(value: str, text: str) -> None:
    assert format_amount(Decimal(value)) == text


@pytest.mark.parametrize(
    ("hour", "minute", "band"),
    [
        (8, 59, "off_peak"),
        (9, 0, "peak"),
        (11, 59, "peak"),
        (12, 0, "off_peak"),
        (14, 0, "peak"),
        (17, 59, "peak"),
        (18, 0, "off_peak"),
    ],
)
def test_peak_windows_are_beijing_time(hour: int, minute: int, band: str) -> None:
    at = datetime(2026, 12, 2, (hour - 8) % 24, minute, tzinfo=UTC)
    assert DEEPSEEK_SCHEDULE.band(at) == band
    assert deepseek(Usage(1, 1), at).rate_band == band


def test_sixty_five_unit_quotes_total_sixty_five() -> None:
    unit = ModelPrice(Rates(Decimal(1_000_000), Decimal(0), Decimal(1_000_000)), "CNY")
    ledger = Ledger()
    for _ in range(65):
        ledger.add(unit.quote(Usage(1, 0), "m", NOON_UTC))
    total = ledger.total()
    assert total is not None
    quote = total.to_json()
    assert quote["selected"] == {"amount": "65", "currency": "CNY"}
    assert total.cost("CNY") == 65 and total.cost("USD") is None
    assert wire.errors(quote, "ReasonixCostQuote") == []


def test_cache_hits_are_not_counted_twice() -> None:
    ledger = Ledger()
    ledger.add(deepseek(Usage(1_000_000, 0, 400_000)))
    # off-peak (noon in Beijing): 400k hits at 0.02 + 600k misses at 1 per million
    assert ledger.totals == {"CNY": Decimal("0.608")}


def test_an_unpriced_call_makes_the_total_incomplete() -> None:
    ledger = Ledger()
    ledger.add(deepseek(Usage(100, 10)))
    ledger.add(unpriced("m", NOON_UTC))
    total = ledger.total()
    assert total is not None
    quote = total.to_json()
    assert quote["costComplete"] is False and quote["displayStatus"] == "unavailable"
    assert quote["incompleteReason"] == "no_price" and total.cost("CNY") is None
    assert "selected" not in quote and wire.errors(quote, "ReasonixCostQuote") == []


def test_an_unpriced_call_leaves_the_usage_cost_null() -> None:
    published: list[dict[str, Any]] = []
    status = tracker(published)
    status.begin_turn()
    status.usage(Usage(100, 10), deepseek(Usage(100, 10)))
    status.usage(Usage(100, 10), None)
    usage = published[-1]["status"]["usage"]["turn"]
    assert (usage["estimatedCost"], usage["currency"]) == (None, None)
    assert usage["costComplete"] is False and usage["displayComplete"] is False
    assert usage["costQuote"]["incompleteReason"] == "no_price"
    assert wire.errors(published[-1], "ReasonixSessionStatusUpdateNotification") == []


def test_a_turn_publishes_each_change_with_its_sequence() -> None:
    published: list[dict[str, Any]] = []
    status = tracker(published)
    status.begin_turn()
    status.usage(Usage(1000, 50, 800), deepseek(Usage(1000, 50, 800)))
    status.set_phase("waiting_permission")
    status.set_phase("working")
    status.finish_turn("end_turn", summary="done")
    assert [p["event"] for p in published] == ["phase", "usage", "phase", "phase", "completion"]
    assert [p["sequence"] for p in published] == [1, 2, 3, 4, 5]
    for params in published:
        assert params["sequence"] == params["status"]["sequence"]
        assert wire.errors(params, "ReasonixSessionStatusUpdateNotification") == []
    usage = published[-1]["status"]["usage"]["turn"]
    assert usage["cacheHitRatio"] == 0.8 and usage["currency"] == "CNY"
    assert usage["costQuote"]["rateBand"] == "off_peak"
    assert usage["estimatedCost"] == float(Decimal(usage["costQuote"]["selected"]["amount"]))
    # off-peak: 800 hits at 0.02, 200 misses at 1, 50 out at 4 per million
    assert usage["costQuote"]["selected"] == {"amount": "0.000416", "currency": "CNY"}
    assert usage["estimatedCost"] == 0.000416 and usage["costComplete"] is True


@pytest.mark.parametrize(
    ("outcome", "phase", "kind", "event"),
    [
        ("end_turn", "completed", "completed", "completion"),
        ("cancelled", "cancelled", "cancelled", "completion"),
        ("max_turn_requests", "paused", "paused", "pause"),
        ("budget_paused", "paused", "paused", "pause"),
        ("readiness_paused", "readiness_paused", "paused", "pause"),
        ("failed", "error", "error", "error"),
    ],
)
def test_every_outcome_row(outcome: str, phase: str, kind: str, event: str) -> None:
    published: list[dict[str, Any]] = []
    status = tracker(published)
    status.begin_turn()
    status.finish_turn(outcome, reason="Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123")
    last = published[-1]
    assert (last["event"], last["status"]["phase"], last["status"]["turnOutcome"]["kind"]) == (
        phase and event,
        phase,
        kind,
    )
    assert "ghp_" not in str(last) and last["status"]["finalReadiness"]["risks"] == []
    assert wire.errors(last["status"], "ReasonixSessionStatus") == []


def test_the_advertised_vendor_meta_validates() -> None:
    meta = capabilities.initialize_result(ClientFeatures(1))["agentCapabilities"]["_meta"]
    assert wire.errors(meta, "ReasonixAgentCapabilitiesMetaEnvelope") == []


def test_a_restored_running_status_resumes_paused() -> None:
    saved: list[dict[str, Any]] = []
    first = StatusTracker(
        "s1",
        lambda p: None,
        model="m",
        effort="auto",
        mode="normal",
        roots=["/w"],
        clock=lambda: NOON_UTC,
        save=saved.append,
    )
    first.begin_turn()
    first.usage(Usage(100, 10), deepseek(Usage(100, 10)))
    second = StatusTracker(
        "s1",
        lambda p: None,
        model="m",
        effort="auto",
        mode="normal",
        roots=["/w"],
        clock=lambda: NOON_UTC,
    )
    second.restore(json.loads(json.dumps(saved[-1])))  # as stored: through JSON
    status = second.snapshot()
    assert status["state"] == "idle" and status["phase"] == "recovery_paused"
    assert status["sequence"] == saved[-1]["sequence"] + 1
    assert status["turnOutcome"] == {"kind": "paused", "reason": "previous turn interrupted"}
    assert wire.errors(status, "ReasonixSessionStatus") == []


def test_status_survives_a_killed_agent(tmp_path: Any) -> None:
    from pathlib import Path

    from tests.client import Client

    script = Path(__file__).parent / "golden" / "scripts" / "slow.jsonl"
    client = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = client.start()
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "long job"}]},
        }
    )
    while client.agent.receive().get("method") != "_reasonix.io/session/status_update":
        pass
    client.kill()
    again = Client(tmp_path, "--model", "offline", scenario=client.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result("session/resume", {"sessionId": sid, "cwd": client.scenario.vars["CWD"]})
    status = again.result("_reasonix.io/session/status", {"sessionId": sid})
    assert (status["state"], status["phase"], status["sequence"]) == ("idle", "recovery_paused", 2)
    assert again.close() == 0


@pytest.mark.parametrize("size", [6000, 40000])
def test_the_summary_keeps_up_to_16384_bytes_of_the_last_message(tmp_path: Path, size: int) -> None:
    """Through a real `acp`: the readiness summary is the last message, redacted, ≤ 16384 bytes
    (not the 2048 of a reason); a key inside it is still redacted."""
    key = "sk-" + "q" * 30
    text = f"{key} " + "w" * (size - len(key) - 1)
    script = tmp_path / "long.jsonl"
    script.write_text(json.dumps({"steps": [{"text": text, "chunk": 4096}]}) + "\n")
    c = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = c.start()
    c.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]})
    status = c.result("_reasonix.io/session/status", {"sessionId": sid})
    summary = status["finalReadiness"]["summary"]
    assert key not in summary and summary.startswith("[redacted] www")
    assert len(summary.encode()) == min(size - len(key) + len("[redacted]"), 16384)
    c.close()


def test_an_unreachable_endpoint_at_open_shows_until_a_turn_tries_it() -> None:
    published: list[dict[str, Any]] = []
    t = tracker(published)
    t.opened_unreachable("http://h/v1/models: ConnectError: refused")
    assert t.snapshot()["endpointAtOpen"] == {
        "reachable": False,
        "error": "http://h/v1/models: ConnectError: refused",
    }
    assert wire.errors(t.snapshot(), "ReasonixSessionStatus") == []
    t.begin_turn()
    assert "endpointAtOpen" not in t.snapshot()
    t.opened_unreachable("late")  # the open-time check answered after the turn began
    assert "endpointAtOpen" not in t.snapshot()
    assert all(wire.errors(p["status"], "ReasonixSessionStatus") == [] for p in published)


def test_the_endpoint_error_is_redacted_and_bounded() -> None:
    t = tracker([])
    key = "sk-abcdefghijklmnop"
    t.opened_unreachable(
        f"http://h/v1/models: LocalProtocolError: Illegal header value b'Bearer {key}\\n'"
        + "x" * 5000
    )
    error = t.snapshot()["endpointAtOpen"]["error"]
    assert key not in error and "LocalProtocolError: Illegal header value" in error
    assert len(error.encode()) <= 2048


@pytest.mark.parametrize(
    "text",
    [
        " " * 4200 + "A" * 1929 + " " + "Zq8xWv3LmNpR7tYu2KjHgF5dSa1",
        "Authorization: Bearer "
        + "t" * 4300
        + " "
        + "B" * 1800
        + " "
        + "Zq8xWv3LmNpR7tYu2KjHgF5dSa1",
        "w" * 6000 + " Zq8xWv3LmNpR7tYu2KjHgF5dSa1 " + "v" * 9000,
    ],
)
def test_a_clipped_text_never_keeps_part_of_a_secret(text: str) -> None:
    remember("Zq8xWv3LmNpR7tYu2KjHgF5dSa1")
    kept = status_clip(text, 2048)
    assert "Zq8x" not in kept and len(kept.encode()) <= 2048
    assert kept == status_clip_slow(text, 2048)


def status_clip_slow(text: str, limit: int) -> str:
    return scrub(text).strip().encode()[:limit].decode("utf-8", "ignore")


def test_status_updates_go_only_to_clients_that_opt_in(tmp_path: Path) -> None:
    """agent-shell and others print every unknown notification: the status stream is pushed
    only to a client that asks for it in initialize; `_reasonix.io/session/status` answers all."""
    seen = {}
    for name, caps in (("plain", {}), ("opted", STATUS_OPT_IN)):
        client = Client(tmp_path / name, "--model", "offline")
        client.result("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        cwd = client.scenario.vars["CWD"]
        sid = client.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        client.result(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        )
        status = client.result("_reasonix.io/session/status", {"sessionId": sid})
        assert status["state"] == "idle" and status["turnOutcome"]["kind"] == "completed"
        assert client.close() == 0
        seen[name] = [
            n["params"]["event"]
            for n in client.notes
            if n.get("method") == "_reasonix.io/session/status_update"
        ]
    assert seen == {"plain": [], "opted": ["phase", "usage", "completion"]}
