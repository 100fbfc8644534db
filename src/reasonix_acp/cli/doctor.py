"""`acp doctor`: what a bug report needs, in one screen, secrets left out.

Python and package versions; the config file and whether it reads; each provider's endpoint,
whether a key is set (never the key), whether it answers and which models it serves; the default
model; the data directory, its mode and its store's schema version; each MCP server of
config.toml and whether it starts (and how many tools it offers); the command sandbox (the
engine, or why there is none: a failure only under `[sandbox] mode = "enforce"`). Exit status
0 when everything works, 1 when something does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import sqlite3
import stat
import sys
from importlib import metadata
from pathlib import Path

from reasonix_acp import config as settings
from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.mcp_servers.link import Link
from reasonix_acp.project.commands import load as load_commands
from reasonix_acp.project.instructions import load as load_instructions
from reasonix_acp.project.skills import load as load_skills
from reasonix_acp.providers.base import ProviderAuthFailed, ProviderError
from reasonix_acp.providers.discovery import list_models, take
from reasonix_acp.redact import scrub
from reasonix_acp.session.commands import names as command_names
from reasonix_acp.tools.sandbox import summary as sandbox_summary
from reasonix_acp.words import counted

PACKAGES = ("pydantic", "httpx", "mcp", "transitions", "platformdirs", "tree-sitter", "tomlkit")
DB_NAME = "reasonix-acp.sqlite3"


class Report:
    def __init__(self) -> None:
        self.failed = False

    def line(self, text: str, ok: bool = True) -> None:
        self.failed = self.failed or not ok
        sys.stdout.write(scrub(("  " if ok else "! ") + text) + "\n")


def _versions(report: Report) -> None:
    try:
        ours = metadata.version("reasonix-acp")
    except metadata.PackageNotFoundError:
        ours = "(not installed)"
    report.line(f"reasonix-acp {ours} on Python {platform.python_version()} ({sys.executable})")
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    report.line("packages: " + ", ".join(found), ok="missing" not in " ".join(found))


async def _providers(report: Report, config: settings.Config) -> None:
    served = {p.name: await _provider(report, p) for p in config.providers.values()}
    for old, new in config.renamed.items():
        report.line(f"{config.retired_notice(old, new)}", ok=False)
    missing = None if config.unreadable else config.incomplete()  # the config's line said it
    default = config.default_model
    if missing and missing != config.missing_key(default or ""):  # said with its provider
        report.line(missing, ok=False)
    if config.unreadable:
        return
    name, _, model = (default or "").partition("/")
    listed = served.get(name) or []
    if default and not missing and listed and model not in listed:
        others = ", ".join(f"{name}/{m}" for m in listed[:12])
        report.line(f"default model {default}: its endpoint does not serve it: {others}", ok=False)
    elif default and not missing and default not in config.model_ids():
        report.line(f"default model: {config.unknown_model(default)}", ok=False)
    else:
        report.line(f"default model: {default or '(none yet)'}")


async def _provider(report: Report, p: settings.ProviderConfig) -> list[str] | None:
    """One provider: whether it answers with its key, and what it serves (taken as its list;
    returned, or None when it did not say)."""
    where = f"provider {p.name} ({p.kind}) at {shown_url(p.base_url) or '(built in)'}"
    key = "key set" if p.api_key else "no key"
    if p.kind == "offline":
        report.line(f"{where}: the offline model")
        return None
    if p.dialect == "deepseek" and not p.api_key:  # nothing to ask it: it would refuse
        report.line(f"{where}: {p.key_missing()}", ok=False)
        return None
    try:
        models = await list_models(p)
    except ProviderAuthFailed as exc:
        report.line(f"{where}, {key}: {exc}", ok=False)
        return None
    except ProviderError as exc:
        report.line(f"{where}, {key}: does not answer: {exc}", ok=False)
        return None
    take(p, models)
    listed = ", ".join(models[:10]) + (", ..." if len(models) > 10 else "")
    served = counted(len(models), "model")
    report.line(f"{where}, {key}: answers; serves {served}: {listed}")
    return models


def _config(report: Report, config: settings.Config) -> None:
    """config.toml: whether it reads; what of it is left out, each thing once."""
    path = config.config_file
    if config.unreadable:
        cause = config.unreadable.removeprefix(f"{path}: ")
        report.line(f"config {path} cannot be read, so no session starts: {cause}", ok=False)
    else:
        report.line(f"config {path}: {'reads' if path and path.exists() else 'none yet'}")
    for note in config.ignored:
        report.line(f"config: {note}", ok=False)
    for unknown in config.unknown:
        report.line(f"config: {unknown.sentence()}", ok=False)


def _store(report: Report, data: Path) -> None:
    if not data.exists():
        report.line(f"data directory {data}: not created yet")
        return
    mode = stat.S_IMODE(data.stat().st_mode)
    report.line(f"data directory {data}: mode {mode:o}", ok=mode & 0o077 == 0)
    db = data / DB_NAME
    if not db.exists():
        report.line("session store: not created yet")
        return
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            count = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        report.line(f"session store {db}: schema version {version}, {counted(count, 'session')}")
    except sqlite3.Error as exc:
        report.line(f"session store {db}: cannot be read: {exc}", ok=False)


async def _mcp(report: Report, config: settings.Config) -> None:
    for spec in config.mcp_servers:
        link = Link(spec, os.getcwd())
        where = shown_url(spec["url"]) if spec.get("url") else spec.get("command")
        link.start()
        with contextlib.suppress(Exception):  # the link records why it failed
            await link.ready()
        ok = link.state == "connected"
        said = counted(len(link.tools), "tool") if ok else f"fails: {link.error or link.state}"
        report.line(f"MCP server {link.name} ({link.transport}, {where}): {said}", ok=ok)
        await link.stop()


def _project(report: Report, config_dir: str | None) -> None:
    """What a session opened here would know of the project: instructions and file commands."""
    here = os.getcwd()
    report.line(f"in {here}: " + load_instructions(here, [], config_dir).describe())
    found = load_commands(here, config_dir, command_names())
    listed = ", ".join(f"/{c.name} ({c.scope})" for c in found.commands) or "none"
    report.line(f"in {here}: prompt commands from files: {listed}")
    skills = load_skills(here, config_dir)
    names = ", ".join(s.name for s in skills.found) or "none"
    report.line(f"in {here}: skills: {names}")
    for shadowed in (*found.shadowed, *skills.shadowed):
        report.line(f"in {here}: not offered: {shadowed}")
    for refused in (*found.refused, *skills.refused):
        report.line(f"in {here}: not read: {refused}")


def run_doctor(data: Path) -> int:
    report = Report()
    _versions(report)
    config = settings.load(quiet=True)  # what is wrong with it is reported here, once
    _config(report, config)
    asyncio.run(_providers(report, config))
    report.line(*sandbox_summary(config.sandbox))
    path = config.config_file
    config_dir = str(path.parent) if path is not None else None
    _project(report, config_dir)
    _store(report, data)
    if config.mcp_servers:
        asyncio.run(_mcp(report, config))
    sys.stdout.write("everything works\n" if not report.failed else "some things do not work (!)\n")
    return 1 if report.failed else 0
