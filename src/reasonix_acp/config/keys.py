"""Which keys of config.toml the agent reads, learnt from the loader itself: the parsed file is
wrapped in `Reads` before loading.py looks at it, and a key the loader asks for (`get`, `[]`,
`in`) is known, as is every key of a table it takes whole (iterated: a table of names, such as
`[providers]`, or one whose parser checks its keys itself, such as `[web]`). A key in the file
that no reading asked for is one the agent ignores: a typo, or a key of another version. There
is no list of keys to keep in step with the loader; the nearest key it asked for at the same
place is offered (difflib).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values


class Reads(dict[str, Any]):
    """A table of config.toml that records what the loader asks of it; its tables are too."""

    def __init__(self, table: dict[str, Any], where: tuple[str, ...] = ()) -> None:
        super().__init__(
            {k: Reads(v, (*where, k)) if isinstance(v, dict) else v for k, v in table.items()}
        )
        self.where = where
        self.asked: set[str] = set()
        self.whole = False  # iterated: every key it has is taken

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.add(key)
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self.whole = True
        return super().__iter__()

    def keys(self) -> dict_keys[str, Any]:
        self.whole = True
        return super().keys()

    def values(self) -> dict_values[str, Any]:
        self.whole = True
        return super().values()

    def items(self) -> dict_items[str, Any]:
        self.whole = True
        return super().items()


class Unknown(NamedTuple):
    """A key config.toml has and the agent does not read: its table, itself, the nearest key
    the agent reads there (or None)."""

    where: tuple[str, ...]
    key: str
    nearest: str | None

    def place(self) -> str:
        """`[providers.x] apikey`, or `max_step` at the top of the file."""
        table = f"[{'.'.join(_bare(w) for w in self.where)}] " if self.where else ""
        return table + _bare(self.key)

    def guess(self) -> str:
        return f" (did you mean {self.nearest}?)" if self.nearest else ""

    def __str__(self) -> str:
        return self.place() + self.guess()

    def sentence(self) -> str:
        """`[providers.x] apikey is not a key acp reads (did you mean api_key?)`."""
        return f"{self.place()} is not a key acp reads{self.guess()}"


def unknown_keys(table: Reads) -> list[Unknown]:
    """The keys of `table` and its tables that the loader did not read, in the file's order."""
    found: list[Unknown] = []
    for key, value in dict.items(table):  # not a reading of the table
        if not table.whole and key not in table.asked:
            # lazy: start-up (only a file with an unknown key needs it)
            import difflib

            near = difflib.get_close_matches(key, sorted(table.asked), n=1, cutoff=0.6)
            found.append(Unknown(table.where, key, near[0] if near else None))
        elif isinstance(value, Reads):
            found += unknown_keys(value)
    return found


def _bare(key: str) -> str:
    """A key as TOML spells it: bare when it can be, else quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"' + key.replace('"', '\\"') + '"'
