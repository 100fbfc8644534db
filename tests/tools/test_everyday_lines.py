"""Ninety-four lines agents write every day, judged with every name in them granted and no
sandbox: the ones the gate proves run without a question, the rest are asked, each for a
reason docs/permissions.md states. The first eighty were in the provable language before it took
assignments, groups, compound commands, heredocs and variable reads; the last fourteen are
the lines that were asked only for that."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_verdict import Rules, granted_names, judge_line

PLAIN = [
    "ls -la", "git status", "git diff --stat", "git log --oneline -n 10", "cat README.md",
    'grep -rn "TODO" src', "find . -name '*.py' -not -path './.venv/*'", "pytest -q",
    "pytest tests/test_app.py -k name -x", "npm test", "npm run build", "npm install", "make",
    "make test", "cargo build", "cargo test -- --nocapture", "go test ./...",
    "python -m pytest -q", "python3 script.py --help", "head -n 50 src/main.py",
    "tail -n 20 log.txt", "wc -l src/*.py", "sed -n '1,40p' src/app.py", 'rg "def main" src',
    "ls src | head", "git diff | head -100", "cat package.json | grep version",
    "mkdir -p build", "cp a.txt b.txt", "mv old.txt new.txt", "touch notes.md",
    'echo "hello" > out.txt', "echo done >> log.txt", "sort data.txt | uniq -c | sort -rn",
    'git add -A && git commit -m "fix: typo"', "git checkout -b feature/x",
    "npm run lint && npm test", 'python -c "print(1)"', 'node -e "console.log(1)"',
    "tsc --noEmit", "eslint src --fix", "black --check .", "ruff check src", "mypy src",
    "go build ./... 2>&1 | head", "cargo clippy 2>&1 | tail -20", "diff -u a.txt b.txt",
    "tree -L 2", "du -sh node_modules", "pwd", "which python", "python --version",
    "node --version && npm --version", "git stash && git pull --rebase && git stash pop",
    "ls *.md", "cat src/*.py | wc -l", 'grep -c "import" src/app.py || true',
    "test -f setup.py && echo yes", "[ -d node_modules ] || npm install", "cd src && ls",
    "git log -p -1 -- src/app.py", "xargs -n1 echo < list.txt", "find . -name '*.pyc' -delete",
    'echo "a,b" | cut -d, -f1', "jq .version package.json",
    "curl -s http://localhost:3000/health", "docker compose ps", "awk '{print $1}' data.txt",
    "tar czf out.tgz src", "chmod +x scripts/run.sh", "./scripts/run.sh",
    "npx prettier --check .", "pip install -e .", "uv run pytest",
    "git diff HEAD~1 --name-only", "ls -1 | wc -l", "git grep -n parse -- '*.py'",
    "git branch -a", "npm ls --depth=0", "ps aux | grep node",
]  # fmt: skip
WIDENED = [
    "FOO=bar npm start",
    "export NODE_ENV=test && npm test",
    "source .venv/bin/activate && pytest",
    ". venv/bin/activate",
    "(cd sub && make)",
    'for f in src/*.py; do python -m py_compile "$f"; done',
    "if [ -f package.json ]; then npm test; fi",
    "time make",
    "cat <<'EOF' > notes.md\n# Notes\n- run `make` first, then $PATH\nEOF",
    "python - <<'EOF'\nimport sys\nprint(sys.version)\nEOF",
    "echo $PATH",
    'echo "$HOME"',
    "bash scripts/test.sh",
    "sh -c 'echo hi'",
]
# What stays asked, and why (docs/permissions.md: "Which lines run without a question").
ASKED = {
    "source .venv/bin/activate && pytest": "`source` runs text as commands",
    ". venv/bin/activate": "`.` runs text as commands",
    "bash scripts/test.sh": "`bash` runs text as commands",
    "sh -c 'echo hi'": "`sh` runs text as commands",
}


# A project's files, as the lines above expect them: the places a line names are judged where
# they lead now (patterns by what they match, links followed).
PROJECT = [
    "src/app.py", "src/main.py", "tests/test_app.py", "scripts/run.sh", "sub/Makefile",
    "package.json", "README.md", "a.txt", "b.txt", "old.txt", "log.txt", "data.txt",
    "list.txt", "setup.py",
]  # fmt: skip


def _decision(line: str, tmp_path: Path) -> tuple[str, str]:
    workspace = Workspace(str(tmp_path / "ws"), temp=str(tmp_path / "tmp"))
    for name in PROJECT:
        (tmp_path / "ws" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "ws" / name).touch()
    parsed = parse(line)
    names = granted_names(parsed.proof) if parsed.proof else parsed.names
    grants = [("execute", f"command {name}", True) for name in names]
    verdict = judge_line(parsed, "workspace-write", grants, Rules(), workspace)
    return verdict.decision, verdict.reason or parsed.unprovable


def test_the_corpus_is_ninety_four_distinct_lines() -> None:
    assert len(PLAIN) == 80 and len(WIDENED) == 14
    assert len(set(PLAIN + WIDENED)) == 94


@pytest.mark.parametrize("line", PLAIN + WIDENED)
def test_a_line_with_its_names_granted(tmp_path: Path, line: str) -> None:
    decision, reason = _decision(line, tmp_path)
    if line in ASKED:
        assert (decision, reason) == ("ask", ASKED[line])
    else:
        assert decision == "allow", reason


def test_at_least_ninety_run_unasked(tmp_path: Path) -> None:
    unasked = [line for line in PLAIN + WIDENED if _decision(line, tmp_path)[0] == "allow"]
    print(f"\neveryday lines run unasked with their names granted: {len(unasked)} of 94")
    assert len(unasked) >= 90
