"""The generator's inputs, its naming rules, its method table, and the staleness check."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from codegen import methods
from codegen.names import unexpected_numbered
from codegen.pin import (
    GENERATED_DIR,
    SCHEMA_DIR,
    Pin,
    PinError,
    check_pinned,
    load_pin,
    load_unstable,
    load_upstream,
    load_vendor,
    sha256_of,
)
from codegen.prepare import prepare
from reasonix_acp.generated import methods as generated
from reasonix_acp.generated.models import WHERE

ROOT = Path(__file__).resolve().parents[2]


def test_pin_matches_the_issue() -> None:
    pin = load_pin()
    assert (pin.npm_package, pin.version, pin.path) == (
        "@agentclientprotocol/sdk",
        "2.4.0",
        "schema/v1/schema.json",
    )
    assert sha256_of(SCHEMA_DIR / "upstream_schema.json") == pin.sha256
    assert pin.unstable is not None
    assert sha256_of(SCHEMA_DIR / "upstream_unstable_schema.json") == pin.unstable.sha256


def test_a_hash_mismatch_is_refused(tmp_path: Path) -> None:
    bad = Pin("@agentclientprotocol/sdk", "2.4.0", "schema/v1/schema.json", "0" * 64)
    with pytest.raises(PinError, match=r"sha256 0d0b1ca8.*says 0000"):
        load_upstream(bad)
    with pytest.raises(PinError, match="is missing"):
        load_upstream(load_pin(), tmp_path)


def test_the_pinned_schemas_are_committed_and_nothing_else_of_the_fetch() -> None:
    """A clone has them (the runner reads them, the wheel and the sdist ship them): nothing
    needs the network to build, test or run."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    pin = load_pin()
    for name in pin.copies.values():
        assert f"src/acp_conformance/{name}" in tracked, name
    assert not [path for path in tracked if path.startswith(".cache/")]
    ignored = subprocess.run(
        ["git", "check-ignore", *(f"src/acp_conformance/{n}" for n in pin.copies.values())],
        cwd=ROOT,
        capture_output=True,
    )
    assert ignored.returncode == 1, ignored.stdout  # none of them ignored
    check_pinned(pin)


@pytest.mark.slow
def test_codegen_check_fails_on_a_pinned_file_that_differs(tmp_path: Path) -> None:
    pin = load_pin()
    for name in pin.copies.values():
        shutil.copyfile(SCHEMA_DIR / name, tmp_path / name)
    unstable = tmp_path / "upstream_unstable_schema.json"
    unstable.write_bytes(unstable.read_bytes().replace(b"session/fork", b"session/f0rk", 1))
    done = subprocess.run(
        [sys.executable, "-m", "codegen", "--check", "--schemas", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "upstream_unstable_schema.json" in done.stderr
    assert pin.unstable is not None and f"says {pin.unstable.sha256}" in done.stderr


def test_every_generated_file_has_the_header() -> None:
    pin = load_pin()
    for path in sorted(GENERATED_DIR.rglob("*.py")):
        head = path.read_text(encoding="utf-8").splitlines()[:4]
        assert head[0] == f"# GENERATED FROM {pin.spec} {pin.path} (sha256 {pin.sha256})", path
        assert pin.unstable is not None
        assert head[1].endswith(f"{pin.unstable.path} (sha256 {pin.unstable.sha256})")
        assert "nox -s codegen" in head[3]


def test_no_class_is_named_by_position() -> None:
    for path in GENERATED_DIR.rglob("*.py"):
        assert unexpected_numbered(path.read_text(encoding="utf-8")) == [], path
    assert unexpected_numbered("class SessionUpdate3(BaseModel):\n") == ["SessionUpdate3"]


def test_no_schema_prose_in_generated_code() -> None:
    upstream = load_upstream()
    descriptions = [
        d["description"] for d in upstream["$defs"].values() if len(d.get("description", "")) > 40
    ]
    text = "".join(p.read_text(encoding="utf-8") for p in GENERATED_DIR.rglob("*.py"))
    assert descriptions and not [d for d in descriptions if d.splitlines()[0] in text]
    assert "description=" not in text


def test_method_table_is_the_x_method_annotations() -> None:
    annotated = {
        d["x-method"]: d["x-side"] for d in load_upstream()["$defs"].values() if "x-method" in d
    }
    for doc in load_vendor().values():
        annotated.update(
            {d["x-method"]: d["x-side"] for d in doc["$defs"].values() if "x-method" in d}
        )
    unstable, pin = load_unstable(), load_pin()
    assert unstable is not None and pin.unstable is not None
    taken: dict[str, set[str]] = {}
    for d in unstable["$defs"].values():
        if d.get("x-method") in pin.unstable.methods:
            taken.setdefault(d["x-method"], set()).add(d["x-side"])
    unstable_methods = ["session/fork", "session/set_title", "session/archive"]
    unstable_methods += ["session/unarchive", "session/status", "auth/status"]
    unstable_methods += ["providers/list", "providers/set", "providers/disable"]
    assert taken == {
        **{m: {"agent"} for m in unstable_methods},
        "auth/status_update": {"client"},
        "mcp/message": {"client", "agent"},  # our request to the client; its notification to us
    }
    one_sided = {m: next(iter(s)) for m, s in taken.items() if len(s) == 1}
    sides = {**annotated, **one_sided, "mcp/message": "client"}
    assert {m: s.side for m, s in generated.METHODS.items()} == sides
    assert {m: (s.side, s.kind) for m, s in generated.AGENT_SIDE.items()} == {
        "mcp/message": ("agent", "notification")
    }
    stable = [
        m for m, s in generated.METHODS.items() if s.side == "agent" and not m.startswith("_")
    ]
    # the 13 stable methods, the legacy session/set_model, and the nine unstable ones
    assert len(stable) == 23
    assert generated.METHODS[generated.SESSION_CANCEL].kind == "notification"
    assert generated.METHODS[generated.SESSION_PROMPT].result == "ReasonixPromptResponse"
    assert generated.PROTOCOL_VERSION == 1


def test_every_table_entry_names_existing_classes() -> None:
    from reasonix_acp.protocol.codec import model_class

    for spec in [*generated.METHODS.values(), *generated.AGENT_SIDE.values()]:
        model_class(spec.params)
        if spec.result:
            model_class(spec.result)


def test_constant_names() -> None:
    assert methods.constant_name("session/set_config_option") == "SESSION_SET_CONFIG_OPTION"
    assert (
        methods.constant_name("_reasonix.io/session/inbox/setPaused")
        == "REASONIX_SESSION_INBOX_SET_PAUSED"
    )
    assert methods.constant_name("$/cancel_request") == "CANCEL_REQUEST"


def test_composed_unions_are_named_by_tag() -> None:
    defs = prepare(load_upstream(), load_vendor())["$defs"]
    assert [
        m["$ref"].rsplit("/", 1)[1] for m in defs["SetSessionConfigOptionRequest"]["anyOf"]
    ] == [
        "SetSessionConfigOptionRequestBoolean",
        "SetSessionConfigOptionRequestSelect",
    ]
    assert (
        "CreateElicitationRequestFormSession" in defs and "CreateElicitationResponseOther" in defs
    )


def _check(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", "--check", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_check_passes_on_the_committed_output_and_fails_on_a_hand_edit(tmp_path: Path) -> None:
    if (
        shutil.which("datamodel-codegen") is None
        and not Path(sys.executable).with_name("datamodel-codegen").exists()
    ):
        pytest.skip("the codegen extra is not installed here; nox -s codegen_check covers it")
    copy = tmp_path / "generated"
    shutil.copytree(GENERATED_DIR, copy)
    assert _check(copy).returncode == 0
    module = copy / "models" / f"{WHERE['PromptResponse']}.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace(
            "class PromptResponse(", "class PromptResponseX("
        ),
        encoding="utf-8",
    )
    (copy / "models" / "stray.py").write_text("", encoding="utf-8")
    result = _check(copy)  # one run names both: each generation costs seconds of CPU
    assert result.returncode == 1 and "nox -s codegen" in result.stderr
    assert f"models/{module.name}" in result.stderr and "models/stray.py" in result.stderr


def test_vendor_files_only_hold_defs() -> None:
    for name, doc in load_vendor().items():
        assert set(doc) <= {"$schema", "$id", "title", "$defs"}, name
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert all(k.startswith("Reasonix") for k in doc["$defs"]), name
        json.dumps(doc)


def _doc(*defs: tuple[str, str, str]) -> dict[str, object]:
    return {"$defs": {name: {"x-method": "x/y", "x-side": side} for name, side, _ in defs}}


def test_a_method_both_sides_use_is_a_request_to_the_client_and_a_notification_to_us() -> None:
    entries = methods.collect(
        _doc(("XRequest", "client", ""), ("XResponse", "client", ""), ("XNote", "agent", ""))
    )
    assert [(e.side, e.result) for e in entries] == [("client", "XResponse"), ("agent", None)]
    for wrong in (
        _doc(("XRequest", "agent", ""), ("XResponse", "agent", ""), ("XNote", "client", "")),
        _doc(("XNote", "agent", ""), ("XOther", "client", "")),
    ):
        with pytest.raises(methods.MethodTableError, match="x/y"):
            methods.collect(wrong)


def test_the_codegen_extra_pins_what_the_codegen_sessions_install() -> None:
    """The test session installs the `codegen` extra and regenerates (the hand-edit test): a
    generator other than codegen_check's writes other code, and that test fails."""
    root = Path(__file__).resolve().parents[2]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    noxfile = (root / "noxfile.py").read_text()
    pinned = re.search(r"^CODEGEN_TOOLS = (\[.*\])$", noxfile, re.MULTILINE)
    assert pinned is not None
    assert extra["codegen"] == ast.literal_eval(pinned[1])
