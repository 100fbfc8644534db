"""The upstream pin (schema/upstream.toml) and the pinned schema files, committed in
src/acp_conformance/ (where `acp-conformance` reads them, and so shipped in the wheel and the
sdist): each is refused unless its sha256 is the pin's."""

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
# The committed copies of the pinned package's files, under the names `acp-conformance` reads.
SCHEMA_DIR = ROOT / "src" / "acp_conformance"
STABLE_COPY = "upstream_schema.json"
UNSTABLE_COPY = "upstream_unstable_schema.json"
GENERATED_DIR = ROOT / "src" / "reasonix_acp" / "generated"


class PinError(RuntimeError):
    """A pinned schema file is missing or does not match the pin."""


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
    def files(self) -> dict[str, str]:
        """{path in the package: its pinned sha256}, the stable schema first."""
        found = {self.path: self.sha256}
        if self.unstable is not None:
            found[self.unstable.path] = self.unstable.sha256
        return found

    @property
    def copies(self) -> dict[str, str]:
        """{path in the package: the name of its committed copy}, the stable schema first."""
        found = {self.path: STABLE_COPY}
        if self.unstable is not None:
            found[self.unstable.path] = UNSTABLE_COPY
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


def load_upstream(pin: Pin | None = None, folder: Path = SCHEMA_DIR) -> dict[str, Any]:
    """The pinned upstream schema, refusing a missing file or a hash mismatch."""
    pin = pin or load_pin()
    return _pinned(pin, pin.path, folder)


def load_unstable(pin: Pin | None = None, folder: Path = SCHEMA_DIR) -> dict[str, Any] | None:
    """The pinned package's unstable schema (None when the pin takes nothing from it), refusing
    a missing file or a hash mismatch."""
    pin = pin or load_pin()
    if pin.unstable is None:
        return None
    return _pinned(pin, pin.unstable.path, folder)


def check_pinned(pin: Pin, folder: Path = SCHEMA_DIR) -> None:
    """Every pinned file is in `folder` with the pin's sha256 (PinError: which is not)."""
    for path in pin.files:
        verified(pin, path, folder)


def verified(pin: Pin, path: str, folder: Path = SCHEMA_DIR) -> Path:
    """The committed copy of the package's `path`, refused unless its sha256 is the pin's."""
    copy = folder / pin.copies[path]
    if not copy.is_file():
        raise PinError(
            f"{copy} ({pin.spec} {path}) is missing: it is committed; restore it from git, "
            "or fetch it with `nox -s update_schema`"
        )
    actual, pinned = sha256_of(copy), pin.files[path]
    if actual != pinned:
        raise PinError(
            f"{copy} ({pin.spec} {path}) has sha256 {actual}, the pin in "
            f"schema/upstream.toml says {pinned}: the pinned file is never edited by hand; "
            "`nox -s update_schema` fetches it as pinned, `-- --version X` another version "
            "(and pins it)"
        )
    return copy


def _pinned(pin: Pin, path: str, folder: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(verified(pin, path, folder).read_text(encoding="utf-8"))
    return result


def load_vendor() -> dict[str, dict[str, Any]]:
    """Every schema/vendor/*.json document, keyed by file name, in name order."""
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(VENDOR_DIR.glob("*.json"))
    }
