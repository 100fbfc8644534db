"""The base class of every generated model: lenient where the schema says so, and never silent.

The upstream schema marks fields `x-deserialize-default-on-error` (a malformed value falls back to
the field's default) and arrays `x-deserialize-skip-invalid-items` (a malformed item is dropped,
the rest kept). The generator turns those marks into per-class tables and hands them to
`register`; the wrap validator below applies them. Every fallback and every dropped item is
logged on stderr with the class, the field and the pydantic error, so no data disappears quietly.

Catch-all variants of extensible unions (`CreateElicitationResponseOther` ...) accept any tag
except the known ones, so a known tag with a bad payload fails instead of passing as "other".
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

log = logging.getLogger("reasonix_acp.lenient")

# (module, class name) → {alias: rule}; (module, class name) → {tag alias: known values}.
_RULES: dict[tuple[str, str], dict[str, str]] = {}
_REJECT: dict[tuple[str, str], dict[str, list[str]]] = {}

# A model is re-validated at most this many times while salvaging; each pass removes at least
# one offending key or item, so this bounds the work on hostile input.
_MAX_SALVAGE_PASSES = 64


def register(
    module: str, rules: dict[str, dict[str, str]], reject: dict[str, dict[str, list[str]]]
) -> None:
    for name, fields in rules.items():
        _RULES[(module, name)] = fields
    for name, tags in reject.items():
        _REJECT[(module, name)] = tags


def _collect(cls: type, table: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        merged.update(table.get((klass.__module__, klass.__name__), {}))
    return merged


def _salvage_once(
    cls: type, data: dict[str, Any], exc: ValidationError, rules: dict[str, str]
) -> dict[str, Any] | None:
    """A copy of `data` with the offending lenient values removed, or None if none apply."""
    fixed = dict(data)
    drops: dict[str, set[int]] = {}
    changed = False
    for err in exc.errors():
        loc = err["loc"]
        if not loc or not isinstance(loc[0], str):
            continue
        key = loc[0]
        rule = rules.get(key)
        if rule is None or key not in fixed:
            continue
        if rule == "skip_items" and len(loc) > 1 and isinstance(loc[1], int):
            drops.setdefault(key, set()).add(loc[1])
            continue
        if rule == "default_on_null" and fixed[key] is not None:
            continue
        log.warning(
            "%s.%s: malformed value replaced by its default (%s)", cls.__name__, key, err["msg"]
        )
        del fixed[key]
        changed = True
    for key, indexes in drops.items():
        items = fixed.get(key)
        if not isinstance(items, list):
            continue
        for i in sorted(indexes):
            log.warning("%s.%s[%d]: invalid item dropped", cls.__name__, key, i)
        fixed[key] = [item for i, item in enumerate(items) if i not in indexes]
        changed = True
    return fixed if changed else None


class LenientModel(BaseModel):
    # strict: JSON types as the schema says them ("yes" is not a boolean, "1" not an integer).
    model_config = ConfigDict(defer_build=True, populate_by_name=True, extra="allow", strict=True)

    __reasonix_rules__: ClassVar[dict[str, str] | None] = None

    @model_validator(mode="wrap")
    @classmethod
    def _lenient(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if isinstance(data, dict):
            for tag, known in _collect(cls, _REJECT).items():
                value = data.get(tag)
                if isinstance(value, str) and value in known:
                    raise PydanticCustomError(
                        "known_tag",
                        "{tag} {value!r} belongs to a known variant",
                        {"tag": tag, "value": value},
                    )
        try:
            return handler(data)
        except ValidationError as exc:
            rules = _collect(cls, _RULES)
            if not rules or not isinstance(data, dict):
                raise
            current: dict[str, Any] = data
            error = exc
            for _ in range(_MAX_SALVAGE_PASSES):
                fixed = _salvage_once(cls, current, error, rules)
                if fixed is None:
                    raise error from None
                try:
                    return handler(fixed)
                except ValidationError as again:
                    current, error = fixed, again
            raise error from None
