"""`nox -s update_schema`: fetch the pinned package with `npm pack`, extract the schema, check sha256."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from codegen.pin import CACHE_DIR, Pin, PinError, load_pin, sha256_of


def fetch(pin: Pin) -> Path:
    target = pin.cached_file
    if target.is_file() and sha256_of(target) == pin.sha256:
        print(f"{target} already matches the pin", file=sys.stderr)
        return target
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
        member = f"package/{pin.path}"
        with tarfile.open(Path(tmp) / tarballs[-1]) as tar:
            fileobj = tar.extractfile(member)
            if fileobj is None:
                raise PinError(f"{pin.spec} has no {pin.path}")
            data = fileobj.read()
        staged = Path(tmp) / "schema.json"
        staged.write_bytes(data)
        actual = sha256_of(staged)
        if actual != pin.sha256:
            raise PinError(
                f"{pin.spec} {pin.path} has sha256 {actual}, the pin says {pin.sha256}; refusing it"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), target)
    (CACHE_DIR / ".gitignore").write_text("*\n", encoding="utf-8")
    print(f"fetched {pin.spec} {pin.path} → {target}", file=sys.stderr)
    return target


# The verified schema, where acp-conformance reads it (git-ignored; packaged as an artifact).
CONFORMANCE_COPY = (
    Path(__file__).resolve().parents[1] / "src" / "acp_conformance" / "upstream_schema.json"
)


def main() -> int:
    try:
        cached = fetch(load_pin())
    except (PinError, subprocess.CalledProcessError) as exc:
        print(f"update_schema: {exc}", file=sys.stderr)
        return 1
    CONFORMANCE_COPY.write_bytes(cached.read_bytes())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
