"""Prompt commands from files: `/NAME args` sends the file's text, with `$ARGUMENTS` replaced by
the arguments, to the model.

Where they are: `.reasonix/commands/NAME.md` in the project (the repository root, or the cwd
outside a repository) and `commands/NAME.md` in the agent's config directory (the user's). A
file may open with front matter between `---` lines: `description: …` (shown in the command
list) and `argument-hint: …` (the input hint the client shows). NAME is the file's name without
`.md`: letters, digits, `-`, `_` and `.`, starting with a letter or digit.

Names never collide silently: the agent's own commands win, then the project's, then the
user's; each one left out is reported (`shadowed`), by `/help` and `acp doctor`.

Read when a session opens and by its reload, as the instructions are (project/instructions.py),
and only where they really are, links resolved: a project's inside the project and workspace, a
user's inside the config directory; one that is not is left out and named (`refused`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from reasonix_acp.project.instructions import (
    PROJECT,
    USER,
    Refused,
    bounds,
    read_within,
    repository_root,
)

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_BYTES = 64 * 1024  # a command file larger than this is not read


@dataclass(frozen=True)
class FileCommand:
    """One prompt command from a file."""

    name: str
    description: str
    hint: str | None
    body: str
    path: str
    scope: str  # "project" or "user"

    def expand(self, rest: str) -> str:
        if "$ARGUMENTS" in self.body:
            return self.body.replace("$ARGUMENTS", rest)
        return f"{self.body}\n\n{rest}" if rest else self.body


@dataclass(frozen=True)
class Found:
    """The commands a session offers from files, and the names left out and why."""

    commands: tuple[FileCommand, ...] = ()
    shadowed: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # the files not read, each with why


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """(`key: value` pairs of the front matter, the rest): a small subset of YAML, enough for
    one-line string values (quoted or not)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        return {}, text
    fields: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line.startswith((" ", "\t", "#")):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            fields[key.strip()] = value
    return fields, "\n".join(lines[end + 1 :]).strip("\n")


def _read(
    directory: str, scope: str, roots: tuple[str, ...], refused: list[str]
) -> list[FileCommand]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    where = PROJECT if scope == "project" else USER
    found = []
    for entry in names:
        stem = entry[:-3] if entry.endswith(".md") else ""
        path = os.path.join(directory, entry)
        if not NAME.fullmatch(stem):
            continue
        try:
            _, size, data = read_within(path, roots, MAX_BYTES + 1, where)
        except Refused as exc:
            refused.append(exc.note)
            continue
        except OSError:
            continue
        if size > MAX_BYTES or len(data) > MAX_BYTES:
            continue
        fields, body = front_matter(data.decode("utf-8", "replace"))
        description = fields.get("description") or f"Prompt from {path}"
        found.append(FileCommand(stem, description, fields.get("argument-hint"), body, path, scope))
    return found


def load(
    cwd: str, config_dir: str | None, reserved: Iterable[str], extra: Iterable[str] = ()
) -> Found:
    project = os.path.join(repository_root(cwd) or cwd, ".reasonix", "commands")
    user = os.path.join(config_dir, "commands") if config_dir else None
    where = bounds(cwd, extra, config_dir)
    taken = {name: "the agent's own command" for name in reserved}
    commands: list[FileCommand] = []
    shadowed: list[str] = []
    refused: list[str] = []
    for scope, directory in (("project", project), ("user", user)):
        roots = where.project if scope == "project" else where.user
        for command in _read(directory, scope, roots, refused) if directory else []:
            if command.name in taken:
                shadowed.append(f"/{command.name} from {command.path} ({taken[command.name]} wins)")
                continue
            taken[command.name] = f"the {scope}'s {command.path}"
            commands.append(command)
    return Found(tuple(commands), tuple(shadowed), tuple(refused))
