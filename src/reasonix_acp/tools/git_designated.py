"""The places a repository's configuration designates outside its `.git`, read as data
(checkpoints/git_config.py: git is never run): where git runs programs from, or what it reads
as its configuration, the next time the user runs git there (tools/git_guard.py protects them
with `.git` itself).

Rules, for a repository found by its `.git` (a directory, or a file naming its git directory):
- the git directory a `.git` file names (`gitdir: …`, relative to the file's directory: a
  submodule's, a linked worktree's, one not named `.git`), and the common directory its
  `commondir` file names (a linked worktree's), whether they exist yet or not: git reads
  configuration and hooks there;
- every file git reads as configuration (git_config.scopes: the system's, the user's, the
  repository's, the worktree's) and every file an include in them names, existing or not,
  every includeIf whatever its condition (a branch or a directory may change it): "git reads
  this as its configuration: include.path";
- `core.hooksPath` and `init.templateDir` (`~` expanded), directories: relative to the work
  tree's top (the `.git`'s directory, and `core.worktree`'s, relative to the git directory,
  where set), where git runs its hooks;
- the files a program key's value names (tools/git_programs.py), from the work tree's top
  where git runs it: a word with a `/`, and a directory a `cd` goes to, whether it exists or
  not; a command's name without one in every PATH directory (where the shell finds it); an
  argument without one where a file or directory of that name is at the top now (one that
  names none is an option or a subcommand: `log`, `-R`; the next judgement reads it again
  once one is made there);
- every value of a key counts, wherever it is set (git uses the last; any may become it);
- what cannot be read as git reads it (git_config.Unreadable: a file git would refuse, one
  this reader cannot open, a program value with words known only when it runs) designates
  places that cannot be known: `Designated.unknown` says why, and the caller fails closed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from reasonix_acp.tools.git_programs import COMMAND, DIRECTORY, program, words

MAX_GITFILE = 64 * 1024  # a `.git` file or `commondir` larger than this is not one


@dataclass(frozen=True)
class Place:
    """A file or directory (`tree`: and everything below it) git runs or reads, and why."""

    path: str  # absolute, as the configuration names it (not resolved through links)
    tree: bool
    why: str


@dataclass
class Designated:
    """A repository's places, the files they were read from (a path's stat signature, None
    when missing: git_config.signature), and why the places could not all be known."""

    places: list[Place] = field(default_factory=list)
    files: dict[str, tuple[int, int, int, int, int] | None] = field(default_factory=dict)
    unknown: str = ""


def designated(entry: str) -> Designated:
    """The places the repository whose `.git` is at `entry` designates."""
    # lazy: start-up (read when a workspace is first judged)
    from reasonix_acp.checkpoints.git_config import Unreadable

    out = Designated()
    try:
        _designated(entry, out)
    except Unreadable as exc:
        out.unknown = str(exc)
    return out


def _designated(entry: str, out: Designated) -> None:
    # lazy: start-up
    from reasonix_acp.checkpoints import git_config

    top = os.path.dirname(entry)
    gitdir = entry
    if not os.path.isdir(entry):
        named = _named(entry, out, "gitdir: ")
        if named is None:
            return  # not a `.git` file git reads: git stops here
        gitdir = os.path.join(top, named.rstrip("\r\n"))
        for path in {gitdir, os.path.join(top, named.strip())}:
            out.places.append(Place(path, True, "git keeps this repository here: a .git file"))
    common = _named(os.path.join(gitdir, "commondir"), out, "")
    commondir = gitdir if common is None else os.path.join(gitdir, common.removesuffix("\n"))
    if common is not None:
        for path in {commondir, os.path.join(gitdir, common.strip())}:
            out.places.append(Place(path, True, "git keeps this repository here: commondir"))
    reading = None
    for path in git_config.scopes(gitdir, commondir):
        reading = git_config.read(path, None, reading)
    assert reading is not None
    out.files.update(reading.files)
    for key, path, _ in reading.included:
        out.places.append(Place(path, False, f"git reads this as its configuration: {key}"))
    tops = [top]
    for _, key, value in reading.entries:
        if key == "core.worktree" and value:
            tops.append(os.path.join(gitdir, git_config.interpolate(value)))
    for origin, key, value in reading.entries:
        out.places += _places(key, value, tops, origin, out)


def _named(path: str, out: Designated, prefix: str) -> str | None:
    """What a `.git` file (`gitdir: …`) or a `commondir` file holds after its prefix, as read
    (git strips its line ends: the caller, as git does); None when there is no such file or it
    holds no path (git then reads none)."""
    # lazy: start-up
    from reasonix_acp.checkpoints.git_config import Unreadable, signature

    out.files[path] = signature(path)
    if out.files[path] is None:
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_GITFILE + 1)
    except OSError as exc:
        raise Unreadable(f"{path}: {exc.strerror or exc}") from None
    text = data.decode("utf-8", "surrogateescape")
    if len(data) > MAX_GITFILE or not text.startswith(prefix) or not text[len(prefix) :].strip():
        return None
    return text[len(prefix) :]


def _places(
    key: str, value: str | None, tops: list[str], origin: str, out: Designated
) -> list[Place]:
    """The places one key designates (Unreadable when its program cannot be read)."""
    # lazy: start-up
    from reasonix_acp.checkpoints.git_config import Unreadable, interpolate, signature

    if key in ("core.hookspath", "init.templatedir") and value:
        name = "core.hooksPath" if key == "core.hookspath" else "init.templateDir"
        why = f"git runs what is here: {name}"
        return [Place(os.path.join(t, interpolate(value)), True, why) for t in tops]
    run = program(key, value)
    if run is None:
        return []
    named = words(*run)
    if named is None:
        raise Unreadable(f"{origin}: {key} = {value!r} has words known only when it runs")
    why = f"git runs what is here: {key}"
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(d)]
    found = []
    for word, kind in named:
        tree = kind == DIRECTORY
        if "/" in word or (tree and not word.startswith("-")):
            found += [Place(os.path.join(t, word), tree, why) for t in tops]
        elif kind == COMMAND:
            found += [Place(os.path.join(d, word), False, why) for d in path]
        else:  # a file only where one is: a word that names none is an option, a subcommand
            for top in tops:
                there = os.path.join(top, word)
                out.files[there] = signature(there)
                if out.files[there] is not None:
                    found.append(Place(there, tree, why))
    return found
