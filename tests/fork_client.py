"""`acp` as a command line, forked by a test worker's forker (tests/forks.py).

Run as `python -I -S tests/fork_client.py SOCKET PROGRAM [ARG ...]`, PROGRAM being the `acp`
console script or a Python script, where a client wants a command (the conformance runner, the
SDKs' clients): it starts in a few milliseconds, hands its own stdin, stdout and stderr to a
forked PROGRAM and lets go of them (so the pipes end when the agent does), passes on the
signals a client sends an agent, and exits as the agent exited, by the same signal if a signal
ended it. If it is itself killed, the agent is killed too (the forker sees its socket close).
Where the forker cannot serve it (gone, or an environment a fork cannot honour) it becomes
PROGRAM itself by an exec. Standard library only and no site, so it imports nothing of the
tests (its request is framed as tests/forks.py's `Forker.spawn` frames one): it is the cost of
every agent a command starts.
"""

import json
import os
import signal
import socket
import struct
import sys

RELAYED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


def _line(conn: socket.socket) -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        data = conn.recv(1)
        if not data:
            return b""
        line += data
    return line


def main() -> None:
    path, program, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid, pending = [0], []  # a signal before the agent's pid is known is passed on once it is

    def relay(number: int, _frame: object) -> None:
        if pid[0]:
            os.kill(pid[0], number)
        else:
            pending.append(number)

    for sig in RELAYED:
        signal.signal(sig, relay)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    request = {"argv": args, "env": dict(os.environ), "cwd": os.getcwd(), "program": program}
    data = json.dumps(request).encode()
    try:
        conn.connect(path)
        socket.send_fds(conn, [b"!"], [0, 1, 2])
        conn.sendall(struct.pack("!I", len(data)) + data)
        answer = _line(conn)
    except OSError:
        answer = b""
    if not answer or answer == b"exec\n":
        if program.endswith(".py"):
            os.execv(sys.executable, [sys.executable, program, *args])
        os.execv(program, [program, *args])
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    pid[0] = int(answer)
    for number in pending:
        os.kill(pid[0], number)
    status = _line(conn)
    code = os.waitstatus_to_exitcode(int(status)) if status else 70
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
