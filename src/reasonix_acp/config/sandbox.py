"""config.toml's `[sandbox]` table: how commands are confined (tools/sandbox.py does it).

[sandbox]
mode = "auto"          # auto: where the engine works; enforce: no session without it; off
network = false        # commands reach the network only when true
write_roots = []       # absolute directories writable besides the session's own roots
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

SANDBOX_MODES = ("auto", "enforce", "off")


@dataclass(frozen=True)
class SandboxSettings:
    """`[sandbox]`: how commands are confined (mode), whether they reach the network, and
    the extra directories they may write."""

    mode: str = "auto"
    network: bool = False
    write_roots: tuple[str, ...] = ()

    @classmethod
    def parse(cls, table: dict[str, Any] | None) -> SandboxSettings:
        """The settings of a `[sandbox]` table; ValueError names the key that is wrong. A key it
        does not read is named as every such key is (config/keys.py), the rest applied: a typo
        beside `mode = "enforce"` must not cost the user the mode they chose."""
        if table is None:
            raise ValueError("[sandbox] must be a table")
        mode = table.get("mode", "auto")
        if mode not in SANDBOX_MODES:
            raise ValueError(f"[sandbox] mode must be one of {', '.join(SANDBOX_MODES)}")
        network = table.get("network", False)
        if not isinstance(network, bool):
            raise ValueError("[sandbox] network must be true or false")
        roots = table.get("write_roots", [])
        if not isinstance(roots, list) or not all(
            isinstance(r, str) and os.path.isabs(os.path.expanduser(r)) for r in roots
        ):
            raise ValueError("[sandbox] write_roots must be a list of absolute paths")
        return cls(mode, network, tuple(os.path.expanduser(r) for r in roots))
