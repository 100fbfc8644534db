"""Class names are API: every generated name comes from schema data, and these tables say how.

Keys are (union def, tag value or variant title), never a position in a list, so a schema update
that reorders variants cannot move a name onto the wrong class.
"""

from __future__ import annotations

import re

# (composed def, member tag or title) → the label used in place of the tag in `<Def><Label>`.
VARIANT_RENAMES: dict[tuple[str, str], str] = {
    ("SetSessionConfigOptionRequest", "value_id"): "select",
}

# Classes whose names end in a digit and are nonetheless expected. Empty: any `Name2` is a failure.
ALLOWED_NUMBERED: frozenset[str] = frozenset()

NUMBERED = re.compile(r"^class ([A-Za-z_][A-Za-z0-9_]*?\d+)\b", re.MULTILINE)


def unexpected_numbered(source: str) -> list[str]:
    return sorted({m for m in NUMBERED.findall(source) if m not in ALLOWED_NUMBERED})
