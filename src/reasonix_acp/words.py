"""Counts in words: `1 turn`, `2 turns`; `1 entry`, `3 entries`. Every count the agent says
goes through `counted`, so a count of one is never plural (tests/test_words.py)."""

from __future__ import annotations


def counted(count: int, thing: str, things: str | None = None) -> str:
    """`count` and `thing`, in the plural (`things`, else `thing` + s) unless count is 1."""
    if count == 1:
        return f"{count} {thing}"
    return f"{count} {things if things is not None else thing + 's'}"
