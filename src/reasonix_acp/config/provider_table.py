"""`providers/set` and `providers/disable` writing one `[providers.<name>]` table of config.toml.

The file is edited in place as `acp setup` edits it (tomlkit: comments, layout and every other
table kept) and written 0600, atomically (files.write_private). A file that does not parse, or
whose `providers` or the provider's entry is not a table, is left alone: ValueError saying so,
never the file's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from reasonix_acp.config.files import write_private

KEY_KEYS = ("api_key", "api_key_env")


def set_provider(path: Path, name: str, kind: str, base_url: str, key: str) -> None:
    """The provider's routing replaced: `base_url`, and its key (`api_key`; an empty `key`
    removes `api_key` and `api_key_env`). A new table gets `kind`; `disabled` is removed.
    `client_routing = true` marks the base URL a client chose: the environment's
    (OPENAI_BASE_URL) does not replace it (config/loading.py)."""
    doc, table = _table(path, name)
    if not table and kind != name:
        table["kind"] = kind
    table["base_url"] = base_url
    table["client_routing"] = True
    for gone in ("disabled", *KEY_KEYS):
        if gone in table:
            del table[gone]
    if key:
        table["api_key"] = key
    _write(path, doc)


def disable_provider(path: Path, name: str) -> None:
    """`disabled = true` in the provider's table (made when the provider came from the
    environment alone); the rest of the table is kept for a later providers/set."""
    doc, table = _table(path, name)
    table["disabled"] = True
    _write(path, doc)


def _table(path: Path, name: str) -> tuple[tomlkit.TOMLDocument, Any]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ValueError(f"{path} does not parse ({exc}); nothing was changed") from None
    return doc, provider_table(doc, name, path, "nothing was changed")


def provider_table(doc: tomlkit.TOMLDocument, name: str, path: Path, then: str) -> Any:
    """`[providers.<name>]` of `doc`, made where missing; ValueError (saying `then`) where
    `providers` or that entry is not a table. `acp setup` and `providers/set` edit through it."""
    providers = doc.get("providers")
    if providers is None:
        providers = tomlkit.table(is_super_table=True)
        doc["providers"] = providers
    if not isinstance(providers, dict):
        raise ValueError(f"{path}: `providers` is not a table; {then}")
    table = providers.get(name)
    if table is None:
        table = tomlkit.table()
        providers[name] = table
    if not isinstance(table, dict):
        raise ValueError(f"{path}: `providers.{name}` is not a table; {then}")
    return table


def _write(path: Path, doc: tomlkit.TOMLDocument) -> None:
    text = tomlkit.dumps(doc)
    write_private(path, text if text.endswith("\n") else text + "\n")
