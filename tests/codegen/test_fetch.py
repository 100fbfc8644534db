"""`nox -s update_schema` (`python -m codegen.fetch`) against a stand-in `npm` whose `pack`
serves package tarballs made here: it fetches nothing while the committed files match the pin,
restores a missing one as pinned, refuses a file whose sha256 is not the pin's, and with
`--version` writes another version's files and pins them."""

from __future__ import annotations

import hashlib
import io
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from codegen import fetch
from codegen.pin import PIN_FILE, SCHEMA_DIR, check_pinned, load_pin

NPM = """#!{python}
import json, shutil, sys
from pathlib import Path
here = Path(__file__).parent
with open(here / "calls.log", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
spec, out = sys.argv[2], Path(sys.argv[sys.argv.index("--pack-destination") + 1])
tarball = here / "packages" / (spec.rsplit("@", 1)[1] + ".tgz")
if not tarball.is_file():
    sys.exit("npm error 404 No match found for version")
shutil.copy(tarball, out / "package.tgz")
print("package.tgz")
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the pin and of the committed files, and the stand-in `npm` first on PATH."""
    npm = tmp_path / "bin" / "npm"
    (tmp_path / "bin" / "packages").mkdir(parents=True)
    npm.write_text(NPM.format(python=sys.executable), encoding="utf-8")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{npm.parent}:/usr/bin:/bin")
    (tmp_path / "schemas").mkdir()
    for name in load_pin().copies.values():
        shutil.copyfile(SCHEMA_DIR / name, tmp_path / "schemas" / name)
    shutil.copyfile(PIN_FILE, tmp_path / "upstream.toml")
    return tmp_path


def publish(world: Path, version: str, files: dict[str, bytes]) -> None:
    with tarfile.open(world / "bin" / "packages" / f"{version}.tgz", "w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(f"package/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def pinned_files() -> dict[str, bytes]:
    pin = load_pin()
    return {path: (SCHEMA_DIR / name).read_bytes() for path, name in pin.copies.items()}


def run(world: Path, *args: str) -> int:
    where = ["--pin", str(world / "upstream.toml"), "--schemas", str(world / "schemas")]
    return fetch.main([*where, *args])


def calls(world: Path) -> list[str]:
    log = world / "bin" / "calls.log"
    return log.read_text(encoding="utf-8").splitlines() if log.is_file() else []


def test_nothing_is_fetched_while_the_committed_files_match_the_pin(world: Path) -> None:
    assert run(world) == 0
    assert calls(world) == []


def test_a_missing_file_is_fetched_as_pinned(world: Path) -> None:
    publish(world, load_pin().version, pinned_files())
    (world / "schemas" / "upstream_unstable_schema.json").unlink()
    assert run(world) == 0
    assert len(calls(world)) == 1 and "@agentclientprotocol/sdk@2.4.0" in calls(world)[0]
    check_pinned(load_pin(world / "upstream.toml"), world / "schemas")


def test_a_fetched_file_unlike_its_pin_is_refused(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = pinned_files()
    files[load_pin().path] += b"\n"
    publish(world, load_pin().version, files)
    edited = world / "schemas" / "upstream_schema.json"
    edited.write_bytes(edited.read_bytes().replace(b"sessionId", b"sessionID", 1))
    assert run(world) == 1
    assert "refusing it" in capsys.readouterr().err
    assert b"sessionID" in edited.read_bytes()  # nothing written


def test_another_version_is_written_and_pinned(world: Path) -> None:
    pin = load_pin()
    files = {path: data + b"\n" for path, data in pinned_files().items()}
    publish(world, "9.1.0", files)
    assert run(world, "--version", "9.1.0") == 0
    bumped = load_pin(world / "upstream.toml")
    assert bumped.version == "9.1.0"
    for path, data in files.items():
        assert bumped.files[path] == hashlib.sha256(data).hexdigest() != pin.files[path]
        assert (world / "schemas" / pin.copies[path]).read_bytes() == data
    check_pinned(bumped, world / "schemas")
    before = PIN_FILE.read_text(encoding="utf-8").splitlines()
    after = (world / "upstream.toml").read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 3  # the version and two hashes; comments and the rest kept
    # A version the registry does not have: an error, nothing changed.
    assert run(world, "--version", "9.9.9") == 1
    assert load_pin(world / "upstream.toml") == bumped
