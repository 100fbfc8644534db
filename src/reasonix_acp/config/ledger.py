"""A session's running cost: the sum of its calls' quotes (`Ledger`), constant in size however
many calls, persisted with the session's status and quoted as one `CostQuote`.

A total is complete only when every call carried a price; totals in several currencies are kept
apart (`currency_buckets`) and have no single `selected` amount (config/pricing.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from reasonix_acp.config.pricing import EXACT, CostQuote, Money, combined_fingerprint


@dataclass
class Ledger:
    """The running sum of single-call quotes: constant size however many calls, persistable."""

    events: int = 0
    priced: int = 0
    totals: dict[str, Decimal] = field(default_factory=dict)
    fingerprints: set[str] = field(default_factory=set)
    bands: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    catalogs: set[str] = field(default_factory=set)
    rated_at: datetime | None = None
    rate_date: date | None = None

    def add(self, quote: CostQuote) -> None:
        self.events += 1
        _put(self.models, quote.model_ref)
        _put(self.sources, quote.usage_source)
        if quote.rated_at is not None and (
            self.rated_at is None or quote.rated_at >= self.rated_at
        ):
            self.rated_at = quote.rated_at
            self.rate_date = quote.rate_date or self.rate_date
        if not quote.cost_complete:
            return
        self.priced += 1
        cur = quote.original.currency
        self.totals[cur] = EXACT.add(self.totals.get(cur, Decimal(0)), quote.original.amount)
        _put(self.fingerprints, quote.pricing_fingerprint)
        _put(self.bands, quote.rate_band)
        _put(self.catalogs, quote.catalog_source)

    def total(self) -> CostQuote | None:
        """The quote of the sum; None until some call carried a price."""
        if self.priced == 0 or not self.totals:
            return None
        buckets = tuple(Money(self.totals[c], c) for c in sorted(self.totals))
        complete, bucketed = self.priced == self.events, len(buckets) > 1
        reason = "no_price" if not complete else "currency_buckets" if bucketed else None
        return CostQuote(
            original=buckets[0],  # with buckets, originalTotals holds them all
            cost_complete=complete,
            original_totals=buckets if bucketed else (),
            model_ref=_only(self.models),
            usage_source=_only(self.sources, "mixed"),
            pricing_fingerprint=combined_fingerprint(self.fingerprints),
            rate_date=self.rate_date,
            rate_band=_only(self.bands, "mixed"),
            rated_at=self.rated_at,
            incomplete_reason=reason,
            catalog_source=_only(self.catalogs, "mixed"),
            bucketed=bucketed,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "pricedEvents": self.priced,
            "totals": {c: str(a) for c, a in sorted(self.totals.items())},
            "fingerprints": sorted(self.fingerprints),
            "bands": sorted(self.bands),
            "models": sorted(self.models),
            "sources": sorted(self.sources),
            "catalogs": sorted(self.catalogs),
            "ratedAt": self.rated_at.isoformat() if self.rated_at else None,
            "rateDate": self.rate_date.isoformat() if self.rate_date else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ledger:
        """The inverse of `to_json`; ValueError, TypeError or KeyError when `data` is not its
        shape."""
        rated_at, rate_date = data.get("ratedAt"), data.get("rateDate")
        totals = {}
        for cur, text in dict(data["totals"]).items():
            try:
                amount = Decimal(str(text))
            except ArithmeticError:
                raise ValueError(f"ledger: total {text!r} is not a number") from None
            totals[str(cur)] = Money(amount, str(cur)).amount  # checks the code and the amount
        ledger = cls(
            events=int(data["events"]),
            priced=int(data["pricedEvents"]),
            totals=totals,
            rated_at=datetime.fromisoformat(rated_at).astimezone(UTC) if rated_at else None,
            rate_date=date.fromisoformat(rate_date) if rate_date else None,
        )
        for name in ("fingerprints", "bands", "models", "sources", "catalogs"):
            getattr(ledger, name).update(str(v) for v in data.get(name) or [])
        if not 0 <= ledger.priced <= ledger.events or bool(ledger.priced) != bool(totals):
            raise ValueError("ledger: priced events and totals do not agree")
        return ledger


def _put(bag: set[str], value: str | None) -> None:
    if value:
        bag.add(value)


def _only(values: set[str], several: str | None = None) -> str | None:
    """The one value; `several` when there are more, None when there are none."""
    if len(values) == 1:
        return next(iter(values))
    return several if values else None
