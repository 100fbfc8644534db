"""The scrubber for output in pieces (src/reasonix_acp/scrubber.py), as properties over random
secrets, texts and chunkings, and a structural check that every place reading or passing on
output in pieces uses it.

Properties (hypothesis; SCRUB_EXAMPLES examples each, 200 unless set; the seed is printed and
SCRUB_SEED=N replays it):
- fed in any chunks, a stream comes out exactly as the whole text scrubbed at once (text and
  bytes, undecodable bytes and characters split across chunks included), with no secret in it;
- what it holds back is never more than the longest secret less one character, and never a
  finished line;
- a stream cut at its end gives a prefix of what the whole would have given, whatever follows;
  a text cut at its start (the editor's terminal) shows no part of a secret the cut went
  through; pieces delivered together come out as their whole scrubbed.

The secrets are remembered in a state of the test's own (`secrets`), the process's restored
after: other tests in the same worker see none of them.
"""

from __future__ import annotations

import ast
import contextlib
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from reasonix_acp import redact
from reasonix_acp.redact import MARK, scrub_known, scrub_known_bytes
from reasonix_acp.scrubber import ByteStreamScrubber, StreamScrubber, scrub_cut, scrub_pieces

EXAMPLES = int(os.environ.get("SCRUB_EXAMPLES", "200"))
SEED = int(os.environ.get("SCRUB_SEED", str(random.SystemRandom().randrange(1 << 32))))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


@contextlib.contextmanager
def secrets(*values: str) -> Iterator[None]:
    """`values` remembered, in a state of their own; the process's state back after."""
    saved = (set(redact._known), redact._known_pattern, redact._shape)
    redact._known.clear()
    redact._known_pattern, redact._shape = None, redact.Known(None, 0, redact._SPACES)
    try:
        redact.remember(*values)
        yield
    finally:
        redact._known.clear()
        redact._known.update(saved[0])
        redact._known_pattern, redact._shape = saved[1], saved[2]


# Secrets from few characters overlap each other and the text around them often; none holds
# the mark's characters, so no secret can appear out of a mark and the text beside it.
SECRET_CHARS = "xyz01-"
secret_st = st.text(SECRET_CHARS + " \n", min_size=redact.MIN_SECRET, max_size=14).filter(
    lambda s: s.strip() == s
)
secrets_st = st.lists(secret_st, min_size=1, max_size=4)


@st.composite
def stream(draw: st.DrawFn) -> tuple[list[str], str, list[str]]:
    """(secrets, a text of filler and whole and partial secrets, the text in chunks)."""
    found = draw(secrets_st)
    parts = draw(
        st.lists(
            st.one_of(
                st.text(SECRET_CHARS + " \n\tab", max_size=12),
                st.sampled_from(found),
                st.sampled_from(found).flatmap(lambda s: st.sampled_from([s[:-1], s[1:]])),
            ),
            max_size=12,
        )
    )
    text = "".join(parts)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return found, text, chunks


def feed_all(chunks: list[str]) -> tuple[str, list[str]]:
    """The stream's output, and what it held after each chunk."""
    scrubber = StreamScrubber()
    out, held = [], []
    for chunk in chunks:
        out.append(scrubber.feed(chunk))
        held.append(scrubber.held)
    return "".join(out) + scrubber.end(), held


@SETTINGS
@seed(SEED)
@given(stream())
def test_a_stream_in_any_chunks_is_the_whole_text_scrubbed(
    case: tuple[list[str], str, list[str]],
) -> None:
    found, text, chunks = case
    with secrets(*found):
        out, held = feed_all(chunks)
        assert out == scrub_known(text), f"SCRUB_SEED={SEED}"
        longest, breaks = redact._shape.longest, redact._shape.breaks
    assert not [s for s in found if s in out]
    for tail in held:
        assert len(tail) <= longest - 1
        assert not set(tail) & set(breaks), "a finished line was held back"


@st.composite
def byte_stream(draw: st.DrawFn) -> tuple[list[str], bytes, list[bytes]]:
    """Secrets with characters of two, three and four bytes, a text of them and of bytes that
    are not UTF-8, cut anywhere (in the middle of a character too)."""
    alphabet = "xé€😀-"
    found = draw(
        st.lists(
            st.text(alphabet, min_size=redact.MIN_SECRET, max_size=10),
            min_size=1,
            max_size=3,
        )
    )
    parts = draw(
        st.lists(
            st.one_of(
                st.text(alphabet + "\n ", max_size=8).map(str.encode),
                st.sampled_from(found).map(str.encode),
                st.binary(max_size=4),
            ),
            max_size=10,
        )
    )
    data = b"".join(parts)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    return found, data, chunks


@SETTINGS
@seed(SEED)
@given(byte_stream())
def test_bytes_in_any_chunks_are_the_whole_scrubbed_byte_for_byte(
    case: tuple[list[str], bytes, list[bytes]],
) -> None:
    found, data, chunks = case
    with secrets(*found):
        scrubber = ByteStreamScrubber()
        out = b"".join(scrubber.feed(c) for c in chunks) + scrubber.end()
        assert out == scrub_known_bytes(data), f"SCRUB_SEED={SEED}"


@SETTINGS
@seed(SEED)
@given(stream(), st.text(SECRET_CHARS + " \n", max_size=20))
def test_a_stream_cut_at_its_end_shows_only_what_no_continuation_changes(
    case: tuple[list[str], str, list[str]], rest: str
) -> None:
    found, text, chunks = case
    with secrets(*found):
        scrubber = StreamScrubber()
        out = "".join(scrubber.feed(c) for c in chunks) + scrubber.end(cut=True)
        assert scrub_known(text + rest).startswith(out), f"SCRUB_SEED={SEED}"


@st.composite
def one_secret_cut(draw: st.DrawFn) -> tuple[str, str, int]:
    """(a secret of distinct characters, a text of filler and whole copies of it, a cut)."""
    letters = draw(
        st.lists(st.sampled_from("ABCDEFGHIJKLMNOP"), min_size=6, max_size=16, unique=True)
    )
    secret = "".join(letters)
    if draw(st.booleans()):  # a space inside: then a space no longer ends what may be a secret
        at = draw(st.integers(1, len(secret) - 1))
        secret = secret[:at] + " " + secret[at:]
    parts = draw(st.lists(st.one_of(st.text("xyz \n", max_size=10), st.just(secret)), max_size=10))
    text = "".join(parts)
    return secret, text, draw(st.integers(0, len(text)))


@SETTINGS
@seed(SEED)
@given(one_secret_cut())
def test_a_cut_through_a_secret_shows_no_part_of_it(case: tuple[str, str, int]) -> None:
    """At the end (`end(cut=True)`) and at the start (`scrub_cut(head=True)`): none of the
    secret's characters is shown (the text around it holds none), and what is shown is the
    whole text's scrubbed form, cut."""
    secret, text, at = case
    before, after = text[:at], text[at:]
    with secrets(secret):
        whole = scrub_known(text)
        scrubber = StreamScrubber()
        head = scrubber.feed(before) + scrubber.end(cut=True)
        tail = scrub_cut(after, head=True)
    letters = set(secret) - {" "}
    assert not set(head) & letters and not set(tail) & letters, f"SCRUB_SEED={SEED}"
    assert whole.startswith(head) and whole.endswith(tail), f"SCRUB_SEED={SEED}"


@SETTINGS
@seed(SEED)
@given(stream())
def test_pieces_delivered_together_are_their_whole_scrubbed(
    case: tuple[list[str], str, list[str]],
) -> None:
    found, text, chunks = case
    with secrets(*found):
        out = scrub_pieces(chunks)
        assert len(out) == len(chunks)
        assert "".join(out) == scrub_known(text), f"SCRUB_SEED={SEED}"
    assert not [s for p in out for s in found if s in p]


def test_the_seed_is_printed() -> None:
    print(f"\nscrubber properties: SCRUB_SEED={SEED}, {EXAMPLES} examples")


def test_a_line_that_is_finished_is_never_held_back() -> None:
    """A running server's last line shows whole; an unfinished one waits, no longer than the
    longest secret less one character; nothing waits without a secret to keep."""
    with secrets("sk-0123456789abcdef"):
        scrubber = StreamScrubber()
        assert scrubber.feed("listening on :8080\n") == "listening on :8080\n"
        assert scrubber.feed("password: sk-0123") == "password: "
        assert scrubber.held == "sk-0123"
        assert scrubber.feed("456789abcdef ok\n") == "[redacted] ok\n"
        assert scrubber.feed("x" * 40) == "x" * 22 and len(scrubber.held) == 18
    with secrets():
        assert StreamScrubber().feed("no secret known: sk-0") == "no secret known: sk-0"


def test_a_terminal_cut_drops_only_the_edge_a_secret_could_end_in() -> None:
    with secrets("sk-0123456789abcdef"):
        assert scrub_cut("89abcdef\nnext line") == "89abcdef\nnext line"  # not cut: kept
        assert scrub_cut("89abcdef\nnext line", head=True) == "\nnext line"
        assert scrub_cut("x" * 30, head=True) == "x" * 12
        assert scrub_cut("key sk-0123456789abcdef", head=True) == " sk-0123456789abcdef".replace(
            "sk-0123456789abcdef", MARK
        )
        assert scrub_cut("done\nsk-012", tail=True) == "done\n"


# Where output is read or passed on in pieces: a sized read, a chunked iterator, the whole
# output of a process (cut after), progress shown as it comes, the editor's terminal output,
# a file read up to a limit.
PIECEWISE = {
    "read", "read1", "readline", "readexactly", "readuntil", "recv", "aiter_bytes",
    "aiter_text", "aiter_lines", "aiter_raw", "iter_bytes", "iter_lines", "communicate",
    "progress", "read_regular",
}  # fmt: skip
SCRUBBERS = {
    "StreamScrubber", "ByteStreamScrubber", "scrub_cut", "scrub_pieces", "scrub_known",
    "scrub_known_bytes",
}  # fmt: skip
# Wings whose reads carry no tool output: the client's frames and the user's typing (server,
# cli, protocol), the model's own stream (providers: its error bodies are scrubbed before they
# are cut, tests/test_secrets.py), files kept for a rewind and never shown (checkpoints), the
# configuration (config), generated code.
NOT_OUTPUT = {"server", "cli", "protocol", "providers", "checkpoints", "config", "generated"}
# Functions read and judged: what each reads, and where it is scrubbed ("module:function" of a
# function that must use a scrubber) or why it needs none.
REVIEWED = {
    "tools/background.py:_pump": "tools/background.py:Job",  # the job's, for its whole life
    "tools/background.py:take": "tools/background.py:Job",  # the log, written through it
    "tools/web_guard.py:_read": "tools/web_fetch.py:run",  # the page, scrubbed whole
    "tools/shell.py:_in_client": "the terminal card: no output",
    "turn/subagents.py:show": "a child's call titles, each scrubbed where it was made",
    "tools/git_designated.py:_named": "the path a `.git` or `commondir` file names: not shown",
    "safe_read.py:read_regular": "the reader itself: its callers are judged",
    "project/instructions.py:read_within": "the user's AGENTS.md, scrubbed in project/reading.py",
    "project/skill_tool.py:run": "a skill's own SKILL.md, the user's instructions",
    "session/history.py:_linked": "a file the user linked in the prompt, sent as given",
}
SOURCE = Path(__file__).resolve().parents[1] / "src" / "reasonix_acp"


def sized_read(call: ast.Call) -> bool:
    """`os.read(fd, n)`, or `.read(n)` of a size (a number, a CONSTANT, arithmetic): a
    stream read in parts, not a whole read nor a function that reads something else."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "os"
    ):
        return True
    if len(call.args) != 1 or call.keywords:
        return False
    (size,) = call.args
    return isinstance(size, ast.Constant | ast.BinOp) or (
        isinstance(size, ast.Name) and size.id.isupper()
    )


def pieced_functions(tree: ast.Module) -> dict[str, set[str]]:
    """Functions that read or pass on output in pieces → the scrubbers each names."""
    found: dict[str, set[str]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if isinstance(node.func, ast.Name) and node.func.id == "read_regular":
                called = "read_regular"
            if called in PIECEWISE and (called != "read" or sized_read(node)):
                found[fn.name] = names & SCRUBBERS
        if "TERMINAL_OUTPUT" in names:
            found[fn.name] = names & SCRUBBERS
    return found


def survey() -> dict[str, set[str]]:
    """ "module:function" → the scrubbers it names, for every pieced reader outside NOT_OUTPUT."""
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        rel = path.relative_to(SOURCE).as_posix()
        if rel.split("/")[0] in NOT_OUTPUT:
            continue
        for name, uses in pieced_functions(ast.parse(path.read_text(encoding="utf-8"))).items():
            found[f"{rel}:{name}"] = uses
    return found


def names_in(where: str) -> set[str]:
    """The names one function or class ("module:name") uses."""
    module, name = where.split(":")
    tree = ast.parse((SOURCE / module).read_text(encoding="utf-8"))
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    (fn,) = (n for n in ast.walk(tree) if isinstance(n, kinds) and n.name == name)
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    return names | {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}


def test_every_reader_of_output_in_pieces_uses_the_scrubber() -> None:
    found = survey()
    assert "tools/shell.py:_pump" in found and "tools/bridge.py:finish" in found  # it finds them
    unscrubbed = sorted(
        where for where, uses in found.items() if not uses and where not in REVIEWED
    )
    assert not unscrubbed, (
        f"{unscrubbed} read or pass on output in pieces without the scrubber (scrubber.py): "
        "scrub across the pieces, or say in REVIEWED why none is needed"
    )
    for where, by in REVIEWED.items():
        if re.fullmatch(r"[\w/]+\.py:\w+", by):
            assert names_in(by) & SCRUBBERS, f"{where} is scrubbed by {by}, it says: it is not"
    stale = sorted(set(REVIEWED) - set(found))
    assert not stale, f"REVIEWED names what reads no output in pieces any more: {stale}"


def test_the_survey_can_fail() -> None:
    """A sized read with no scrubber is found; one through the scrubber passes."""
    bare = "async def pump(s):\n    while chunk := await s.read(1024):\n        emit(chunk)\n"
    scrubbed = "async def pump(s, sc):\n    emit(sc.feed(await s.read(1024)))\n    x = ByteStreamScrubber\n"
    assert pieced_functions(ast.parse(bare)) == {"pump": set()}
    assert pieced_functions(ast.parse(scrubbed)) == {"pump": {"ByteStreamScrubber"}}
    assert pieced_functions(ast.parse("def whole(f):\n    return f.read()\n")) == {}
    assert pieced_functions(ast.parse("def other(c, p):\n    return c.read(p)\n")) == {}
    assert pieced_functions(ast.parse("def raw(fd):\n    return os.read(fd, 9)\n")) == {
        "raw": set()
    }


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_a_chunked_stream_of_a_real_size_matches(chunk: int) -> None:
    key = "sk-deepseek-stand-in-0123456789"
    text = ("x" * 1000 + key + "\n") * 20 + key
    with secrets(key):
        out, _ = feed_all([text[i : i + chunk] for i in range(0, len(text), chunk)])
        assert out == scrub_known(text) and key not in out and out.count(MARK) == 21
