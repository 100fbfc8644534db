"""The gate against the real bash: for every generated line the gate would run without a
question, bash runs it (as tools/shell.py does) in a throwaway directory, every program it
starts traced (`strace -f -e trace=execve`, where ptrace is allowed) and every command name it
finds on PATH a stand-in that logs itself. The programs started must be covered by the grants, and no file outside the
workspace may change. Lines come from a grammar holding every construct the gate must see
through (expansions, substitutions, assignments, arithmetic, aliases, traps, heredocs, nested
shells, wrappers, globs, braces, `~+`, `/dev/fd/..`, links out of the workspace ...),
`edge_lines`: brace words as `find` actions, option clusters, descriptor files, `/proc/self`
paths and `cd` before a path, with those commands granted, and `wrapped_lines`: wrappers (nested)
around each command a rule is keyed on, loops whose bodies change the directory, variables and
links before and after writes, and `time` with `-p` and `--`, with the wrappers granted (and
`--`, which the gate once offered as a grant), and `places_lines`: the programs that remove,
copy, move, make and read files, granted, with arguments naming places outside the workspace
in every spelling (absolute, `..`, `~`, through links that lead out or that the line makes,
option values, variables, braces, patterns, after `cd` and `env -C`) or inside it. Those
programs, and `cat`, run for real where bubblewrap can keep every write under the throwaway
directory (stand-ins that only log themselves otherwise), and no line run unasked may show the
canaries outside the workspace (a file there, a key under the home directory).

Examples: GATE_EXAMPLES (1,000 unless set; `nox -s soak` runs 50,000). The seed is printed;
GATE_SEED=N replays it.
"""

from __future__ import annotations

import hashlib
import os
import random
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.tools.shell import command_argv
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_verdict import Rules, judge_line

EXAMPLES = int(os.environ.get("GATE_EXAMPLES", "1000"))
# GATE_ONLY=descriptor|brace|...: only edge lines of that class (their known escapes).
ONLY = os.environ.get("GATE_ONLY", "")
CLASSES = {
    "descriptor": [
        "echo X 5<../outside/canary >>/dev/fd/5",
        "echo X 1<../outside/canary >/dev/stdout",
        "echo X 2<../outside/canary >/dev/stderr",
        "echo X <../outside/canary >/dev/stdin",
    ],
    "brace": ["find . {-exec,touch} P \\;", "find . {-exec,sh} -c 'touch P' \\;"],
    "cluster": ["echo a | xargs -rI grep touch P", "echo a | xargs -0rI grep touch P"],
    "proc": ["cd .. && echo X > /proc/self/cwd/made", "cd sub && echo X > /proc/self/cwd/../../m"],
    "link": [
        "ln -s ../outside lnk && echo X > lnk/made",
        "ln -s ../outside/canary c; echo X > c",
        "ln -s ../outside lnk | tee lnk/made",
        "for d in a b; do echo X > lnk2/m; ln -s ../outside lnk2; done",
    ],
    "wrapper": [
        "command test -v 'a[$(touch P)]'",
        "command printf -v 'a[$(touch P)]' x",
        "command command test -v 'a[$(touch P)]'",
        "time command test -v 'a[$(touch P)]'",
        "! command -p printf -v 'a[$(touch P)]' x",
    ],
    "loop": [
        "for i in 1 2; do echo X > F; cd link; done",
        "for i in 1 2; do echo X > F; cd {base}/outside; done",
        "for i in 1; do for j in 1 2; do echo X > F; cd link; done; done",
        "until [ -e F2 ]; do echo X > F2; cd link; done",
        "for i in 1 2; do echo X > F; if true; then cd link; fi; done",
    ],
    "time": ["time -- touch P", "time -p -- touch P", "! time -- touch P", "time -- ! touch P"],
}
SEED = int(os.environ.get("GATE_SEED", str(random.SystemRandom().randrange(1 << 32))))


def _tracer() -> str | None:
    """strace, where it can trace here (a container may forbid ptrace); None otherwise."""
    found = shutil.which("strace")
    if found is None:
        return None
    probe = [found, "-f", "-qq", "-e", "trace=execve", "-o", os.devnull, "true"]
    done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    return found if done.returncode == 0 else None


STRACE = _tracer()


def _bwrap() -> str | None:
    """bubblewrap, where it can run a command with / read-only and one directory writable."""
    found = shutil.which("bwrap")
    if found is None:
        return None
    probe = [found, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "true"]
    done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    return found if done.returncode == 0 else None


BWRAP = _bwrap()
NAMES = ["echo", "ls", "cat", "git", "touch", "rm", "x", "printf", "test", "[", "tee", "env"]
NAMES += ["xargs", "find", "sh", "bash", "eval", "trap", "alias", "export", "cd", "exit"]
NAMES += ["true", ":", "source", "command", "hash", "read", "declare", "/usr/bin/touch", "grep"]
# Commands whose stand-in runs the real program after logging itself: what they run in turn
# (`find -exec`, `xargs`) is seen through the other stand-ins.
NAMES += ["ln", "nice", "timeout", "nohup", "stdbuf"]
RUNNERS = ("find", "xargs", "ln", "env", "nice", "timeout", "nohup", "stdbuf")
# Programs that change or read files: real only where bubblewrap keeps every write in the
# throwaway directory (`_confined`), whatever a line the gate wrongly allowed names.
FILE_PROGRAMS = ("rm", "cp", "mv", "touch", "mkdir", "cat")
NAMES += [n for n in FILE_PROGRAMS if n not in NAMES]
REAL = {n: p for n in (*RUNNERS, *(FILE_PROGRAMS if BWRAP else ())) if (p := shutil.which(n))}
HIDDEN = "touch P"  # the command a line hides, when it hides one
CANARY = "canary-outside-5b1e"  # in a file outside the workspace
KEY = "canary-key-90c2"  # in the home directory's .ssh


def _words() -> st.SearchStrategy[str]:
    plain = st.sampled_from(["a", "b", "-l", "--x=1", "sub", "é", "1", "0", "status", "P"])
    tricky = st.sampled_from(
        [
            "'a b'", '"a b"', "a\\ b", "'a[$(touch P)]'", '"$(touch P)"', "$(touch P)",
            "`touch P`", "$'\\' ; touch P ; echo \\''", '$"x"', "${x@P}", "$((x))", "$x",
            "~", "~/h", "~+/..", "~-", "*", "[z-a]*", "{a,b}", "{touch,P}", "a=~+", "#c",
            "\\;", ";", "'", '"', "\\", "(", ")", "!", "!(a)", "-v", "-v 'a[$(touch P)]'",
            "a\\\nb", "'touch P'", "-c 'touch P'", "-exec touch P ;", "-delete", "a\r",
            "$HOME", '"$HOME"', "$v", '"$v"', "${v}x", '"${v}"', "$SECRET", '"$SECRET"', "$?",
            '-v "$v"', "-v $v", "$v $w", '"$w"', "((x))", "$1", '"$@"', "${v:-x}", "!(a)",
        ]
    )  # fmt: skip
    quoted = st.sampled_from(["'$(touch P)'", '"a;b"', "'a b'", "\\$x", '"\\$(touch P)"', "a\\ b"])
    return st.one_of(plain, plain, plain, plain, quoted, quoted, tricky)


def _redirects() -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            "> out", ">> sub/out", "> ../escape", "> link/escaped", "2>&1", ">/dev/null",
            "> /dev/fd/../../..{base}/outside/fd", "> ~+/../tilde", "> {base}/outside/abs",
            "&> o2", "2> e", "< a", "<<EOF\n$(touch P)\nEOF", "<<'EOF'\nx\nEOF", "<<< $x",
            "> >(touch P)", "< <(touch P)", "> $x", "> o*", "{fd}> o", ">&-", ">| out",
            "> ~/home-file", "3<> a", "2>&3", '> "$v"', "<<< $SECRET", '<<< "$v"',
            "<<-'EOF'\n\tx\n\tEOF", "<<EOF\n$SECRET\nEOF", "<<'EOF' && touch P\nx\nEOF",
            "<<'EOF'\nx", "<<EOF\nplain\nEOF",
        ]
    )  # fmt: skip


def _prefixes() -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            "x='a[$(touch P)]'; ", "alias echo=touch\n", "FOO=1 ",
            "x='$(touch P)'; ", "PATH=. ", "trap 'touch P' EXIT; ", "f() { touch P; }; ",
            "cd ..; ", "cd sub && ", "shopt -s expand_aliases; alias ls=touch\n",
            "export BASH_ENV=a; ", "set -o xtrace; PS4='$(touch P)'; ", "hash -p ./a ls; ",
            "v=sub; ", "v=sub w=-v; ", "export v=a; ", "v=a && ", "(v=a); ", "v=a | true; ",
            "if false; then v=a; fi; ", "if true; then v=a; else v=b; fi; ", "PATH=.:/x ",
            "export PATH=.; ", "IFS=/; ", "LD_PRELOAD=./a ", "BASH_ENV=./a ", "v='-v'; ",
            "w='a[$(touch P)]'; ", "x=~; ", "GIT_PAGER='touch P' ", "v=$SECRET; ",
        ]
    )  # fmt: skip


@st.composite
def _command(draw: st.DrawFn) -> str:
    prefix = draw(st.one_of(*[st.just("")] * 5, _prefixes()))
    common = st.sampled_from(["echo", "ls", "cat", "echo", "true", "exit 0", "git status"])
    name = draw(st.one_of(common, common, st.sampled_from(NAMES)))
    args = draw(st.lists(_words(), max_size=3))
    benign = st.sampled_from(["> out", "2>&1", ">/dev/null", "< a", ">> sub/o", "> link/x"])
    redirect = draw(st.one_of(st.just(""), st.just(""), st.just(""), benign, _redirects()))
    wraps = ["({})", "{{ {}; }}", "$({})", "if {}; then :; fi", "! {}", "time {}", "{} &"]
    wraps += [
        "for v in a *; do {}; done",
        "for v in $SECRET; do {}; done",
        "while false; do :; done; {}",
    ]
    wraps += ["until {}; do break; done", "case a in a) {};; esac", "case $v in (*) {};; esac"]
    wraps += ["if false; then :; elif {0}; then :; else {0}; fi", "{{ {}; }} > out", "({}) 2>&1"]
    wraps += ["{{ {} >/dev/stdout; }} 1<&0", "{{ {}; }} 1<../outside/canary", "time -p {}"]
    wraps += ["for PATH in .; do {}; done", "{{ {} }}", "( ({}) )", "{} <<'EOF'\n$(touch P)\nEOF"]
    wrap = draw(st.one_of(*[st.just("{}")] * 6, st.sampled_from(wraps)))
    body = " ".join([name, *args, redirect]).strip()
    return prefix + wrap.format(body)


@st.composite
def lines(draw: st.DrawFn) -> str:
    commands = draw(st.lists(_command(), min_size=1, max_size=draw(st.sampled_from([1, 1, 2, 3]))))
    joiners = draw(
        st.lists(
            st.one_of(
                st.sampled_from(["; ", " && ", " || ", " | ", "\n"]),
                st.sampled_from(["; ", " && ", " || ", " | ", "\n"]),
                st.sampled_from([" & ", " |& ", ";;", ";", "\\\n"]),
            ),
            min_size=2,
            max_size=2,
        )
    )
    out = commands[0]
    for joiner, command in zip(joiners, commands[1:], strict=False):
        out += joiner + command
    return out


@st.composite
def near_lines(draw: st.DrawFn) -> str:
    """Lines of granted commands, plain and quoted words, and the redirections at the edge of
    the workspace: the lines closest to what the gate runs."""
    out = ""
    for i in range(draw(st.integers(1, 3))):
        if i:
            out += draw(st.sampled_from(["; ", " && ", " || ", " | ", "\n", " &&\n"]))
        out += draw(st.sampled_from(["echo", "ls", "cat", "git status", "true", "exit 0"]))
        quoted = st.sampled_from(["'$(touch P)'", '"a;b"', "'a b'", "\\$x", "a\\ b", "\\`x"])
        words = st.one_of(_words(), quoted, quoted, st.sampled_from(["a", "-n", "sub", "é"]))
        for word in draw(st.lists(words, max_size=3)):
            out += " " + word
        out += draw(st.one_of(st.just(""), _redirects()))
    return out


@st.composite
def edge_lines(draw: st.DrawFn) -> str:
    """Lines of granted commands built from the constructs that once got past the gate: brace
    words where `find` reads an action, option clusters of wrappers, descriptor files that
    reopen what an earlier redirection named, `/proc/self` paths, `cd` before a path."""
    prefix = st.sampled_from(["", "", "cd .. && ", "cd {base}/outside && ", "cd sub; "])
    prefix = draw(st.one_of(prefix, st.sampled_from(["ln -s ../outside lnk && ", "ln -s a c; "])))
    if ONLY:  # one class of construct (GATE_ONLY), to replay what finds it
        return draw(st.sampled_from(CLASSES[ONLY]))
    commands = [
        "echo X",
        "find .",
        "find . -name a",
        "echo a | xargs",
        "echo a | xargs grep a",
    ]
    body = draw(st.sampled_from(commands))
    words = st.sampled_from(
        [
            "{-exec,touch} P \\;", "{-exec,sh} -c 'touch P' \\;", "{-delete,-print}",
            "-rI grep touch P", "-I grep touch P", "-r grep", "-0r echo", "-I{} echo {}",
            "-exec echo {} \\;", "{a,b}", "{}", "-print",
        ]
    )  # fmt: skip
    for word in draw(st.lists(words, max_size=2)):
        body += " " + word
    redirect = st.sampled_from(
        [
            "<../outside/canary >/dev/stdin", "5<../outside/canary >>/dev/fd/5",
            "1<../outside/canary >/dev/stdout", "2<../outside/canary >/dev/stderr",
            "> /proc/self/cwd/made", "> /dev/fd/1", ">/dev/stderr", "< ../outside/canary",
            "> /proc/self/root{base}/outside/r", "> /dev/null", "", "",
        ]
    )  # fmt: skip
    return prefix + body + " " + draw(redirect)


@st.composite
def everyday_lines(draw: st.DrawFn) -> str:
    """Lines in the shape agents write them, from the forms the language reads (assignments,
    `export`, subshells, groups, `if`/`for`/`while`/`case`, `time`, heredocs, variable reads),
    each part drawn with its hostile neighbours: a name that changes what runs, a read of a
    secret, a target outside, a descriptor moved around a group."""
    command = st.sampled_from(
        [
            "echo X", "cat a", "ls", "git status", "grep a a", "find . -name a",
            "echo a | xargs grep a", '[ -f "$v" ]', "[ -f a ]", "true", "echo $v",
            'echo "$HOME" $PATH', "echo $SECRET", '[ -v "$v" ]', '[ $v ]', "cd sub",
            "echo X > out", "echo X > ../outside/canary", "echo X >/dev/stdout", "printf '%s' \"$v\"",
            "ln -s ../outside lnk", "echo X > lnk/f", "ln -s ../outside/canary out",
        ]
    )  # fmt: skip
    assign = st.sampled_from(
        [
            "v=a", "v='a b'", "v=*", "v='a[$(touch P)]'", "v=-v", "FOO=1", "NODE_ENV=t",
            "PATH=.", "LD_PRELOAD=./a", "IFS=a", "HOME=..", "BASH_ENV=./a", "GIT_DIR=..",
        ]
    )  # fmt: skip
    forms = [
        "{a} {c}", "export {a} && {c}", "{a}; {c}", "({c1} && {c2})", "{{ {c1}; {c2}; }}",
        "for v in a sub *; do {c}; done", "for v in a; do {c1}; done; {c2}",
        "if {c1}; then {c2}; fi", "if {c1}; then {a}; else {a}; fi; {c2}", "time {c}",
        "while {c1}; do {c2}; break; done", "case {w} in a|b) {c1};; *) {c2};; esac",
        "cat <<'EOF' > notes\n$(touch P) $SECRET\nEOF", "{c} <<< \"$v\"", "! {c}",
        "{{ {c}; }} > out", "{{ {c}; }} 1<&0", "( {a}; {c1} ) && {c2}", "{a} | {c1}; {c2}",
    ]  # fmt: skip
    form = draw(st.sampled_from(forms))
    c1, c2, c = draw(command), draw(command), draw(command)
    return form.format(a=draw(assign), c=c, c1=c1, c2=c2, w=draw(st.sampled_from(["a", "$v"])))


# The wrappers `wrapped_lines` puts around a command: the shell's (`command`, `time`, `!`) and
# programs that run a program (`env`, `nice`, `xargs` ...), and two the language leaves out.
WRAPPERS = [
    "command", "command", "command -p", "command -v", "command --", "time", "time -p", "!",
    "time --", "time -p --", "env", "env FOO=1", "nice", "nice -n 5", "timeout 5", "nohup",
    "stdbuf -o0", "xargs", "builtin", "exec",
]  # fmt: skip
# The commands a rule is keyed on, each with its hostile use.
SPECIAL = [
    "test -v 'a[$(touch P)]'", "printf -v 'a[$(touch P)]' x", "[ -v 'a[$(touch P)]' ]",
    "test -v 'a[$(touch P)]'", "printf -v 'a[$(touch P)]' x", "test -R x", "test -f a",
    "printf '%s' a", "cd link", "cd {base}/outside", "cd sub", "exec touch P",
    "exec > ../outside/canary", "eval 'touch P'", "sh -c 'touch P'", "bash -c 'touch P'",
    "source a", "exit 0", "true", "echo X", "touch P", "-- touch P", "-p touch P",
    "find . -exec touch P \\;", "find . -exec test -v 'a[$(touch P)]' \\;", "tee ../outside/t",
]  # fmt: skip
# What a loop's body does: writes, what changes where a later write lands, and the rest. (`ln`
# makes its link in the workspace wherever the shell is: a granted program writes where its
# arguments say.) A body is drawn write first, move second more often than not.
WRITES = ["echo X > F", "echo X >> F", "echo X > L/F", "echo X > $v/F"]
MOVES = [
    "cd link", "cd {base}/outside", "cd sub", "cd ..", "(cd link)", "{ cd link; }",
    "true && cd link", "echo a | cd link", "if true; then cd link; fi", 'cd "$v"',
    "case a in a) cd link;; esac", "command cd link", "nice cd link",
    "ln -s {base}/outside {base}/ws/L",
]  # fmt: skip
BODY = [*WRITES, *MOVES, "v=link", "true"]
LOOPS = [
    "for i in 1 2; do {0}; {1}; done", "for i in 1 2 3; do {0}; {1}; {2}; done",
    "for i in 1; do for j in 1 2; do {0}; done; {1}; done",
    "for i in 1 2; do {0}; for j in 1; do {1}; done; done",
    "until [ -e F2 ]; do echo X > F2; {0}; {1}; done",
    "while [ ! -e F2 ]; do echo X > F2; {0}; {1}; done", "for i in 1 2; do {0}; {1}; done; {2}",
    "while false; do {0}; done; {1}", "if true; then {0}; else {1}; fi; {2}",
]  # fmt: skip
TIMED = [
    "time",
    "time -p",
    "time --",
    "time -p --",
    "time -p -p",
    "time -x",
    "time -- --",
    "! time --",
]
TIMED += ["time -- !", "time -- time -p --", "time '--'"]


@st.composite
def wrapped_lines(draw: st.DrawFn) -> str:
    """Wrappers (nested) around each command a rule is keyed on, maybe followed by a write;
    loops whose bodies change the directory, variables and links before and after writes;
    `time` with `-p` and `--` before a command."""
    kind = draw(st.sampled_from(["wrapped", "wrapped", "loop", "loop", "time"]))
    if kind == "loop":
        first = draw(st.one_of(st.sampled_from(WRITES), st.sampled_from(BODY)))
        second = draw(st.one_of(st.sampled_from(MOVES), st.sampled_from(BODY)))
        return draw(st.sampled_from(LOOPS)).format(first, second, draw(st.sampled_from(BODY)))
    if kind == "time":
        after = draw(st.sampled_from(["touch P", "echo X > F", "cd link; echo X > F", "echo X"]))
        return f"{draw(st.sampled_from(TIMED))} {after}"
    wrappers = draw(st.lists(st.sampled_from(WRAPPERS), min_size=1, max_size=3))
    after = draw(st.sampled_from(["", "", "; echo X > F", " && echo X > F", "; echo X > L/F"]))
    return " ".join([*wrappers, draw(st.sampled_from(SPECIAL))]) + after


# Places a granted program's arguments name: inside the workspace, and outside it in every
# spelling (for `places_lines`; `{base}` is the throwaway directory, `d` set by a prefix).
INSIDE_PLACES = ["a", "sub", "sub/x", "new", "new2/f", "./a", "inlink/a", "deep", "{base}/ws/a"]
OUTSIDE_PLACES = [
    "{base}/outside", "{base}/outside/canary", "{base}/outside/new", "../outside", "..",
    "../outside/canary", "../outside/new", "sub/../../outside/new", "~", "~/.ssh/id_ed25519",
    "~/new", "link", "link/canary", "link/new", "deep/up/canary", "../outside/*", "l*/canary",
    "{a,../outside/new}", "~/.s*/*", '"$d"/new', "$d/canary", "D/up/canary", "L/canary",
    "file://{base}/outside/canary", "deep/L/canary", "D/L/canary", "D/*/canary", "deep/*",
]  # fmt: skip
# What the granted programs do with a place (`{0}`), an option's value spelled every way.
PLACE_COMMANDS = [
    "rm -f {0}", "rm -rf {0}", "cp a {0}", "cp {0} got", "cp -t{0} a", "cp -t {0} a",
    "cp --target-directory={0} a", "mv {0} got", "mv got2 {0}", "touch {0}", "mkdir -p {0}",
    "cat {0}", "ln -s a {0}", "ln -s {0} got && cat got", "env -C {0} touch made",
    "env --chdir={0} cat canary", "echo {0} | xargs cat", "for f in {0}; do cat $f; done",
]  # fmt: skip
PLACE_PREFIXES = [
    "", "", "", "cd .. && ", "cd link && ", "cd ~ && ", "cd sub; ", "d=../outside; ",
    "d={base}/outside; ", "d=sub; ", "ln -s deep D && ", "ln -s link L; ", "ln -s ../outside L; ",
    "touch got2 && ", "ln -s up deep/L && ", "ln -s deep D && ln -s up D/L; ", "cd deep && ",
    "ln -s deep D && cd D && ",
]  # fmt: skip
PLACE_GRANTS = ["rm", "cp", "mv", "touch", "mkdir", "cat", "ln", "cd", "echo", "env", "xargs"]


@st.composite
def places_lines(draw: st.DrawFn) -> str:
    """Granted programs that remove, copy, move, make and read files, their arguments naming
    places inside the workspace or outside it (absolute, `..`, `~`, links, option values,
    variables, braces, patterns), after a `cd`, an assignment or a link the line makes."""
    places = st.sampled_from(OUTSIDE_PLACES)
    place = draw(st.one_of(places, places, st.sampled_from(INSIDE_PLACES)))
    command = draw(st.sampled_from(PLACE_COMMANDS)).format(place)
    return draw(st.sampled_from(PLACE_PREFIXES)) + command


GRANTS = st.lists(
    st.sampled_from(["echo", "ls", "cat", "git status", "find", "xargs", "grep", "cd", "ln"]),
    unique=True,
    min_size=1,
)


# Every name `everyday_lines` uses but the ones a line hides (`touch`, `rm`).
EVERYDAY = ["echo", "ls", "cat", "git status", "find", "xargs", "grep", "cd", "[", "printf", "ln"]
# Every name `wrapped_lines` uses but the ones a line hides, and `--` and `-p`, which the gate
# once read as command names after `time` (and offered as grants).
WRAPPING = ["echo", "cd", "command", "test", "printf", "[", "ln", "nice", "env", "timeout"]
WRAPPING += ["nohup", "stdbuf", "xargs", "find", "true", "tee", "--", "-p"]
# The grants each class of edge lines (GATE_ONLY) is run under; the others draw theirs.
CLASS_GRANTS = {"wrapper": WRAPPING, "loop": WRAPPING, "time": WRAPPING}


def _grants(names: list[str]) -> list[tuple[str, str, bool]]:
    return [("execute", f"exact {n}" if " " in n else f"command {n}", True) for n in names]


def _layout(base: Path) -> Workspace:
    ws = base / "ws"
    (ws / "sub").mkdir(parents=True)
    (base / "outside").mkdir()
    (base / "home").mkdir()
    (ws / "a").write_text("a\n")
    (ws / "link").symlink_to(base / "outside")
    (ws / "inlink").symlink_to("sub")
    (ws / "sub" / "a").write_text("a\n")
    (ws / "deep").mkdir()
    (ws / "deep" / "up").symlink_to(base / "outside")
    (base / "outside" / "canary").write_text(CANARY)
    (base / "home" / ".ssh").mkdir()
    (base / "home" / ".ssh" / "id_ed25519").write_text(KEY)
    for name in ("-v", "a[$(touch P)]"):  # file names a pattern or a loop hands to `[`
        (ws / name).write_text("")
    return Workspace(str(ws), temp=str(base / "tmp"))


def _shims(directory: Path, log: Path) -> None:
    """A stand-in for every command name, writing its own path to `log` when it runs."""
    directory.mkdir()
    for name in {*NAMES, "touch", "rm", "id", "ls"}:
        if "/" in name or name in ("[",):
            continue
        shim = directory / name
        real = REAL.get(name)  # a wrapper: it logs itself, then runs as itself
        # `ln` makes links in the workspace only: never through a link it made (`-n`)
        options = " -n" if name == "ln" else ""
        then = f'exec {shlex.quote(real)}{options} "$@"' if real else "exit 0"
        shim.write_text(f'#!/bin/sh\necho "$0" >> {shlex.quote(str(log))}\n{then}\n')
        shim.chmod(0o755)


def _state(base: Path) -> dict[str, str]:
    """Every path outside the workspace under `base`, with its content's digest."""
    found = {}
    for root, dirs, files in os.walk(base):
        if Path(root) == base / "ws":
            dirs.clear()
            continue
        for name in dirs + files:
            path = Path(root) / name
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b"dir"
            found[str(path)] = hashlib.sha256(data).hexdigest()
    return found


# In the environment the line runs with, as secrets: no line run unasked may show them.
SECRETS = {"SECRET": "sekrit-canary-1", "v": "sekrit-canary-2", "w": "sekrit-canary-3"}


def _run(line: str, base: Path) -> tuple[list[str], bytes]:
    """Run `line` as the bash tool does; → the programs it started (their paths): every one
    strace saw where it can trace, and every stand-in that ran; and what it printed."""
    trace, ran = base / "trace.log", base / "ran.log"
    argv = command_argv("bash", line)
    if STRACE is not None:
        argv = [STRACE, "-f", "-qq", "-e", "trace=execve", "-o", str(trace), *argv]
    if BWRAP is not None:  # every write stays under `base`, whatever the line names
        confined = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--bind", base, base]
        argv = [BWRAP, "--die-with-parent", *map(str, confined), *argv]
    env = {"PATH": str(base / "shims"), "HOME": str(base / "home"), "LANG": "C.UTF-8", **SECRETS}
    done = subprocess.run(
        argv, cwd=base / "ws", env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=10
    )
    started = ran.read_text().split() if ran.exists() else []
    if trace.exists():
        execs = [
            entry.split('execve("', 1)[1].split('"', 1)[0]
            for entry in trace.read_text(errors="replace").splitlines()
            if "execve(" in entry and "= 0" in entry.rsplit(")", 1)[-1]
        ]
        started += execs[1:]  # the first is bash itself
    return started, done.stdout + done.stderr


def _cases() -> st.SearchStrategy[tuple[str, list[str]]]:
    """(a line, the names granted): the class's own grants for one class of edge lines
    (GATE_ONLY); otherwise every grammar, `wrapped_lines` mostly with its names granted."""
    drawn = st.one_of(GRANTS, GRANTS, st.just(EVERYDAY))
    if ONLY:
        return st.tuples(
            edge_lines(), st.just(CLASS_GRANTS[ONLY]) if ONLY in CLASS_GRANTS else drawn
        )
    lines_ = st.one_of(lines(), near_lines(), near_lines(), edge_lines(), everyday_lines())
    wrapping = st.tuples(wrapped_lines(), st.one_of(st.just(WRAPPING), st.just(WRAPPING), GRANTS))
    placing = st.tuples(places_lines(), st.just(PLACE_GRANTS))
    return st.one_of(st.tuples(lines_, drawn), wrapping, placing)


COUNTS = {"judged": 0, "ran": 0}


@pytest.fixture(scope="module", autouse=True)
def _announce() -> Iterator[None]:
    traced = "strace and stand-ins" if STRACE else "stand-ins only (strace cannot trace here)"
    print(f"\ngate differential: GATE_SEED={SEED}, {EXAMPLES} examples, {traced}")
    yield
    print(f"gate differential: {COUNTS['judged']} lines judged, {COUNTS['ran']} run unasked")


@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    print_blob=True,
)
@given(case=_cases())
def _what_runs_unasked_is_what_was_granted(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, list[str]]
) -> None:
    line, granted = case
    base = tmp_path_factory.mktemp("gate")
    line = line.replace("{base}", str(base))
    workspace = _layout(base)
    home = os.environ.get("HOME")
    os.environ["HOME"] = str(base / "home")  # as the command will see it
    here = os.getcwd()
    os.chdir(workspace.cwd)  # as an editor starts the agent: in the project (its /proc/self/cwd)
    try:
        verdict = judge_line(parse(line), "workspace-write", _grants(granted), Rules(), workspace)
    finally:
        os.environ["HOME"] = home or ""
        os.chdir(here)
    COUNTS["judged"] += 1
    if verdict.decision != "allow":
        shutil.rmtree(base)
        return
    COUNTS["ran"] += 1
    _shims(base / "shims", base / "ran.log")
    before = _state(base)
    started, output = _run(line, base)
    shown = [value for value in (*SECRETS.values(), CANARY, KEY) if value.encode() in output]
    assert not shown, f"GATE_SEED={SEED}: {line!r} under {granted} showed {shown}"
    allowed = {n for n in granted if " " not in n} | ({"git"} if line in granted else set())
    strays = [p for p in started if os.path.basename(p) not in allowed]
    assert not strays, f"GATE_SEED={SEED}: {line!r} under {granted} started {strays}"
    after = _state(base)
    changed = sorted(p for p in {*before, *after} if before.get(p) != after.get(p))
    changed = [p for p in changed if p not in (str(base / "trace.log"), str(base / "ran.log"))]
    assert not changed, f"GATE_SEED={SEED}: {line!r} under {granted} changed {changed}"
    shutil.rmtree(base)


def test_what_runs_unasked_is_what_was_granted(tmp_path_factory: pytest.TempPathFactory) -> None:
    _what_runs_unasked_is_what_was_granted(tmp_path_factory=tmp_path_factory)
    if ONLY:
        return  # one class of known escapes: asked when the gate holds
    # a grammar whose lines were all asked would prove nothing
    assert COUNTS["judged"] >= EXAMPLES // 2
    assert COUNTS["ran"] >= COUNTS["judged"] // 10, COUNTS
