"""git's configuration read as data (checkpoints/git_config.py), against git itself: generated
configuration files (section and key names in any case, old-style `[a.B]` headers, quoted
subsections with escapes, values with blanks, quotes, comments, escapes, continued lines, CRLF,
bytes that are not UTF-8, keys without a value, some lines git refuses) that include each other
(`include.path` relative, absolute, through `~/`, missing; `includeIf` with `gitdir:`,
`gitdir/i:`, `./` and `onbranch:` conditions that hold and that do not) read the same as
`git config --list --show-origin --includes` lists them, or are refused where git refuses them.
Reading every include whatever its condition reads a superset. The seed is printed
(`CONFIG_SEED=N` replays one, `CONFIG_EXAMPLES` sets the count)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from reasonix_acp.checkpoints.git_config import (
    Conditions,
    Entry,
    Unreadable,
    parse,
    read,
    scopes,
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

EXAMPLES = int(os.environ.get("CONFIG_EXAMPLES", "150"))
SECTIONS = ["core", "Core", "ALIAS", "diff", "filter", "x-y", "a1", "user"]
SUBSECTIONS = ["Sub", "a.b", "with space", 'q\\"uote', "back\\\\slash", "e\\scape", "ÜTF", ""]
KEYS = ["name", "Name", "hooksPath", "k-1", "fsmonitor", "pager", "A"]
WORDS = ["plain", "two words", "x=y", "#not", "tab\there", "ünï", "a;b", "!sh -c x", "~/p"]


def git_list(cwd: Path, home: Path, *args: str) -> tuple[int, list[Entry]]:
    """git's own listing (`-z`): its exit status and (origin, key, value) as it reads them."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "config", *args, "--list", "--show-origin", "--includes", "-z"],
        cwd=cwd,
        env=env,
        capture_output=True,
    )
    out = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    entries = []
    for origin, item in zip(out[0:-1:2], out[1::2], strict=True):
        key, newline, value = item.partition("\n")
        place = os.path.normpath(os.path.join(cwd, origin.removeprefix("file:")))
        entries.append(Entry(place, key, value if newline else None))
    return done.returncode, entries


def normal(entries: list[Entry]) -> list[Entry]:
    return [Entry(os.path.normpath(e.origin), e.key, e.value) for e in entries]


def value(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.randrange(9)
        if kind == 0:
            parts.append('"' + rng.choice(WORDS).replace('"', "") + ' ; #  "')
        elif kind == 1:
            parts.append(rng.choice(["\\n", "\\t", "\\b", "\\\\", '\\"']))
        elif kind == 2:
            parts.append(rng.choice([" ", "\t", "  \t "]))
        elif kind == 3:
            parts.append("\\\n" + rng.choice(["", "  ", "\t"]))
        elif kind == 4:
            parts.append(rng.choice([" # comment", " ; comment", "#x"]))
        else:
            parts.append(rng.choice(WORDS).split("\t")[0])
    return "".join(parts)


def header(rng: random.Random) -> str:
    section = rng.choice(SECTIONS)
    kind = rng.randrange(4)
    if kind == 0:
        return f'[{section} "{rng.choice(SUBSECTIONS)}"]'
    if kind == 1:
        return f"[{section}.{rng.choice(['B', 'c-d'])}]"
    if kind == 2:
        return f'[{section}  \t"{rng.choice(SUBSECTIONS)}"] {rng.choice(KEYS)} = same line'
    return f"[{section}]"


BROKEN = ["[core", '[a "b', '[a "b"x]', "[a b]", "k = \\q", 'k = "open', "1key = x", "k x", "[]"]


def config(rng: random.Random, includes: list[str], broken: bool) -> bytes:
    lines = []
    for _ in range(rng.randint(1, 12)):
        kind = rng.randrange(10)
        if kind == 0:
            lines.append(header(rng))
        elif kind == 1:
            lines.append(rng.choice(["", "  ", "# c", "; c", "\t# c"]))
        elif kind == 2 and includes:
            lines.append(rng.choice(includes))
        elif kind == 3:
            lines.append(f"\t{rng.choice(KEYS)}")
        else:
            indent = rng.choice(["", " ", "\t"])
            lines.append(f"{indent}{rng.choice(KEYS)} ={value(rng)}")
    if broken:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(BROKEN))
    text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "\\"])
    data = text.encode("utf-8")
    if rng.randrange(8) == 0:
        data += b"\n[latin]\nv = caf\xe9\n"
    if rng.randrange(12) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


def conditions(rng: random.Random, repo: Path, home: Path, directory: Path) -> str:
    """An includeIf condition that may hold for `repo` or not."""
    gitdir = repo / ".git"
    kind = rng.randrange(8)
    if kind == 0:
        return f"gitdir:{gitdir}"
    if kind == 1:
        return f"gitdir:{repo}/"
    if kind == 2:
        return f"gitdir/i:{str(repo).upper()}/"
    if kind == 3:
        return f"gitdir:{str(repo).upper()}/"
    if kind == 4:
        return "gitdir:" + rng.choice(["**/repo/**", "repo/", "other/", "*/.git", "r?po/"])
    if kind == 5:
        relative = os.path.relpath(repo, directory)
        return f"gitdir:./{relative}/" if not relative.startswith("..") else "gitdir:./x/"
    if kind == 6:
        return "gitdir:~/" + os.path.relpath(repo, home) + "/"
    return "onbranch:" + rng.choice(["main", "ma*", "other", "main/"])


def include_line(rng: random.Random, target: Path, here: Path, repo: Path, home: Path) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        path = str(target)
    elif kind == 1:
        path = os.path.relpath(target, here)
    elif kind == 2:
        path = "~/" + os.path.relpath(target, home)
    else:
        path = os.path.relpath(target, here) + rng.choice(["", ".missing"])
    if rng.randrange(2):
        return f"[include]\n\tpath = {path}"
    return f'[includeIf "{conditions(rng, repo, home, here)}"]\n\tpath = "{path}"'


def generated(rng: random.Random, tmp: Path, n: int) -> tuple[Path, Path, Path]:
    """A repository, a HOME, and n configuration files under HOME including each other
    (never in a cycle: a file includes only later ones)."""
    home = tmp / "home"
    repo = home / "work" / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env={**os.environ})
    files = [home / "conf" / f"c{i}.cfg" if i % 2 else home / f"top{i}.cfg" for i in range(n)]
    (home / "conf").mkdir()
    broken = rng.randrange(6) == 0
    for i, path in enumerate(files):
        later = files[i + 1 :]
        includes = [include_line(rng, t, path.parent, repo, home) for t in later]
        path.write_bytes(config(rng, includes, broken and i == n - 1))
    return repo, home, files[0]


def test_the_reader_reads_what_git_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed = int(os.environ.get("CONFIG_SEED", random.randrange(1 << 30)))
    print(f"\nCONFIG_SEED={seed}")
    rng = random.Random(seed)
    refused = 0
    for n in range(EXAMPLES):
        tmp = tmp_path / str(n)
        repo, home, first = generated(rng, tmp, rng.randint(1, 4))
        status, listed = git_list(repo, home, "--file", str(first))
        monkeypatch.setenv("HOME", str(home))
        try:
            ours: list[Entry] | None = read(str(first), Conditions(str(repo / ".git"))).entries
        except Unreadable:
            ours = None
        context = f"CONFIG_SEED={seed} example {n}: {first}"
        if status != 0:
            refused += 1
            assert ours is None, context
            continue
        assert ours is not None and normal(ours) == listed, context
    assert refused < EXAMPLES  # most are read


def test_every_include_is_read_whatever_its_condition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = int(os.environ.get("CONFIG_SEED", random.randrange(1 << 30)))
    print(f"\nCONFIG_SEED={seed}")
    rng = random.Random(seed)
    for n in range(EXAMPLES // 3):
        repo, home, first = generated(rng, tmp_path / str(n), 4)
        monkeypatch.setenv("HOME", str(home))
        try:
            decided = read(str(first), Conditions(str(repo / ".git")))
            every = read(str(first))
        except Unreadable:
            continue
        assert set(decided.entries) <= set(every.entries), (seed, n)
        assert set(decided.files) <= set(every.files), (seed, n)
        named = {os.path.normpath(path) for _, path, _ in every.included}
        assert named == {os.path.normpath(f) for f in every.files} - {str(first)}, (seed, n)


def test_the_files_git_reads_for_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's files (XDG and ~/.gitconfig) and the repository's, with what they include
    (the repository's `../shared.gitconfig`, relative to `.git`), as `git config --list`."""
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (home / "xdg" / "git").mkdir(parents=True)
    (home / "xdg" / "git" / "config").write_text("[core]\n\tpager = less -R\n")
    (home / ".gitconfig").write_text("[include]\n\tpath = more.cfg\n[alias]\n\tst = status\n")
    (home / "more.cfg").write_text('[core]\n\teditor = "vi -e"\n')
    with open(repo / ".git" / "config", "a") as fh:
        fh.write("[include]\n\tpath = ../shared.gitconfig\n[core]\n\thooksPath = .husky\n")
    (repo / "shared.gitconfig").write_text("[alias]\n\tx = !./run.sh\n")
    status, listed = git_list(repo, home)
    assert status == 0
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    gitdir = str(repo / ".git")
    reading = None
    for path in scopes(gitdir, gitdir):
        reading = read(path, Conditions(gitdir), reading)
    assert reading is not None and normal(reading.entries) == listed
    assert str(repo / ".git" / "../shared.gitconfig") in reading.files


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("[a]\nk", [("a.k", None)]),
        ("k = v", [("k", "v")]),
        ('[A "B"]K=1', [("a.B.k", "1")]),
        ("[a]\nk = x \\\n y ; c", [("a.k", "x  y")]),
        ('[a]\nk = " x " y\t\tz', [("a.k", " x  y  z")]),
    ],
)
def test_the_examples_of_the_format(text: str, entries: list[tuple[str, str | None]]) -> None:
    assert [(e.key, e.value) for e in parse(text.encode(), "f")] == entries


@pytest.mark.parametrize("text", BROKEN)
def test_a_line_git_refuses_makes_the_file_unreadable(text: str) -> None:
    with pytest.raises(Unreadable):
        parse(f"[ok]\n\tk = 1\n{text}\n".encode(), "f")
