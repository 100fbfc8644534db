"""Money and cost quotes for model usage, in the `_reasonix.io` status shapes.

- Amounts are `Decimal`, fixed-point to 1e-9 with trailing zeros trimmed on the wire: `"65"`,
  `"0.0123"`, `"0"`. Never floats.
- Prices are per million tokens, from a provider's `prices = {input, output, cache_hit,
  currency}` in config.toml; DeepSeek providers without prices get the defaults below (CNY,
  DeepSeek's published list prices; change them in config.toml when they change).
- The rate band is `peak` between 09:00-12:00 and 14:00-18:00 Beijing time (UTC+8), else
  `off_peak`; it is recorded on each quote (the defaults price both bands alike).
- Cost of one call = (cache_hit·p_hit + (prompt - cache_hit)·p_input + completion·p_output) / 1e6.
- A total is complete only when every call carried a price; otherwise `costComplete` is false,
  `incompleteReason` says `no_price`, and the legacy `estimatedCost` is null.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

NANO = Decimal("0.000000001")
MILLION = Decimal(1_000_000)
BEIJING = timedelta(hours=8)
PEAK_HOURS = ((9, 12), (14, 18))
# DeepSeek list prices, CNY per million tokens (input = cache miss).
DEEPSEEK_DEFAULTS = {"input": "2", "output": "3", "cache_hit": "0.2", "currency": "CNY"}


def amount(value: Decimal) -> str:
    text = format(value.quantize(NANO), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def money(value: Decimal, currency: str) -> dict[str, str]:
    return {"amount": amount(value), "currency": currency}


def rate_band(at: datetime) -> str:
    local = at.astimezone(UTC) + BEIJING
    return "peak" if any(a <= local.hour < b for a, b in PEAK_HOURS) else "off_peak"


@dataclass(frozen=True)
class Prices:
    input: Decimal
    output: Decimal
    cache_hit: Decimal
    currency: str

    @classmethod
    def from_table(cls, table: dict[str, Any]) -> Prices | None:
        if "input" not in table or "output" not in table:
            return None
        return cls(
            input=Decimal(str(table["input"])),
            output=Decimal(str(table["output"])),
            cache_hit=Decimal(str(table.get("cache_hit", table["input"]))),
            currency=str(table.get("currency") or "USD"),
        )

    def fingerprint(self) -> str:
        data = json.dumps([str(self.input), str(self.output), str(self.cache_hit), self.currency])
        return hashlib.sha256(data.encode()).hexdigest()[:16]


@dataclass
class Ledger:
    """Sum of the quotes of some calls (one turn, or the whole session)."""

    calls: int = 0
    priced: int = 0
    total: Decimal = Decimal(0)
    currency: str | None = None
    bands: set[str] = field(default_factory=set)
    fingerprints: set[str] = field(default_factory=set)
    model: str = ""
    last: datetime | None = None

    def add(
        self,
        prices: Prices | None,
        prompt: int,
        completion: int,
        hit: int,
        model: str,
        at: datetime,
    ) -> None:
        self.calls += 1
        self.model = model
        self.last = at
        self.bands.add(rate_band(at))
        if prices is None or (self.currency not in (None, prices.currency)):
            return
        miss = max(prompt - hit, 0)
        cost = (hit * prices.cache_hit + miss * prices.input + completion * prices.output) / MILLION
        self.priced += 1
        self.total += cost
        self.currency = prices.currency
        self.fingerprints.add(prices.fingerprint())

    @property
    def complete(self) -> bool:
        return self.calls > 0 and self.priced == self.calls

    def estimated_cost(self) -> float | None:
        return float(self.total.quantize(NANO)) if self.complete else None

    def quote(self) -> dict[str, Any] | None:
        """The `costQuote` of the total, or None when no call was priced."""
        if self.priced == 0 or self.currency is None or self.last is None:
            return None
        total = money(self.total, self.currency)
        complete = self.complete
        quote: dict[str, Any] = {
            "original": total,
            "valuations": {
                self.currency: {
                    "money": total,
                    "basis": "identity",
                    "source": "config",
                    "asOf": self.last.astimezone(UTC).strftime("%Y-%m-%d"),
                }
            },
            "selected": total,
            "billingMode": "payg",
            "estimated": True,
            "costComplete": complete,
            "displayComplete": complete,
            "complete": complete,
            "displayStatus": "matched",
            "aggregateMode": "single_currency",
            "modelRef": self.model,
            "usageSource": "executor",
            "pricingFingerprint": ",".join(sorted(self.fingerprints)),
            "rateDate": (self.last.astimezone(UTC) + BEIJING).strftime("%Y-%m-%d"),
            "rateBand": next(iter(self.bands)) if len(self.bands) == 1 else "mixed",
            "ratedAt": self.last.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        if not complete:
            quote["incompleteReason"] = "no_price"
        return quote
