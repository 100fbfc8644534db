"""Every benchmark, each in its own process; all run and print, and the exit status is 1 when
any figure is over its target. Start-up is measured with bytecode cached, as users have it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPTS = (
    "startup.py",
    "ready.py",
    "sessions.py",
    "streaming.py",
    "inbox.py",
    "long_session.py",
    "subagents.py",
)


def main() -> int:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    here = Path(__file__).parent
    over = [
        name
        for name in SCRIPTS
        if subprocess.run([sys.executable, str(here / name), *sys.argv[1:]], env=env).returncode
    ]
    if over:
        print(f"over target: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
