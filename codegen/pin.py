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
class Pin:
    npm_package: str
    version: str
    path: str
    sha256: str

    @property
    def spec(self) -> str:
        return f"{self.npm_package}@{self.version}"

    @property
    def cached_file(self) -> Path:
        return CACHE_DIR / self.version / self.path


def load_pin(path: Path = PIN_FILE) -> Pin:
    data = tomllib.loads(path.read_text(encoding="utf-8"))["upstream"]
    return Pin(
        npm_package=data["npm_package"],
        version=data["version"],
        path=data["path"],
        sha256=data["sha256"].lower(),
    )


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_upstream(pin: Pin | None = None) -> dict[str, Any]:
    """The cached upstream schema, refusing a missing file or a hash mismatch."""
    pin = pin or load_pin()
    cached = pin.cached_file
    if not cached.is_file():
        raise PinError(f"{cached} is missing; run `nox -s update_schema` first")
    actual = sha256_of(cached)
    if actual != pin.sha256:
        raise PinError(
            f"{cached} has sha256 {actual}, the pin in schema/upstream.toml says {pin.sha256}; "
            "run `nox -s update_schema`"
        )
    result: dict[str, Any] = json.loads(cached.read_text(encoding="utf-8"))
    return result


def load_vendor() -> dict[str, dict[str, Any]]:
    """Every schema/vendor/*.json document, keyed by file name, in name order."""
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(VENDOR_DIR.glob("*.json"))
    }
