"""The `[pricing]` table, provider prices, currency buckets and the persisted ledger."""

from __future__ import annotations

import json
import logging
import re
import tomllib
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp import config
from reasonix_acp.config.ledger import Ledger
from reasonix_acp.config.pricing import (
    CostQuote,
    ModelPrice,
    PricingTable,
    Rates,
    unpriced,
)
from reasonix_acp.config.pricing_table import parse_pricing
from reasonix_acp.reasonix_io.status import StatusTracker
from tests import wire
from tests.test_status import NOON_UTC, Usage

MILLION = Usage(1_000_000, 0)  # one million prompt tokens, all missing the cache


def load(tmp: Path, text: str, strict: bool = False) -> config.Config:
    (tmp / "config.toml").write_text(text, encoding="utf-8")
    return config.load(env={"REASONIX_ACP_CONFIG_DIR": str(tmp)}, strict=strict)


def tracker(save: Any = None) -> StatusTracker:
    return StatusTracker(
        "s1",
        lambda p: None,
        model="m",
        effort="auto",
        mode="normal",
        roots=["/w"],
        clock=lambda: NOON_UTC,
        save=save,
    )


GOOD = """
[pricing]
currency = "USD"
peak_windows = ["08:30-17:00"]
utc_offset = "-05:00"

[pricing.models."gpt-x"]
input = "1.25"
output = 10
cache_hit = 0.125

[pricing.models."proxy/deepseek-flash"]
input = 4
output = 6
currency = "CNY"
[pricing.models."proxy/deepseek-flash".off_peak]
input = 1
"""


def test_a_good_table_is_read(tmp_path: Path) -> None:
    table = load(tmp_path, GOOD).pricing
    gpt = table.models["gpt-x"]
    assert gpt.rates == Rates(Decimal("1.25"), Decimal(10), Decimal("0.125"))
    assert (gpt.currency, gpt.off_peak, gpt.source) == ("USD", None, "config")
    proxy = table.models["proxy/deepseek-flash"]
    assert proxy.rates == Rates(Decimal(4), Decimal(6), Decimal(4))  # cache_hit: input
    assert proxy.off_peak == Rates(Decimal(1), Decimal(6), Decimal(4))  # the rest inherited
    assert proxy.currency == "CNY"
    assert proxy.schedule.windows == ((8 * 60 + 30, 17 * 60),)
    assert proxy.schedule.utc_offset.total_seconds() == -5 * 3600
    # The defaults stay, under the table's schedule.
    assert table.models["deepseek-flash"].source == "builtin"
    assert table.models["deepseek-flash"].schedule == proxy.schedule
    # "provider/model" first, then the bare model id.
    assert table.lookup("proxy/deepseek-flash") is proxy
    assert table.lookup("deepseek/deepseek-flash") is table.models["deepseek-flash"]
    assert table.lookup("any/gpt-x") is gpt
    assert table.lookup("any/unknown") is None and table.lookup("gpt-x") is gpt


def test_defaults_can_be_left_out(tmp_path: Path) -> None:
    table = load(tmp_path, "[pricing]\ninclude_defaults = false\n").pricing
    assert dict(table.models) == {}
    assert load(tmp_path, "").pricing == PricingTable.defaults()


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("colour = 1", "pricing.colour: unknown key"),
        ('currency = "usd"', "pricing.currency: expected an ISO 4217 code"),
        ('include_defaults = "yes"', "pricing.include_defaults: expected true or false"),
        ('peak_windows = "09:00-12:00"', "pricing.peak_windows: expected a list"),
        ('peak_windows = ["09:00-12:00", "12-14"]', "pricing.peak_windows[1]: expected"),
        ('peak_windows = ["13:00-12:00"]', "pricing.peak_windows[0]: expected"),
        ('peak_windows = ["09:60-12:00"]', "pricing.peak_windows[0]: expected"),
        ('utc_offset = "+8"', "pricing.utc_offset: expected"),
        ('utc_offset = "+15:00"', "pricing.utc_offset: expected"),
        ("models = 3", "pricing.models: expected a table"),
        ('models = { m = "cheap" }', 'pricing.models."m": expected a table'),
        ("models.m = { input = 1 }", 'pricing.models."m".output: missing'),
        ("models.m = { output = 1 }", 'pricing.models."m".input: missing'),
        ("models.m = { input = -1, output = 1 }", 'pricing.models."m".input: expected a finite'),
        ('models.m = { input = "two", output = 1 }', 'pricing.models."m".input: expected a number'),
        ('models.m = { input = "nan", output = 1 }', 'pricing.models."m".input: expected a finite'),
        ("models.m = { input = true, output = 1 }", 'pricing.models."m".input: expected a number'),
        (
            "models.m = { input = 1, output = 1, cache = 1 }",
            'pricing.models."m".cache: unknown key',
        ),
        (
            'models.m = { input = 1, output = 1, currency = "yen" }',
            'pricing.models."m".currency: expected an ISO 4217 code',
        ),
        (
            "models.m = { input = 1, output = 1, off_peak = 2 }",
            'pricing.models."m".off_peak: expected a table',
        ),
        (
            'models.m = { input = 1, output = 1, off_peak = { currency = "USD" } }',
            'pricing.models."m".off_peak.currency: unknown key',
        ),
        (
            "models.m = { input = 1, output = 1, off_peak = { output = [] } }",
            'pricing.models."m".off_peak.output: expected a number',
        ),
    ],
)
def test_a_bad_table_names_the_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, toml: str, message: str
) -> None:
    text = f"[pricing]\n{toml}\n"
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        parse_pricing(tomllib.loads(text)["pricing"])
    # A reload (strict) refuses it, naming the file and the key.
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        load(tmp_path, text, strict=True)
    assert str(raised.value).startswith(str(tmp_path / "config.toml"))
    # A start-up keeps the defaults and says why.
    with caplog.at_level(logging.WARNING, logger="reasonix_acp.config"):
        assert load(tmp_path, text).pricing == PricingTable.defaults()
    assert message in caplog.text


def test_off_peak_prices_apply_outside_the_peak_windows(tmp_path: Path) -> None:
    price = load(tmp_path, GOOD).pricing.models["proxy/deepseek-flash"]
    # Peak is 08:30-17:00 at UTC-5, that is 13:30-22:00 UTC.
    cases = [
        (datetime(2026, 12, 2, 13, 29, tzinfo=UTC), "off_peak", "1", "2026-12-02"),
        (datetime(2026, 12, 2, 13, 30, tzinfo=UTC), "peak", "4", "2026-12-02"),
        (datetime(2026, 12, 2, 21, 59, tzinfo=UTC), "peak", "4", "2026-12-02"),
        (datetime(2026, 12, 2, 22, 0, tzinfo=UTC), "off_peak", "1", "2026-12-02"),
        (datetime(2026, 12, 3, 4, 0, tzinfo=UTC), "off_peak", "1", "2026-12-02"),  # 23:00 local
    ]
    for at, band, amount, day in cases:
        quote = price.quote(MILLION, "proxy/deepseek-flash", at).to_json()
        assert (quote["rateBand"], quote["selected"]["amount"], quote["rateDate"]) == (
            band,
            amount,
            day,
        ), at
        assert wire.errors(quote, "ReasonixCostQuote") == []


def test_provider_prices_win_over_the_table(tmp_path: Path) -> None:
    cfg = load(
        tmp_path,
        GOOD
        + '[providers.proxy]\nkind = "openai"\nbase_url = "http://x"\n'
        + 'models = ["deepseek-flash", "gpt-x"]\nprices = { input = 0.5, output = "0.75" }\n'
        + '[providers.other]\nkind = "openai"\nbase_url = "http://y"\nmodels = ["gpt-x"]\n'
        + "[providers.deepseek]\n",
    )
    proxy = cfg.providers["proxy"]
    assert proxy.currency == "USD" and proxy.prices == {
        "input": 0.5,
        "output": 0.75,
        "cache_hit": 0.5,
    }
    for model in ("proxy/deepseek-flash", "proxy/gpt-x"):
        quote = cfg.pricer(model)(MILLION)
        assert quote.selected is not None and quote.selected.to_json() == {
            "amount": "0.5",
            "currency": "USD",
        }
        assert quote.catalog_source == "provider"
    # Without prices of its own, the table's entry for the bare model id.
    other = cfg.pricer("other/gpt-x")(MILLION)
    assert other.cost("USD") == 1.25 and cfg.currency_for("other/gpt-x") == "USD"
    # DeepSeek's defaults are CNY, and its models' costs say so (usage_update's currency).
    assert cfg.currency_for("deepseek/deepseek-flash") == "CNY"
    assert cfg.currency_for("proxy/deepseek-flash") == "USD"  # its own prices win
    quote = cfg.pricer("deepseek/deepseek-flash")(MILLION)  # now: a cache miss costs 2, or 1
    assert quote.cost("CNY") == (2 if quote.rate_band == "peak" else 1)
    # Nothing known: quoted zero and incomplete, in the table's currency.
    none = cfg.pricer("other/unknown")(MILLION)
    assert (none.cost_complete, none.incomplete_reason, none.original.currency) == (
        False,
        "no_price",
        "USD",
    )


def test_a_bad_provider_price_is_refused_on_reload(tmp_path: Path) -> None:
    text = '[providers.p]\nkind = "openai"\nmodels = ["m"]\nprices = { input = 1 }\n'
    with pytest.raises(ValueError, match=r"providers\.p\.prices\.output: missing"):
        load(tmp_path, text, strict=True)
    cfg = load(tmp_path, text)
    assert cfg.providers["p"].price is None and cfg.providers["p"].prices == {}
    assert cfg.pricer("p/m")(MILLION).cost_complete is False


def test_a_call_asked_twice_is_quoted_once(tmp_path: Path) -> None:
    cfg = load(tmp_path, "[providers.deepseek]\n")
    usage = Usage(10, 10)
    assert cfg.pricer("deepseek/deepseek-flash") is cfg.pricer("deepseek/deepseek-flash")
    first = cfg.pricer("deepseek/deepseek-flash")(usage)
    assert cfg.pricer("deepseek/deepseek-flash")(usage) is first
    assert cfg.pricer("deepseek/deepseek-flash")(Usage(10, 10)) is not first


USD_UNIT = ModelPrice(Rates(Decimal(1), Decimal(1), Decimal(1)), "USD")
CNY_UNIT = ModelPrice(Rates(Decimal(7), Decimal(7), Decimal(7)), "CNY")


def test_two_currencies_are_kept_in_buckets() -> None:
    saved: list[dict[str, Any]] = []
    status = tracker(saved.append)
    status.begin_turn()
    status.usage(MILLION, USD_UNIT.quote(MILLION, "a/usd", NOON_UTC))
    status.usage(MILLION, CNY_UNIT.quote(MILLION, "b/cny", NOON_UTC))
    status.usage(MILLION, USD_UNIT.quote(MILLION, "a/usd", NOON_UTC))
    snapshot = status.snapshot()
    usage = snapshot["usage"]["cumulative"]
    assert (usage["estimatedCost"], usage["currency"]) == (None, None)
    assert usage["originalTotals"] == [
        {"amount": "7", "currency": "CNY"},
        {"amount": "2", "currency": "USD"},
    ]
    assert (usage["costComplete"], usage["displayComplete"]) == (True, False)
    assert (usage["displayStatus"], usage["aggregateMode"]) == ("bucketed", "currency_buckets")
    quote = usage["costQuote"]
    assert quote["incompleteReason"] == "currency_buckets" and "selected" not in quote
    assert quote["originalTotals"] == usage["originalTotals"] and "valuations" not in quote
    assert "modelRef" not in quote  # two models
    assert wire.errors(snapshot, "ReasonixSessionStatus") == []
    # One currency only: no originalTotals, a selected amount.
    single = Ledger()
    single.add(USD_UNIT.quote(MILLION, "a/usd", NOON_UTC))
    total = single.total()
    assert total is not None and "originalTotals" not in total.to_json()
    assert total.to_json()["selected"] == {"amount": "1", "currency": "USD"}


def filled_ledger() -> Ledger:
    ledger = Ledger()
    at = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)  # 09:00 in Beijing: peak
    deepseek = PricingTable.defaults().models["deepseek-flash"]
    ledger.add(deepseek.quote(Usage(1000, 10, 600), "deepseek/deepseek-flash", at))
    ledger.add(USD_UNIT.quote(Usage(3, 0), "a/usd", NOON_UTC))
    ledger.add(unpriced("x/y", NOON_UTC))
    return ledger


def test_the_ledger_round_trips_through_json() -> None:
    ledger = filled_ledger()
    data = json.loads(json.dumps(ledger.to_json()))
    assert data["events"] == 3 and data["pricedEvents"] == 2
    assert data["totals"] == {"CNY": "0.000904", "USD": "0.000003"}  # 600*0.04+400*2+10*8
    assert data["bands"] == ["peak"] and data["models"] == [
        "a/usd",
        "deepseek/deepseek-flash",
        "x/y",
    ]
    again = Ledger.from_json(data)
    assert again == ledger
    assert again.total() == ledger.total()
    total = again.total()
    assert total is not None and total.to_json()["costComplete"] is False
    assert Ledger.from_json(Ledger().to_json()) == Ledger()


@pytest.mark.parametrize(
    "change",
    [
        {"totals": {"CNY": "lots"}},
        {"totals": {"cny": "1"}},
        {"totals": {"CNY": "Infinity"}},
        {"pricedEvents": 9},
        {"totals": {}},
        {"ratedAt": "yesterday"},
    ],
)
def test_a_bad_ledger_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Ledger.from_json({**filled_ledger().to_json(), **change})


OLD_SAVED = {
    "sequence": 7,
    "state": "idle",
    "phase": "completed",
    "turnOutcome": {"kind": "completed"},
    "finalReadiness": {"readyForReview": True, "summary": "done", "risks": []},
    "cumulative": {"prompt": 2000, "completion": 100, "reasoning": 0, "cache_hit": 500},
    "ledger": {
        "calls": 2,
        "priced": 2,
        "total": "0.0036",
        "currency": "CNY",
        "bands": ["off_peak"],
        "fingerprints": ["0123456789abcdef"],
        "model": "deepseek/deepseek-flash",
        "last": "2026-12-01T23:30:00+00:00",  # 07:30 on the 2nd in Beijing
    },
}


def test_a_status_saved_in_the_old_shape_restores() -> None:
    status = tracker()
    status.restore(json.loads(json.dumps(OLD_SAVED)))
    snapshot = status.snapshot()
    assert (snapshot["sequence"], snapshot["phase"], snapshot["state"]) == (7, "completed", "idle")
    usage = snapshot["usage"]["cumulative"]
    assert (usage["promptTokens"], usage["estimatedCost"], usage["currency"]) == (
        2000,
        0.0036,
        "CNY",
    )
    quote = usage["costQuote"]
    assert quote["selected"] == {"amount": "0.0036", "currency": "CNY"}
    assert (quote["rateBand"], quote["rateDate"], quote["modelRef"]) == (
        "off_peak",
        "2026-12-02",
        "deepseek/deepseek-flash",
    )
    assert quote["pricingFingerprint"] == "0123456789abcdef"
    assert wire.errors(snapshot, "ReasonixSessionStatus") == []
    # Later calls add to it, and it is saved in the new shape.
    saved: list[dict[str, Any]] = []
    status.save = saved.append
    status.begin_turn()
    status.usage(
        MILLION, PricingTable.defaults().models["deepseek-flash"].quote(MILLION, "m", NOON_UTC)
    )
    status.finish_turn("end_turn")
    assert saved[-1]["ledger"]["totals"] == {"CNY": "1.0036"}  # 1M misses off-peak at 1
    assert saved[-1]["ledger"]["events"] == 3


def test_an_unreadable_saved_ledger_keeps_the_sequence() -> None:
    status = tracker()
    status.restore({**OLD_SAVED, "ledger": {"calls": "many"}, "state": "running"})
    snapshot = status.snapshot()
    assert (snapshot["sequence"], snapshot["phase"]) == (8, "recovery_paused")
    assert snapshot["usage"]["cumulative"]["promptTokens"] == 2000
    assert "costQuote" not in snapshot["usage"]["cumulative"]


def test_the_new_shape_round_trips_through_a_restart() -> None:
    saved: list[dict[str, Any]] = []
    first = tracker(saved.append)
    first.begin_turn()
    first.usage(MILLION, USD_UNIT.quote(MILLION, "a/usd", NOON_UTC))
    first.usage(MILLION, CNY_UNIT.quote(MILLION, "b/cny", NOON_UTC))
    first.finish_turn("end_turn")
    second = tracker()
    second.restore(json.loads(json.dumps(saved[-1])))
    assert second.all_ledger == first.all_ledger
    assert second.snapshot()["usage"]["cumulative"] == first.snapshot()["usage"]["cumulative"]


def test_quotes_are_exact_decimals() -> None:
    tenth = ModelPrice(Rates(Decimal("0.1"), Decimal("0.2"), Decimal("0.1")), "USD")
    ledger = Ledger()
    for _ in range(10):
        ledger.add(tenth.quote(Usage(1, 1), "m", NOON_UTC))
    assert ledger.totals == {"USD": Decimal("0.000003")}
    quote: CostQuote | None = ledger.total()
    assert quote is not None and quote.cost("USD") == 0.000003


def test_deepseek_peak_is_weekday_office_hours_in_beijing_and_holidays_are_off_peak(
    tmp_path: Path,
) -> None:
    """DeepSeek's pricing page: peak is Monday to Friday 09:00-12:00 and 14:00-18:00 Beijing
    time; weekends and Chinese public holidays (listed by the user) are off-peak, at half."""
    flash = PricingTable.defaults().models["deepseek-flash"]
    pro = PricingTable.defaults().models["deepseek-v4-pro"]
    wednesday_10 = datetime(2026, 12, 2, 2, 0, tzinfo=UTC)  # 10:00 in Beijing
    saturday_10 = datetime(2026, 12, 5, 2, 0, tzinfo=UTC)
    wednesday_13 = datetime(2026, 12, 2, 5, 0, tzinfo=UTC)  # the lunch hour
    for at, band, flash_cost, pro_cost in (
        (wednesday_10, "peak", "2", "9.0"),
        (saturday_10, "off_peak", "1", "4.5"),
        (wednesday_13, "off_peak", "1", "4.5"),
    ):
        quote = flash.quote(MILLION, "deepseek/deepseek-flash", at)
        assert (quote.rate_band, quote.original.amount) == (band, Decimal(flash_cost))
        assert pro.quote(MILLION, "deepseek/deepseek-v4-pro", at).original.amount == Decimal(
            pro_cost
        )
    # A cache hit and an output token, at peak: 0.04 and 8 per million (flash), 0.30 and 27 (pro)
    hit_and_out = Usage(1_000_000, 1_000_000, 1_000_000)
    assert flash.quote(hit_and_out, "m", wednesday_10).original.amount == Decimal("8.04")
    assert pro.quote(hit_and_out, "m", wednesday_10).original.amount == Decimal("27.30")
    holiday = load(tmp_path, '[pricing]\noff_peak_dates = ["2026-12-02"]\n').pricing
    quote = holiday.models["deepseek-flash"].quote(MILLION, "m", wednesday_10)
    assert (quote.rate_band, quote.original.amount) == ("off_peak", Decimal(1))
    with pytest.raises(ValueError, match=r"off_peak_dates\[0\]"):
        load(tmp_path, '[pricing]\noff_peak_dates = ["Dec 2"]\n', strict=True)
    with pytest.raises(ValueError, match=r"peak_days"):
        load(tmp_path, '[pricing]\npeak_days = ["monday"]\n', strict=True)
