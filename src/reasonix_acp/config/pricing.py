"""Money, prices and cost quotes (`ReasonixMoney`, `ReasonixCostQuote` of schema/vendor).

- Amounts are `Decimal`, never floats, and go on the wire fixed-point to 1e-9 with trailing
  zeros trimmed: `"65"`, `"0.0123"`, `"0"`. Sums keep every digit; only the wire form rounds.
- Prices are per million tokens. One call costs

      (cache_hit_tokens * cache_hit + miss * input + completion_tokens * output) / 1e6

  where `miss` is the prompt tokens that were not cache hits (a hit is never also billed).
- Where prices come from: a provider's own `prices` in config.toml, else the `[pricing]` table
  (pricing_table.py reads it: per-model prices, off-peak prices, peak windows), else the
  defaults below. A call with no price is quoted zero and incomplete (`no_price`).
- An entry with off-peak prices is scheduled: calls inside a peak window (local time of the
  table's UTC offset) use the main prices, others the off-peak ones; quotes carry `rateBand`.
- Defaults (`PricingTable.defaults()`): DeepSeek's published prices for its current models
  (config/deepseek.py; CNY per 1M tokens), peak and off-peak (half): peak is Monday to Friday
  09:00-12:00 and 14:00-18:00 Beijing time (UTC+8). Chinese public holidays are off-peak too,
  which the agent cannot know: `[pricing] off_peak_dates` lists them. Override the prices in
  config.toml when DeepSeek changes them.
- A total (`Ledger.total()`, config/ledger.py) is complete only when every call carried a price; totals in
  several currencies are kept apart (`currency_buckets`) and have no single `selected` amount.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Context, Decimal
from typing import Any, Protocol

from reasonix_acp import digests
from reasonix_acp.config.deepseek import PEAK_DAYS, PEAK_WINDOWS
from reasonix_acp.config.deepseek import PRICES as DEEPSEEK_PRICES

CNY = "CNY"
NANO = Decimal("1e-9")
MILLION = Decimal(1_000_000)
EXACT = Context(prec=80)  # sums of many quotes keep every digit
CURRENCY = re.compile(r"^[A-Z]{3}$")


def format_amount(value: Decimal) -> str:
    """Fixed-point to 1e-9, trailing zeros trimmed; never "-0" or an exponent."""
    text = format(value.quantize(NANO, context=EXACT), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


@dataclass(frozen=True)
class Money:
    """An exact amount in one ISO 4217 currency."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not CURRENCY.match(self.currency):
            raise ValueError(f"currency {self.currency!r} is not an ISO 4217 code")
        if not self.amount.is_finite():
            raise ValueError(f"amount {self.amount!r} is not a finite number")

    def to_json(self) -> dict[str, str]:
        return {"amount": format_amount(self.amount), "currency": self.currency}


class TokenUsage(Protocol):
    """What one model call consumed (providers.base.UsageReport has these)."""

    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def cache_hit_tokens(self) -> int: ...


@dataclass(frozen=True)
class Rates:
    """Prices per million tokens: input (cache miss), output, and input served from the
    cache."""

    input: Decimal
    output: Decimal
    cache_hit: Decimal

    def cost(self, usage: TokenUsage) -> Decimal:
        hit = max(int(usage.cache_hit_tokens), 0)
        # However the provider filled the fields: prompt == hit + miss.
        reported_miss = max(int(getattr(usage, "cache_miss_tokens", 0) or 0), 0)
        miss = max(int(usage.prompt_tokens), hit + reported_miss) - hit
        completion = max(int(usage.completion_tokens), 0)
        total = EXACT.add(
            EXACT.add(hit * self.cache_hit, miss * self.input), completion * self.output
        )
        return EXACT.divide(total, MILLION)

    def as_list(self) -> list[str]:
        return [str(self.input), str(self.output), str(self.cache_hit)]


@dataclass(frozen=True)
class PeakSchedule:
    """Peak windows in minutes after local midnight, [start, end), at a fixed UTC offset."""

    windows: tuple[tuple[int, int], ...]
    utc_offset: timedelta
    days: frozenset[int] = frozenset(range(7))  # the weekdays with peak hours (Monday is 0)
    off_dates: frozenset[date] = frozenset()  # local dates without (public holidays)

    def local(self, at: datetime) -> datetime:
        if at.tzinfo is None:
            raise ValueError("a rating time must be timezone-aware")
        return at.astimezone(UTC) + self.utc_offset

    def band(self, at: datetime) -> str:
        local = self.local(at)
        if local.weekday() not in self.days or local.date() in self.off_dates:
            return "off_peak"
        minute = local.hour * 60 + local.minute
        return "peak" if any(a <= minute < b for a, b in self.windows) else "off_peak"

    def shape(self) -> list[Any]:
        """What the fingerprint of a scheduled price says of the schedule."""
        out: list[Any] = [[list(w) for w in self.windows], int(self.utc_offset.total_seconds())]
        if self.days != frozenset(range(7)) or self.off_dates:
            out += [sorted(self.days), sorted(d.isoformat() for d in self.off_dates)]
        return out


DEEPSEEK_SCHEDULE = PeakSchedule(PEAK_WINDOWS, timedelta(hours=8), PEAK_DAYS)


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices: `rates` (peak, or the only prices) and optional `off_peak`."""

    rates: Rates
    currency: str = CNY
    off_peak: Rates | None = None
    schedule: PeakSchedule = DEEPSEEK_SCHEDULE
    source: str = "config"  # catalogSource: builtin, config, provider

    def rated(self, at: datetime) -> tuple[Rates, str | None]:
        """The rates in effect at `at`, and the band when this entry is scheduled."""
        if self.off_peak is None:
            return self.rates, None
        band = self.schedule.band(at)
        return (self.rates if band == "peak" else self.off_peak), band

    def fingerprint(self) -> str:
        body: list[Any] = [self.currency, self.rates.as_list()]
        if self.off_peak is not None:
            body += [self.off_peak.as_list(), *self.schedule.shape()]
        return _digest(json.dumps(body, separators=(",", ":")))

    def quote(self, usage: TokenUsage, model_ref: str | None, at: datetime) -> CostQuote:
        rates, band = self.rated(at)
        return CostQuote(
            original=Money(rates.cost(usage), self.currency),
            cost_complete=True,
            model_ref=model_ref,
            pricing_fingerprint=self.fingerprint(),
            rate_date=self.schedule.local(at).date(),
            rate_band=band,
            rated_at=at.astimezone(UTC),
            catalog_source=self.source,
        )


def _deepseek(peak: tuple[str, str, str], off_peak: tuple[str, str, str]) -> ModelPrice:
    def rates(hit: str, miss: str, output: str) -> Rates:
        return Rates(Decimal(miss), Decimal(output), Decimal(hit))

    return ModelPrice(rates(*peak), CNY, rates(*off_peak), DEEPSEEK_SCHEDULE, "builtin")


@dataclass(frozen=True)
class PricingTable:
    """Prices by model ("provider/model" or the bare id), and the schedule of the discounted
    hours."""

    models: Mapping[str, ModelPrice] = field(default_factory=dict)
    currency: str = CNY  # of the zero an unpriced call is quoted at
    schedule: PeakSchedule = DEEPSEEK_SCHEDULE  # of every scheduled entry

    @classmethod
    def defaults(cls) -> PricingTable:
        return cls({model: _deepseek(*prices) for model, prices in DEEPSEEK_PRICES.items()})

    def lookup(self, model_ref: str) -> ModelPrice | None:
        """The entry for "provider/model": that exact key first, then the bare model id."""
        if model_ref in self.models:
            return self.models[model_ref]
        _, _, model = model_ref.partition("/")
        return self.models.get(model) if model else None


def unpriced(model_ref: str | None, at: datetime, currency: str = CNY) -> CostQuote:
    """A call no price was known for: zero, marked incomplete."""
    return CostQuote(
        original=Money(Decimal(0), currency),
        cost_complete=False,
        model_ref=model_ref,
        rated_at=at.astimezone(UTC),
        incomplete_reason="no_price",
    )


def flat_fee(amount: Decimal, currency: str, what: str, at: datetime) -> CostQuote:
    """A priced call that is not a model's (a DeepSeek search): a fixed amount, complete."""
    return CostQuote(
        original=Money(amount, currency),
        cost_complete=True,
        model_ref=what,
        pricing_fingerprint=_digest(f"{what}:{amount}:{currency}"),
        rate_date=at.astimezone(UTC).date(),
        rated_at=at.astimezone(UTC),
        catalog_source="builtin",
    )


@dataclass(frozen=True)
class CostQuote:
    """A quote for one call or for a total. `to_json` is the wire form, in schema field order."""

    original: Money
    cost_complete: bool
    original_totals: tuple[Money, ...] = ()
    model_ref: str | None = None
    usage_source: str | None = "executor"
    pricing_fingerprint: str | None = None
    rate_date: date | None = None
    rate_band: str | None = None
    rated_at: datetime | None = None
    incomplete_reason: str | None = None
    catalog_source: str | None = None
    bucketed: bool = False  # mixed currencies: no single total exists

    @property
    def selected(self) -> Money | None:
        """The amount to display: only for a complete, single-currency cost."""
        return self.original if self.cost_complete and not self.bucketed else None

    def cost(self, currency: str) -> float | None:
        """`selected` as a float (its wire amount), when it is in `currency`."""
        selected = self.selected
        if selected is None or selected.currency != currency:
            return None
        return float(format_amount(selected.amount))

    def to_json(self) -> dict[str, Any]:
        selected = self.selected
        if selected is not None:
            status = "matched"
        else:
            status = "bucketed" if self.bucketed and self.cost_complete else "unavailable"
        out: dict[str, Any] = {"original": self.original.to_json()}
        if self.original_totals:
            out["originalTotals"] = [m.to_json() for m in self.original_totals]
        if not self.bucketed and self.rate_date is not None:
            out["valuations"] = {
                self.original.currency: {
                    "money": self.original.to_json(),
                    "basis": "identity",
                    "source": self.catalog_source or "config",
                    "asOf": self.rate_date.isoformat(),
                }
            }
        if selected is not None:
            out["selected"] = selected.to_json()
        out["billingMode"] = "payg"
        out["estimated"] = True
        out["costComplete"] = self.cost_complete
        out["displayComplete"] = selected is not None
        out["complete"] = selected is not None
        out["displayStatus"] = status
        out["aggregateMode"] = "currency_buckets" if self.bucketed else "single_currency"
        optional = {
            "modelRef": self.model_ref,
            "usageSource": self.usage_source,
            "pricingFingerprint": self.pricing_fingerprint,
            "rateDate": self.rate_date.isoformat() if self.rate_date else None,
            "rateBand": self.rate_band,
            "ratedAt": self.rated_at.strftime("%Y-%m-%dT%H:%M:%SZ") if self.rated_at else None,
            "incompleteReason": self.incomplete_reason,
            "catalogSource": self.catalog_source,
        }
        out.update((k, v) for k, v in optional.items() if v is not None)
        return out


class Pricer:
    """Quotes each call of one model at the time it is asked. The same report asked again
    (the status and the turn's budget both ask) gets the same quote back."""

    def __init__(self, model_ref: str, price: ModelPrice | None, currency: str = CNY) -> None:
        self.model_ref, self.price, self.currency = model_ref, price, currency
        self._last: tuple[object, CostQuote] | None = None

    def __call__(self, usage: TokenUsage) -> CostQuote:
        if self._last is not None and self._last[0] is usage:
            return self._last[1]
        at = datetime.now(UTC)
        if self.price is None:
            quote = unpriced(self.model_ref, at, self.currency)
        else:
            quote = self.price.quote(usage, self.model_ref, at)
        self._last = (usage, quote)
        return quote


def _digest(text: str) -> str:
    return digests.sha256_hex(text.encode("utf-8"))[:16]


def combined_fingerprint(fingerprints: set[str]) -> str | None:
    """One entry's fingerprint as is; several hashed together, so any change shows."""
    if len(fingerprints) <= 1:
        return next(iter(fingerprints), None)
    return _digest(",".join(sorted(fingerprints)))
