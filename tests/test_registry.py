"""The ACP registry entry in registry/: the fields and limits of the registry's entry format,
in step with the package, and an icon as the registry wants it (16x16, monochrome,
`currentColor`)."""

from __future__ import annotations

import json
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[1]
ENTRY = json.loads((ROOT / "registry" / "agent.json").read_text(encoding="utf-8"))
PACKAGE = {
    "type": "object",
    "required": ["package"],
    "properties": {
        "package": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "additionalProperties": False,
}
# The registry's entry format: required fields, the id and version patterns, the distribution
# kinds and what a package distribution may hold.
FORMAT = {
    "type": "object",
    "required": ["id", "name", "version", "description", "distribution"],
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
        "name": {"type": "string", "minLength": 1},
        "version": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+\.[0-9]+"},
        "description": {"type": "string", "minLength": 1},
        "authors": {"type": "array", "items": {"type": "string"}},
        "license": {"type": "string"},
        "distribution": {
            "type": "object",
            "minProperties": 1,
            "properties": {"npx": PACKAGE, "uvx": PACKAGE, "binary": {"type": "object"}},
            "additionalProperties": False,
        },
    },
}


def test_the_entry_has_the_registry_format() -> None:
    jsonschema.validate(ENTRY, FORMAT)
    assert set(ENTRY) <= {
        "id",
        "name",
        "version",
        "description",
        "repository",
        "website",
        "authors",
        "license",
        "license_url",
        "icon",
        "distribution",
    }


def test_the_entry_is_in_step_with_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert ENTRY["version"] == project["version"]
    assert ENTRY["distribution"]["uvx"]["package"] == f"{project['name']}=={project['version']}"
    assert project["name"] in project["scripts"]  # `uvx reasonix-acp` runs this command
    assert ENTRY["license"] == project["license"]


def test_the_icon_is_16_by_16_and_monochrome() -> None:
    svg = ET.parse(ROOT / "registry" / "icon.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert (svg.get("width"), svg.get("height"), svg.get("viewBox")) == ("16", "16", "0 0 16 16")
    painted = [
        (el.tag, attr, el.get(attr))
        for el in svg.iter()
        for attr in ("fill", "stroke", "color", "stop-color")
        if el.get(attr) is not None
    ]
    assert painted and all(value in ("none", "currentColor") for _, _, value in painted), painted
    assert not [el for el in svg.iter() if "style" in el.attrib or el.tag.endswith("image")]
