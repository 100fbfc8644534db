"""Context blocks that are an instruction file the system prompt already carries
(project/instructions.py): an editor attaching AGENTS.md with the user's words sends the model
nothing it has not got, so the block is left out and a note naming the file stands in its place
(the model is always told what was left out, and where it is).

A block is left out only when it *is* a file loaded whole:
- its text is the file's text, trailing newlines aside (a text block, or an embedded
  resource's text, whatever its uri: the note then names both);
- or it is the file's text in a wrapper an editor is known to put around a file it attaches,
  naming the file's path: CodeCompanion's rules block (`Sharing `PATH`:`, the text between
  `---` rules) and its file attachment (`<attachment filepath="PATH">`, the text fenced).
Anything else is sent whole: a block holding the file's text among other text (a user's notes
that quote AGENTS.md and add their constraints, an unsaved edit of the file) is the user's, and
a block is never cut. A wrapper's path is compared as written, as its real path and as a
`file://` URI; a relative one never names the file.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import unquote, urlsplit

from reasonix_acp.project.instructions import Instructions

# CodeCompanion (lua/codecompanion/interactions/shared/rules/helpers.lua and
# chat/helpers/init.lua `format_file_for_llm`): exactly the text it sends, the path and the
# file's text captured.
WRAPPERS = (
    re.compile(r"Sharing `(?P<path>[^`\n]+)`:\n\n---\n(?P<text>.*)\n---", re.S),
    re.compile(
        r'<attachment filepath="(?P<path>[^"\n]+)">Here is the content from the file:\n\n'
        r"````[^\n]*\n(?P<text>.*)\n````\n</attachment>",
        re.S,
    ),
)


def repeat_note(block: dict[str, Any], instructions: Instructions) -> str | None:
    """The note to send in the block's place when it is an instruction file loaded whole;
    None when it is anything more or else (then it is sent as it is)."""
    kind = block.get("type")
    if kind == "resource":
        resource = block.get("resource") or {}
        text, uri = resource.get("text"), resource.get("uri")
        path = _same_text(text, instructions) if isinstance(text, str) else None
        if path is None:
            return None
        if isinstance(uri, str) and not _names(uri, path):
            return f"[{uri}, sent by the editor: the text of {path}, already in the instructions]"
        return _note(path)
    if kind != "text" or not isinstance(block.get("text"), str):
        return None
    text = block["text"]
    path = _same_text(text, instructions)
    if path is not None:
        return _note(path)
    for wrapper in WRAPPERS:
        found = wrapper.fullmatch(text.rstrip("\r\n"))
        if found is None:
            continue
        path = _same_text(found["text"], instructions)
        if path is not None and _names(found["path"], path):
            return _note(path)
    return None


def _note(path: str) -> str:
    return f"[{path}, sent by the editor: already in the instructions]"


def _same_text(text: str, instructions: Instructions) -> str | None:
    """The path of the file loaded whole whose text `text` is, trailing newlines aside."""
    bare = text.rstrip("\r\n")
    for path, body in instructions.bodies:
        if bare and bare == body.rstrip("\r\n"):
            return path
    return None


def _names(name: str, path: str) -> bool:
    """Whether `name` (a path or a `file://` URI, as an editor wrote it) is the file `path`."""
    parts = urlsplit(name)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            return False
        name = unquote(parts.path)
    if not os.path.isabs(name):
        return False
    return os.path.normpath(name) == os.path.normpath(path) or os.path.realpath(
        name
    ) == os.path.realpath(path)
