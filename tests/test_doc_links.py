"""The README and docs/ say only true things about the repository: every relative link names a
file that exists, every `acp` command in their code is one `acp --help` knows, every `nox -s`
session is in noxfile.py, and every repository path in backticks exists. The README stays short
enough to read in two minutes."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parents[1]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
README_MAX_LINES = 250

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)*)`")
# `acp` or `reasonix-acp`, bare or behind a path, where a command starts (a line, after `|`, `&&`,
# `;`, a quote, `(` or `uvx`; not a path argument, not `acp-conformance`); then its words, up to
# the end of the line or of the command.
ACP = re.compile(
    r"(?:^|[|;&(\"'`]|\buvx)[ \t]*(?:[\w.~-]*/)*(?:reasonix-)?acp(?![\w-])"
    r"((?:[ \t]+[^\s|;&#\"'`)]+)*)",
    re.M,
)
NOX = re.compile(r"(?<![\w-])nox[ \t]+-s((?:[ \t]+[A-Za-z_]\w*)+)")
REPO_PATH = re.compile(
    r"(?<![\w./~-])((?:src|tests|bench|docs|schema|codegen|registry)/[^\s`'\",;:()]*)"
)
# A module named from inside the package, as `turn/runner.py`.
PACKAGE = ROOT / "src" / "reasonix_acp"
MODULE_PATH = re.compile(r"(?<![\w./~-])([a-z_]+/[\w/]*\w\.py)\b")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_of(text: str) -> list[str]:
    """The text of every fenced block and every inline code span, inline spans on one line."""
    blocks = FENCE.findall(text)
    prose = FENCE.sub("", text)
    return blocks + [" ".join(span.split()) for span in SPAN.findall(prose)]


@cache
def usage() -> str:
    """What `acp --help` prints: the subcommands and options the program itself declares."""
    out = subprocess.run(
        [sys.executable, "-m", "reasonix_acp", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return out.stdout


def test_relative_links_name_files_that_exist() -> None:
    checked = 0
    for page in pages():
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"
            checked += 1
    assert checked >= 1  # the README links its docs


def test_every_doc_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {(ROOT / target).resolve() for target in LINK.findall(readme)}
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"docs the README does not link: {missing}"


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"


def test_acp_commands_are_real() -> None:
    text = usage()
    subcommands = set(re.findall(r"^\s*(?:usage:\s*)?acp ([a-z][\w-]*)", text, re.M))
    sessions = re.search(r"acp sessions (.*)", text)
    assert sessions and {"setup", "demo", "doctor", "sessions"} <= subcommands, text
    actions = set(re.findall(r"(?:^|\s\|)\s*([a-z]+)", sessions.group(1)))
    options = set(re.findall(r"--[a-z][\w-]*", text))
    checked = 0
    for page in pages():
        for code in code_of(page.read_text(encoding="utf-8")):
            for args in ACP.findall(code):
                words = [w.strip("[]") for w in args.split()]
                where = f"{page.name}: acp{args}"
                if words and re.fullmatch(r"[a-z][\w-]*", words[0]):
                    assert words[0] in subcommands, f"{where}: no subcommand {words[0]}"
                    if words[0] == "sessions" and len(words) > 1 and words[1].isalpha():
                        assert words[1] in actions, f"{where}: no sessions action {words[1]}"
                for word in words:
                    if word.startswith("--"):
                        option = word.split("=", 1)[0]
                        assert option in options, f"{where}: no option {option}"
                checked += 1
    assert checked >= 10, checked  # the README and docs do show commands


def nox_sessions() -> set[str]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            target = call.func if call else deco
            if ast.unparse(target) != "nox.session":
                continue
            named = [k.value for k in (call.keywords if call else []) if k.arg == "name"]
            names.add(named[0].value if named and isinstance(named[0], ast.Constant) else node.name)
    return names


def test_nox_sessions_named_exist() -> None:
    sessions = nox_sessions()
    assert {"tests", "quick", "lint"} <= sessions, sessions
    checked = 0
    for page in pages():
        for code in code_of(page.read_text(encoding="utf-8")):
            for names in NOX.findall(code):
                for name in names.split():
                    assert name in sessions, f"{page.name}: nox -s {name}: no such session"
                    checked += 1
    assert checked >= 5, checked


def test_repository_paths_exist() -> None:
    checked = 0
    for page in pages():
        for code in code_of(page.read_text(encoding="utf-8")):
            for path in REPO_PATH.findall(code):
                path = path.rstrip(".")
                if "<" in path or "{" in path:
                    continue  # a pattern: tests/golden/<scenario>.ndjson
                if any(c in path for c in "*?["):
                    assert any(ROOT.glob(path)), f"{page.name}: {path} matches nothing"
                else:
                    assert (ROOT / path).exists(), f"{page.name}: {path} does not exist"
                checked += 1
            for path in MODULE_PATH.findall(code):
                if (PACKAGE / path.split("/")[0]).is_dir():
                    assert (PACKAGE / path).is_file(), f"{page.name}: {path} is no module"
                    checked += 1
    assert checked >= 20, checked
