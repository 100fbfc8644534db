"""`nox -s update_schema`: fetch the pinned package with `npm pack`, extract the schema, check sha256."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from codegen.pin import CACHE_DIR, Pin, PinError, load_pin, sha256_of


def fetch(pin: Pin) -> list[Path]:
    """Every pinned file of the package (the stable schema, the unstable one), in the cache."""
    targets = {path: CACHE_DIR / pin.version / path for path in pin.files}
    if all(t.is_file() and sha256_of(t) == pin.files[p] for p, t in targets.items()):
        print(f"{', '.join(map(str, targets.values()))} already match the pin", file=sys.stderr)
        return list(targets.values())
    npm = shutil.which("npm")
    if npm is None:
        raise PinError("npm is not on PATH; it is needed to fetch the pinned schema")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [npm, "pack", pin.spec, "--silent", "--pack-destination", tmp],
            check=True,
            capture_output=True,
            text=True,
        )
        tarballs = [line.strip() for line in out.stdout.splitlines() if line.strip()]
        if not tarballs:
            raise PinError(f"npm pack {pin.spec} produced no tarball")
        with tarfile.open(Path(tmp) / tarballs[-1]) as tar:
            for path, target in targets.items():
                _extract(tar, pin, path, target, Path(tmp))
    (CACHE_DIR / ".gitignore").write_text("*\n", encoding="utf-8")
    return list(targets.values())


def _extract(tar: tarfile.TarFile, pin: Pin, path: str, target: Path, tmp: Path) -> None:
    fileobj = tar.extractfile(f"package/{path}")
    if fileobj is None:
        raise PinError(f"{pin.spec} has no {path}")
    staged = tmp / "schema.json"
    staged.write_bytes(fileobj.read())
    actual = sha256_of(staged)
    if actual != pin.files[path]:
        raise PinError(
            f"{pin.spec} {path} has sha256 {actual}, the pin says {pin.files[path]}; refusing it"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(staged), target)
    print(f"fetched {pin.spec} {path} → {target}", file=sys.stderr)


# The verified schemas, where acp-conformance reads them (git-ignored; packaged as artifacts).
CONFORMANCE_DIR = Path(__file__).resolve().parents[1] / "src" / "acp_conformance"
CONFORMANCE_COPIES = ("upstream_schema.json", "upstream_unstable_schema.json")


def main() -> int:
    try:
        cached = fetch(load_pin())
    except (PinError, subprocess.CalledProcessError) as exc:
        print(f"update_schema: {exc}", file=sys.stderr)
        return 1
    for name, source in zip(CONFORMANCE_COPIES, cached, strict=False):
        (CONFORMANCE_DIR / name).write_bytes(source.read_bytes())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
