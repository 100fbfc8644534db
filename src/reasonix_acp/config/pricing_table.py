"""The `[pricing]` table of config.toml, and a provider's own `prices`, read into pricing.py's
`PricingTable` and `ModelPrice`:

    [pricing]
    currency = "CNY"                              # of entries without their own; default CNY
    include_defaults = true                       # keep the built-in DeepSeek entries
    peak_windows = ["09:00-12:00", "14:00-18:00"] # local time, start inclusive, end exclusive
    peak_days = ["mon", "tue", "wed", "thu", "fri"]  # the days with peak hours
    off_peak_dates = ["2026-10-01", "2026-10-02"] # local dates that are off-peak all day
    utc_offset = "+08:00"                         # the zone of peak_windows and rate dates

    [pricing.models."deepseek-flash"]             # a model id, or "provider/model"
    input = 2            # per 1M prompt tokens missing the cache
    output = 3           # per 1M completion tokens
    cache_hit = 0.2      # per 1M prompt tokens hitting the cache (default: input)
    currency = "CNY"
    [pricing.models."deepseek-flash".off_peak]    # optional; same keys but currency, each
    input = 1                                     # defaulting to the entry's own

A provider's `prices = {input, output, cache_hit, currency}` has the shape of one entry (its
currency defaulting to USD) and wins over the table for that provider's models.

Numbers may be TOML integers, floats or decimal strings ("0.2"). A bad value, a missing price or
an unknown key raises ValueError naming the key, e.g. `pricing.models."m".output: missing`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from reasonix_acp.config.pricing import (
    CNY,
    CURRENCY,
    DEEPSEEK_SCHEDULE,
    ModelPrice,
    PeakSchedule,
    PricingTable,
    Rates,
)

_WINDOW = re.compile(r"^(\d{2}):(\d{2})-(\d{2}):(\d{2})$")
_OFFSET = re.compile(r"^([+-])(\d{2}):(\d{2})$")
_TABLE_KEYS = {
    "currency",
    "include_defaults",
    "peak_windows",
    "peak_days",
    "off_peak_dates",
    "utc_offset",
    "models",
}
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ENTRY_KEYS = {"input", "output", "cache_hit", "currency", "off_peak"}
_OFF_PEAK_KEYS = {"input", "output", "cache_hit"}


def parse_pricing(table: Any) -> PricingTable:
    """`[pricing]`; the built-in entries are kept unless `include_defaults = false`."""
    _table(table, "pricing", _TABLE_KEYS)
    currency = _currency(table.get("currency", CNY), "pricing.currency")
    include = table.get("include_defaults", True)
    if not isinstance(include, bool):
        raise ValueError(f"pricing.include_defaults: expected true or false, got {include!r}")
    schedule = _schedule(table)
    models = dict(PricingTable.defaults().models) if include else {}
    raw = table.get("models", {})
    if not isinstance(raw, Mapping):
        raise ValueError("pricing.models: expected a table")
    for key, entry in raw.items():
        models[key] = parse_price(entry, f'pricing.models."{key}"', currency=currency)
    scheduled = {k: replace(v, schedule=schedule) for k, v in models.items()}
    return PricingTable(scheduled, currency, schedule)


def parse_price(
    table: Any,
    where: str,
    *,
    currency: str = CNY,
    schedule: PeakSchedule = DEEPSEEK_SCHEDULE,
    source: str = "config",
) -> ModelPrice:
    """One entry; `currency` is the default of an entry that names none."""
    _table(table, where, _ENTRY_KEYS)
    rates = _rates(table, where, None)
    off_peak = None
    if "off_peak" in table:
        _table(table["off_peak"], f"{where}.off_peak", _OFF_PEAK_KEYS)
        off_peak = _rates(table["off_peak"], f"{where}.off_peak", rates)
    own = _currency(table.get("currency", currency), f"{where}.currency")
    return ModelPrice(rates, own, off_peak, schedule, source)


def _table(table: Any, where: str, known: set[str]) -> None:
    if not isinstance(table, Mapping):
        raise ValueError(f"{where}: expected a table, got {table!r}")
    for key in table:
        if key not in known:
            raise ValueError(f"{where}.{key}: unknown key")


def _currency(value: Any, where: str) -> str:
    if not isinstance(value, str) or not CURRENCY.match(value):
        raise ValueError(f"{where}: expected an ISO 4217 code such as CNY, got {value!r}")
    return value


def _price(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{where}: expected a number, got {value!r}") from None
    if not number.is_finite() or number < 0:
        raise ValueError(f"{where}: expected a finite number >= 0, got {value!r}")
    return number


def _rates(table: Mapping[str, Any], where: str, base: Rates | None) -> Rates:
    """The rates of an entry; off-peak ones (`base` given) default to the entry's prices."""
    values: dict[str, Decimal] = {}
    for key in ("input", "output", "cache_hit"):
        if key in table:
            values[key] = _price(table[key], f"{where}.{key}")
        elif base is not None:
            values[key] = getattr(base, key)
        elif key != "cache_hit":
            raise ValueError(f"{where}.{key}: missing")
    return Rates(values["input"], values["output"], values.get("cache_hit", values["input"]))


def _schedule(table: Mapping[str, Any]) -> PeakSchedule:
    windows = DEEPSEEK_SCHEDULE.windows
    if "peak_windows" in table:
        raw = table["peak_windows"]
        if not isinstance(raw, list):
            raise ValueError(f'pricing.peak_windows: expected a list of "HH:MM-HH:MM", got {raw!r}')
        parsed = []
        for i, item in enumerate(raw):
            m = _WINDOW.match(item) if isinstance(item, str) else None
            start = int(m[1]) * 60 + int(m[2]) if m else -1
            end = int(m[3]) * 60 + int(m[4]) if m else -1
            if not m or int(m[2]) > 59 or int(m[4]) > 59 or not 0 <= start < end <= 24 * 60:
                raise ValueError(f'pricing.peak_windows[{i}]: expected "HH:MM-HH:MM", got {item!r}')
            parsed.append((start, end))
        windows = tuple(parsed)
    offset = DEEPSEEK_SCHEDULE.utc_offset
    if "utc_offset" in table:
        raw_offset = table["utc_offset"]
        m = _OFFSET.match(raw_offset) if isinstance(raw_offset, str) else None
        if not m or int(m[2]) > 14 or int(m[3]) > 59:
            raise ValueError(f'pricing.utc_offset: expected "+HH:MM", got {raw_offset!r}')
        offset = timedelta(hours=int(m[2]), minutes=int(m[3])) * (-1 if m[1] == "-" else 1)
    return PeakSchedule(windows, offset, _days(table), _dates(table))


def _days(table: Mapping[str, Any]) -> frozenset[int]:
    raw = table.get("peak_days")
    if raw is None:
        return DEEPSEEK_SCHEDULE.days
    if not isinstance(raw, list) or any(d not in DAYS for d in raw):
        raise ValueError(f"pricing.peak_days: expected a list of {', '.join(DAYS)}, got {raw!r}")
    return frozenset(DAYS.index(d) for d in raw)


def _dates(table: Mapping[str, Any]) -> frozenset[date]:
    raw = table.get("off_peak_dates", [])
    if not isinstance(raw, list):
        raise ValueError(f'pricing.off_peak_dates: expected a list of "YYYY-MM-DD", got {raw!r}')
    out = set()
    for i, item in enumerate(raw):
        try:
            out.add(item if isinstance(item, date) else date.fromisoformat(str(item)))
        except ValueError:
            raise ValueError(
                f'pricing.off_peak_dates[{i}]: expected "YYYY-MM-DD", got {item!r}'
            ) from None
    return frozenset(out)
