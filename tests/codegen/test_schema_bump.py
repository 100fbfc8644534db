"""A schema bump is one command: fed a copy of the pinned schema with a new request method, a
new `session/update` variant and a new field (and a pin naming that copy), `python -m codegen`
generates the models and the method table for them, and the conformance runner's schema checks
know them, with no hand edit. These are the "Bumping the schema" steps of docs/architecture.md."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.pin import SCHEMA_DIR, UNSTABLE_COPY, load_pin, load_upstream

ROOT = Path(__file__).resolve().parents[2]


def bumped(upstream: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(upstream)
    defs = doc["$defs"]
    session_id = {"allOf": [{"$ref": "#/$defs/SessionId"}]}
    defs["ArchiveNoteRequest"] = {
        "type": "object",
        "properties": {"sessionId": session_id, "note": {"type": "string"}},
        "required": ["sessionId", "note"],
        "x-method": "session/archive_note",
        "x-side": "agent",
    }
    defs["ArchiveNoteResponse"] = {
        "type": "object",
        "properties": {"archived": {"type": "boolean"}},
        "required": ["archived"],
        "x-method": "session/archive_note",
        "x-side": "agent",
    }
    defs["WeatherReport"] = {
        "type": "object",
        "properties": {"forecast": {"type": "string"}},
        "required": ["forecast"],
    }
    defs["SessionUpdate"]["oneOf"].append(
        {
            "type": "object",
            "properties": {"sessionUpdate": {"type": "string", "const": "weather_report"}},
            "required": ["sessionUpdate"],
            "allOf": [{"$ref": "#/$defs/WeatherReport"}],
        }
    )
    defs["PromptResponse"]["properties"]["turnSeconds"] = {"type": ["number", "null"]}
    return doc


CHECK = """
import json, sys
from reasonix_acp.generated.methods import METHODS, SESSION_ARCHIVE_NOTE
from reasonix_acp.generated.models import PromptResponse, SessionNotification
from reasonix_acp.protocol.codec import model_class
from acp_conformance.schema import problems

spec = METHODS[SESSION_ARCHIVE_NOTE]
assert (spec.side, spec.kind, spec.params, spec.result) == (
    "agent", "request", "ArchiveNoteRequest", "ArchiveNoteResponse"), spec
request = model_class(spec.params).model_validate({"sessionId": "s1", "note": "n"})
assert request.note == "n"
note = SessionNotification.model_validate(
    {"sessionId": "s1", "update": {"sessionUpdate": "weather_report", "forecast": "rain"}})
assert type(note.update).__name__ != "SessionUpdateOther" and note.update.forecast == "rain"
assert PromptResponse.model_validate({"stopReason": "end_turn", "turnSeconds": 1.5}).turn_seconds == 1.5
assert problems({"sessionId": "s1", "note": "n"}, "ArchiveNoteRequest") == []
assert problems({"sessionId": "s1"}, "ArchiveNoteRequest") != []
assert problems({"archived": True}, "ArchiveNoteResponse") == []
update = {"sessionId": "s1", "update": {"sessionUpdate": "weather_report", "forecast": "rain"}}
assert problems(update, "SessionNotification") == []
assert problems({"stopReason": "end_turn", "turnSeconds": "soon"}, "PromptResponse") != []
print("ok")
"""


@pytest.mark.slow
def test_a_bumped_schema_is_picked_up_by_one_command(tmp_path: Path) -> None:
    pin = load_pin()
    # The bumped package, where `nox -s update_schema` writes it (here: into a copy of the
    # package): its stable schema changed, its unstable one as pinned.
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "src" / "reasonix_acp", tree / "reasonix_acp", ignore=ignore)
    shutil.copytree(ROOT / "src" / "acp_conformance", tree / "acp_conformance", ignore=ignore)
    schemas = tree / "acp_conformance"
    text = json.dumps(bumped(load_upstream(pin)), indent=2)
    (schemas / "upstream_schema.json").write_text(text, encoding="utf-8")
    assert (schemas / UNSTABLE_COPY).read_bytes() == (SCHEMA_DIR / UNSTABLE_COPY).read_bytes()
    # 1. The pin names the new file's sha256.
    pin_file = tmp_path / "upstream.toml"
    old = (ROOT / "schema" / "upstream.toml").read_text(encoding="utf-8")
    sha = hashlib.sha256(text.encode()).hexdigest()
    pin_file.write_text(old.replace(pin.sha256, sha), encoding="utf-8")
    # 2. `nox -s codegen` (here: the generator it runs) into the copy of the package.
    generated = tree / "reasonix_acp" / "generated"
    command = [sys.executable, "-m", "codegen", "--pin", str(pin_file), "--schemas", str(schemas)]
    subprocess.run([*command, "--out", str(generated)], cwd=ROOT, check=True)
    # The committed generation is stale against the bump: codegen_check would fail.
    stale = subprocess.run([*command, "--check"], cwd=ROOT, capture_output=True, text=True)
    assert stale.returncode == 1 and "methods.py" in stale.stderr
    # 3. The models, the method table and the conformance runner's schema know it.
    run = subprocess.run(
        [sys.executable, "-c", CHECK],
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
