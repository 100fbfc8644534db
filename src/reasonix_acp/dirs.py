"""Where the agent keeps its data and its config when no override variable says.

On Linux this follows the XDG Base Directory rules itself: an absolute `$XDG_DATA_HOME` or
`$XDG_CONFIG_HOME` (a relative one is ignored, as the rules say), else `~/.local/share` or
`~/.config` under an absolute `$HOME`, else under the account's home directory. Importing
platformdirs for that loads tempfile, shutil, random and the compression modules, 8 to 10 ms of
every `session/new`; tests/test_dirs.py holds both to the same answer across environments.
Elsewhere (macOS, Windows, Android) platformdirs decides, loaded on first use.
"""

from __future__ import annotations

import os
import posixpath
import sys
from pathlib import Path

APP = "reasonix-acp"
# (XDG variable, default under the home directory), by kind of directory.
XDG = {"data": ("XDG_DATA_HOME", "/.local/share"), "config": ("XDG_CONFIG_HOME", "/.config")}


def user_dir(kind: str) -> Path:
    """The agent's own `kind` ("data" or "config") directory for this user; not created."""
    if not _plain_linux():
        return Path(_platformdirs(kind))
    variable, under_home = XDG[kind]
    chosen = os.environ.get(variable, "")
    if posixpath.isabs(chosen):
        return Path(chosen, APP)
    return Path(_home() + under_home, APP)


def _plain_linux() -> bool:
    android = hasattr(sys, "getandroidapilevel") or "ANDROID_ROOT" in os.environ
    return sys.platform == "linux" and not android


def _home() -> str:
    home = os.environ.get("HOME")
    if home is None or not posixpath.isabs(home):  # unset or relative: the account's own
        import pwd  # POSIX only; Linux is the only platform that comes here

        try:
            home = pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            home = ""
    if not posixpath.isabs(home):
        raise RuntimeError("could not determine the home directory; set an absolute HOME")
    return home.rstrip("/")


def _platformdirs(kind: str) -> str:
    # lazy: start-up
    import platformdirs

    if kind == "data":
        return platformdirs.user_data_dir(APP, appauthor=False)
    return platformdirs.user_config_dir(APP, appauthor=False)
