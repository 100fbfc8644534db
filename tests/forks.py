"""Real `acp` processes without the cost of starting Python: forked from a process that has
imported the agent once.

An `acp` a test starts spends most of its CPU importing (about 0.3 CPU-s each, a thousand of
them in a run), not running. Each pytest worker starts one *forker* (`python tests/forks.py`):
it imports everything an `acp` imports on its way to a prompt, a tool and an MCP server, then
forks a child for each request. The child takes the requester's three pipe ends as its 0, 1
and 2, the requester's environment, working directory and arguments, and runs `acp`'s own
`main()` exactly as the console script does: real pipes, its own process and pid, its own store
connections, signals delivered to it, its exit status reported to the test (`Forked`, a small
`subprocess.Popen`).

What differs from an exec, and where it matters a test asks for a fresh process
(`@pytest.mark.exec_acp`): the modules are imported before the environment is the test's (the
statements at module level that read it run again in the child; an interpreter variable,
PYTHONPATH and the like, gets an exec); nothing is imported lazily (what tests import budgets
or the loading ahead must exec); the parent is the forker (a test of what happens when the
parent goes must exec). The child is
killed when its requester goes (its end of the socket closes), so none outlives its test run.

The forker is started with the first forked agent of a worker and ends with it (its stdin
closes). `ACP_FORK=0` runs every agent as an exec.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

HEADER = struct.Struct("!I")
# Imported by the forker beyond `reasonix_acp`'s own modules: what an agent loads for an MCP
# server, the models the generated package loads on demand, and the official SDK the example
# agents the conformance calibration judges are written on (a script forked: `command`).
EXTRA = ("mcp", "mcp.client.stdio", "mcp.client.session", "httpx", "pydantic")
EXTRA_SCRIPTS = ("acp", "acp.interfaces", "acp.schema")
SKIP = ("reasonix_acp.__main__",)
ACP = Path(sys.executable).with_name("acp")  # the console script a fork stands in for
STARTED = dict(os.environ)  # the forker's environment as the interpreter read it
TAKEN_AGAIN = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")


# --- the test's side ----------------------------------------------------------------------


class Forked:
    """The part of `subprocess.Popen` tests use, for an `acp` forked by the forker."""

    def __init__(self, conn: socket.socket, pid: int, pipes: tuple[int, int, int]) -> None:
        self._conn = conn  # open while the process may run: the child dies when it closes
        self.pid = pid
        self.args = ["acp (forked)"]
        self.returncode: int | None = None
        self.stdin: IO[bytes] = open(pipes[0], "wb")  # noqa: SIM115 - closed by its user
        self.stdout: IO[bytes] = open(pipes[1], "rb")  # noqa: SIM115
        self.stderr: IO[bytes] = open(pipes[2], "rb")  # noqa: SIM115
        self._lock = threading.Lock()
        self._buffer = b""

    def _reap(self, timeout: float | None) -> int | None:
        with self._lock:
            if self.returncode is not None:
                return self.returncode
            ready = selectors.DefaultSelector()
            ready.register(self._conn, selectors.EVENT_READ)
            try:
                while b"\n" not in self._buffer:
                    if not ready.select(timeout):
                        return None
                    data = self._conn.recv(64)
                    if not data:
                        raise RuntimeError("the forker went away before the agent's exit")
                    self._buffer += data
            finally:
                ready.close()
            status = int(self._buffer.split(b"\n", 1)[0])
            self.returncode = os.waitstatus_to_exitcode(status)
            self._conn.close()
            return self.returncode

    def poll(self) -> int | None:
        return self._reap(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._reap(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._conn.close()


class Forker:
    """One worker's forker process, started on first use."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._path = ""
        self._lock = threading.Lock()

    def _start(self) -> str:
        if self._proc is None or self._proc.poll() is not None:
            place = tempfile.mkdtemp(prefix="acp-forker-")
            self._path = os.path.join(place, "socket")
            self._proc = subprocess.Popen(
                [sys.executable, __file__, self._path],
                stdin=subprocess.PIPE,  # closed when this process goes: the forker ends
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
            assert self._proc.stdout is not None
            ready = self._proc.stdout.readline()
            if ready != b"ready\n":
                raise RuntimeError(f"the forker did not start: {ready!r}")
        return self._path

    def spawn(self, args: list[str], env: dict[str, str], cwd: str | None) -> Forked | None:
        """The agent, forked; None where its environment needs an exec (`_fits`)."""
        with self._lock:
            path = self._start()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        stdin, stdout, stderr = os.pipe(), os.pipe(), os.pipe()
        ours = [stdin[1], stdout[0], stderr[0]]  # (read, write) each
        theirs = [stdin[0], stdout[1], stderr[1]]
        for fd in ours:
            os.set_inheritable(fd, False)
        request = json.dumps({"argv": args, "env": env, "cwd": cwd or os.getcwd()}).encode()
        try:
            socket.send_fds(conn, [b"!"], theirs)
            conn.sendall(HEADER.pack(len(request)) + request)
        finally:
            for fd in theirs:
                os.close(fd)
        line = b""
        while not line.endswith(b"\n"):
            data = conn.recv(1)
            if not data:
                raise RuntimeError("the forker could not start the agent")
            line += data
        if line == b"exec\n":
            conn.close()
            for fd in ours:
                os.close(fd)
            return None
        return Forked(conn, int(line), (ours[0], ours[1], ours[2]))  # stdin, stdout, stderr

    def command(self, script: Path | None = None) -> list[str]:
        """A command line that starts a forked `acp` (tests/fork_client.py), or a forked
        `python SCRIPT`: the script run as its `__main__` in the child."""
        with self._lock:
            path = self._start()
        client = str(Path(__file__).with_name("fork_client.py"))
        return [sys.executable, "-I", "-S", client, path, str(script or ACP)]


FORKER = Forker()


# --- the forker's side --------------------------------------------------------------------


def _import_all() -> None:
    import reasonix_acp

    for info in pkgutil.walk_packages(reasonix_acp.__path__, "reasonix_acp."):
        if info.name not in SKIP:
            importlib.import_module(info.name)
    for name in EXTRA:
        importlib.import_module(name)
    for name in EXTRA_SCRIPTS:
        with contextlib.suppress(ImportError):  # not installed: its scripts take longer
            importlib.import_module(name)


Read = tuple[str, ast.Module]


def _reads_environment(node: ast.stmt) -> bool:
    if not isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return False  # a def or a class reads it when called, in the child
    return any(
        (isinstance(n, ast.Attribute) and n.attr in ("environ", "environb", "getenv"))
        or (isinstance(n, ast.Name) and n.id in ("environ", "getenv"))
        for n in ast.walk(node)
    )


def environment_reads() -> list[Read]:
    """The assignments at the top of `reasonix_acp`'s modules that read the environment (a
    module-level `DEBUG = os.environ.get(...)`): run at import, in the forker, so the child
    runs them again once the environment is the test's (`read_again`)."""
    import reasonix_acp

    root = Path(reasonix_acp.__file__).parent
    reads = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "environ" not in text and "getenv" not in text:
            continue  # parsing every module cost the forker 0.4 CPU-s
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.parse(text).body:
            if _reads_environment(node):
                reads.append((module, ast.Module(body=[node], type_ignores=[])))
    return reads


def read_again(reads: list[Read]) -> None:
    """Run each statement again in its module, with the environment as it is now."""
    for module, code in reads:
        if module in sys.modules:
            exec(compile(code, module, "exec"), vars(sys.modules[module]))


def _read_request(conn: socket.socket) -> tuple[list[int], dict[str, Any]]:
    _, fds, _, _ = socket.recv_fds(conn, 1, 3)
    data = b""
    while len(data) < HEADER.size or len(data) < HEADER.size + HEADER.unpack_from(data)[0]:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError("the request was cut off")
        data += chunk
    return fds, json.loads(data[HEADER.size :])


def _fits(env: dict[str, str]) -> bool:
    """Whether an agent with this environment can be forked: the interpreter reads its own
    variables (PYTHONPATH, PYTHONWARNINGS, ...) when it starts, which a fork does not do again,
    so an environment that changes one of them gets an exec. Two are taken again in the child
    instead (`_become`): whether to write bytecode, and whether output is buffered."""
    names = {n for n in (*env, *STARTED) if n.startswith("PYTHON") and n not in TAKEN_AGAIN}
    return all(env.get(name, "") == STARTED.get(name, "") for name in names)


def _become(
    conn: socket.socket, fds: list[int], request: dict[str, Any], reads: list[Read]
) -> None:
    """In the child: the requester's pipes, environment, folder and arguments, then `acp`."""
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    if os.environ.get("PYTHONUNBUFFERED"):
        for stream in (sys.stdout, sys.stderr):
            stream.reconfigure(write_through=True)  # type: ignore[union-attr]
    read_again(reads)
    program = request.get("program") or str(ACP)
    sys.argv = [program, *request["argv"]]

    def orphaned() -> None:  # the requester went: so does its agent, as its pipes would make it
        with contextlib.suppress(OSError):
            while conn.recv(64):
                pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=orphaned, name="acp-forked", daemon=True).start()
    if program != str(ACP):  # a script, as `python SCRIPT ARGS` runs it
        sys.path[0] = os.path.dirname(os.path.abspath(program))
        runpy.run_path(program, run_name="__main__")
        sys.exit(0)
    sys.path[0] = str(ACP.parent)  # as the console script's
    from reasonix_acp.cli.main import main

    sys.exit(main())


def serve(path: str) -> None:
    _import_all()
    reads = environment_reads()
    assert threading.active_count() == 1, threading.enumerate()
    # What the forker holds is never garbage to a child: its collections leave it alone (not
    # walking it, they do not copy its pages either: a child's exit took 0.3 s without this).
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ, "accept")
    events.register(0, selectors.EVENT_READ, "stdin")
    events.register(wake_read, selectors.EVENT_READ, "child")
    sys.stdout.buffer.write(b"ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in events.select():
            if key.data == "stdin" and not os.read(0, 4096):
                return  # the worker went
            if key.data == "child":
                os.read(wake_read, 4096)
                _report(children)
            if key.data == "accept":
                _accept(listener, events, children, reads, wake_read, wake_write)
        _report(children)


def _accept(
    listener: socket.socket,
    events: selectors.BaseSelector,
    children: dict[int, socket.socket],
    reads: list[Read],
    *wake: int,
) -> None:
    """One request: an exec asked for, or a child forked; a requester that went away
    meanwhile costs nothing (its child, if any, sees its socket closed and ends)."""
    conn, _ = listener.accept()
    try:
        fds, request = _read_request(conn)
    except (OSError, ValueError):
        conn.close()
        return
    program = request.get("program") or str(ACP)
    if not _fits(request["env"]) or (program != str(ACP) and not program.endswith(".py")):
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(b"exec\n")
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        events.close()
        listener.close()
        for other in children.values():
            other.close()
        for fd in wake:
            os.close(fd)
        _become(conn, fds, request, reads)
    for fd in fds:
        os.close(fd)
    children[pid] = conn
    with contextlib.suppress(OSError):
        conn.sendall(b"%d\n" % pid)


def _report(children: dict[int, socket.socket]) -> None:
    for pid in list(children):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            conn = children.pop(pid)
            with contextlib.suppress(OSError):
                conn.sendall(b"%d\n" % status)
            conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
