"""`nox -s update_schema`: the pinned schema files, fetched from the npm registry with `npm pack`.

The files are committed (src/acp_conformance/upstream_schema.json and
upstream_unstable_schema.json), so nothing needs this to build, test or run. Without arguments
it fetches the pinned package only when a committed copy is missing or differs from its pin,
checks each file's sha256 against schema/upstream.toml and writes the copies. `--version X`
fetches version X of the package instead, writes its files and pins them: the version and each
file's sha256 in schema/upstream.toml. `nox -s codegen` then regenerates the code from them.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from codegen.pin import PIN_FILE, SCHEMA_DIR, Pin, PinError, check_pinned, load_pin


def fetch(pin: Pin, version: str) -> dict[str, bytes]:
    """{path in the package: its bytes} for every path the pin names, from
    `npm pack <package>@<version>`."""
    npm = shutil.which("npm")
    if npm is None:
        raise PinError("npm is not on PATH; it is needed to fetch the upstream schema")
    spec = f"{pin.npm_package}@{version}"
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [npm, "pack", spec, "--silent", "--pack-destination", tmp],
            check=True,
            capture_output=True,
            text=True,
        )
        tarballs = [line.strip() for line in out.stdout.splitlines() if line.strip()]
        if not tarballs:
            raise PinError(f"npm pack {spec} produced no tarball")
        found = {}
        with tarfile.open(Path(tmp) / tarballs[-1]) as tar:
            for path in pin.files:
                try:
                    member = tar.extractfile(f"package/{path}")
                except KeyError:
                    member = None
                if member is None:
                    raise PinError(f"{spec} has no {path}")
                found[path] = member.read()
    return found


def restore(pin: Pin, folder: Path) -> None:
    """The pinned version's files, fetched and written where each is missing or differs."""
    try:
        check_pinned(pin, folder)
    except PinError:
        pass
    else:
        print(f"update_schema: the files in {folder} match the pin of {pin.spec}", file=sys.stderr)
        return
    fetched = fetch(pin, pin.version)
    for path, data in fetched.items():  # every file checked before any is written
        actual = hashlib.sha256(data).hexdigest()
        if actual != pin.files[path]:
            raise PinError(
                f"{pin.spec} {path} has sha256 {actual}, the pin says {pin.files[path]}; "
                "refusing it"
            )
    write(pin, folder, fetched)


def bump(pin: Pin, pin_file: Path, folder: Path, version: str) -> None:
    """Version `version` of the package: its files written, and pinned in `pin_file`."""
    fetched = fetch(pin, version)
    hashes = {path: hashlib.sha256(data).hexdigest() for path, data in fetched.items()}
    text = repin(pin_file.read_text(encoding="utf-8"), pin, version, hashes)
    write(pin, folder, fetched)
    pin_file.write_text(text, encoding="utf-8")
    check_pinned(load_pin(pin_file), folder)
    print(
        f"update_schema: pinned {pin.npm_package}@{version} in {pin_file}; "
        "regenerate with `nox -s codegen`",
        file=sys.stderr,
    )


def repin(text: str, pin: Pin, version: str, hashes: dict[str, str]) -> str:
    """The pin file's text with `version` and the new sha256 of each file, all else kept."""
    new, count = re.subn(
        r'(?m)^(version\s*=\s*")[^"]*(")', lambda m: m[1] + version + m[2], text, count=1
    )
    if count != 1:
        raise PinError("the pin file has no version line to change")
    for path, old in pin.files.items():
        new, count = re.subn(re.escape(old), hashes[path], new, flags=re.IGNORECASE)
        if count != 1:
            raise PinError(f"the pin file names the sha256 of {path} {count} times, not once")
    return new


def write(pin: Pin, folder: Path, fetched: dict[str, bytes]) -> None:
    for path, data in fetched.items():
        target = folder / pin.copies[path]
        target.write_bytes(data)
        print(f"update_schema: {pin.npm_package} {path} → {target}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen.fetch", description=__doc__)
    parser.add_argument("--version", help="fetch this version of the package and pin it")
    parser.add_argument("--pin", type=Path, default=PIN_FILE, help="another pin file")
    parser.add_argument("--schemas", type=Path, default=SCHEMA_DIR, help="where the files go")
    args = parser.parse_args(argv)
    try:
        pin = load_pin(args.pin)
        if args.version is None or args.version == pin.version:
            restore(pin, args.schemas)
        else:
            bump(pin, args.pin, args.schemas, args.version)
    except (PinError, subprocess.CalledProcessError, OSError, tarfile.TarError) as exc:
        detail = getattr(exc, "stderr", None) or ""
        print(f"update_schema: {exc} {detail}".rstrip(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
