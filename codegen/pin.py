"""The upstream pin (schema/upstream.toml) and the git-ignored cache it is fetched into."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PIN_FILE = ROOT / "schema" / "upstream.toml"
VENDOR_DIR = ROOT / "schema" / "vendor"
CACHE_DIR = ROOT / ".cache" / "schema"
GENERATED_DIR = ROOT / "src" / "reasonix_acp" / "generated"


class PinError(RuntimeError):
    """The cached upstream schema is missing or does not match the pin."""


@dataclass(frozen=True)
class Unstable:
    """The package's unstable schema, and what is taken from it: the methods implemented here
    (their params and result defs, and the new defs those name) and other defs by name. The
    rest of the file is not generated."""

    path: str
    sha256: str
    methods: tuple[str, ...]
    defs: tuple[str, ...]


@dataclass(frozen=True)
class Pin:
    npm_package: str
    version: str
    path: str
    sha256: str
    unstable: Unstable | None = None

    @property
    def spec(self) -> str:
        return f"{self.npm_package}@{self.version}"

    @property
    def cached_file(self) -> Path:
        return CACHE_DIR / self.version / self.path

    @property
    def files(self) -> dict[str, str]:
        """{path in the package: its pinned sha256}, the stable schema first."""
        found = {self.path: self.sha256}
        if self.unstable is not None:
            found[self.unstable.path] = self.unstable.sha256
        return found


def load_pin(path: Path = PIN_FILE) -> Pin:
    data = tomllib.loads(path.read_text(encoding="utf-8"))["upstream"]
    table = data.get("unstable")
    unstable = None
    if table is not None:
        unstable = Unstable(
            path=table["path"],
            sha256=table["sha256"].lower(),
            methods=tuple(table.get("methods", ())),
            defs=tuple(table.get("defs", ())),
        )
    return Pin(
        npm_package=data["npm_package"],
        version=data["version"],
        path=data["path"],
        sha256=data["sha256"].lower(),
        unstable=unstable,
    )


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_upstream(pin: Pin | None = None, cache: Path = CACHE_DIR) -> dict[str, Any]:
    """The cached upstream schema, refusing a missing file or a hash mismatch."""
    pin = pin or load_pin()
    return _cached(pin, pin.path, pin.sha256, cache)


def load_unstable(pin: Pin | None = None, cache: Path = CACHE_DIR) -> dict[str, Any] | None:
    """The cached unstable schema of the pinned package (None when the pin takes nothing from
    it), refusing a missing file or a hash mismatch."""
    pin = pin or load_pin()
    if pin.unstable is None:
        return None
    return _cached(pin, pin.unstable.path, pin.unstable.sha256, cache)


def _cached(pin: Pin, path: str, sha256: str, cache: Path) -> dict[str, Any]:
    cached = cache / pin.version / path
    if not cached.is_file():
        raise PinError(f"{cached} is missing; run `nox -s update_schema` first")
    actual = sha256_of(cached)
    if actual != sha256:
        raise PinError(
            f"{cached} has sha256 {actual}, the pin in schema/upstream.toml says {sha256}; "
            "run `nox -s update_schema`"
        )
    result: dict[str, Any] = json.loads(cached.read_text(encoding="utf-8"))
    return result


def load_vendor() -> dict[str, dict[str, Any]]:
    """Every schema/vendor/*.json document, keyed by file name, in name order."""
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(VENDOR_DIR.glob("*.json"))
    }
