"""Which variables a provable line may set and read (command_proof/proof.py).

Setting. A line may give a variable a literal value (`FOO=bar cmd`, `X=1; …`, `export X=1`,
`for X in …`) unless the name is one that changes which program runs, what a program loads, or
how the shell reads the rest of the line. Such a name would make the proof's reading of the
line, or its list of the commands it runs, wrong:

- bash's own: PATH (and every *PATH: CDPATH, where `cd` goes), HOME and OLDPWD/PWD (`~`, `cd`),
  IFS (word splitting), GLOBIGNORE and EXECIGNORE (what a pattern or a command name finds),
  BASH_* and SHELLOPTS/BASHOPTS, POSIXLY_CORRECT (another mode), ENV, PS*, TMOUT, FUNCNEST,
  PROMPT_COMMAND, MAIL*, HIST*, and the locale (LANG, LANGUAGE, LC_*: bash re-reads it on
  assignment, and in some multibyte locales a later `\\` is read differently);
- the dynamic loader and the C library: LD_*, DYLD_*, GCONV_PATH, LOCPATH, MALLOC_*, GLIBC_*,
  NLSPATH, HOSTALIASES, RES_OPTIONS, LOCALDOMAIN;
- interpreters and build tools that load or run what a variable names: PYTHON*, NODE_* (but
  NODE_ENV), NPM_CONFIG_*, YARN_*, PNPM_*, PERL*, RUBY*, JAVA*, JDK_*, _JAVA_OPTIONS, MAVEN*,
  GRADLE*, CLASSPATH, GO* (but GOOS, GOARCH), CGO_*, CARGO*, RUSTC*, RUSTUP_*, PIP_*, UV_*,
  POETRY_*, CONDA*, VIRTUAL_ENV, CC, CXX, CPP, LD, AR, AS, MAKE*, MFLAGS, GNUMAKEFLAGS;
- programs that run the program a variable names: GIT_*, SSH_*, GPG*, EDITOR, VISUAL, PAGER,
  BROWSER, SHELL, LESSOPEN/LESSCLOSE, TERMINFO, XDG_* (where configuration is read from), TMPDIR,
  TMP, TEMP, and every name ending in _OPTIONS, _OPTS, FLAGS, _COMMAND, _CMD, _PROGRAM, PAGER,
  EDITOR, ASKPASS, _WRAPPER, _HOME, _DIR, _CONFIG, _FILE, _PROXY (case aside: npm reads its
  lowercase `npm_config_*`, curl its `http_proxy`).

A grant of a program already trusts it with what it reads from the project (a Makefile, a
package.json); a variable that changes it more than that is on this list, and its assignment
asks.

Reading. A line may read `$NAME` only where the value cannot be a secret of the environment
(an API key, a token): a name this line surely set before the read (not one it may have skipped,
nor one a subshell set), the variable of an enclosing `for`, `$?`, and the names every system
sets to the same kind of value (READABLE). Any other read asks: the value would reach the
command's output, and through it the model.
"""

from __future__ import annotations

import re

# fmt: off
_DENIED_NAMES = frozenset({
    "PATH", "HOME", "PWD", "OLDPWD", "IFS", "ENV", "GLOBIGNORE", "EXECIGNORE", "SHELLOPTS",
    "POSIXLY_CORRECT", "TMOUT", "FUNCNEST", "PROMPT_COMMAND", "LANG", "LANGUAGE", "GCONV_PATH",
    "LOCPATH", "NLSPATH", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN", "CLASSPATH", "VIRTUAL_ENV",
    "CC", "CXX", "CPP", "LD", "AR", "AS", "MFLAGS", "EDITOR", "VISUAL", "PAGER", "BROWSER",
    "SHELL", "LESSOPEN", "LESSCLOSE", "TERMINFO", "TMPDIR", "TMP", "TEMP", "TEXTDOMAIN",
    "TEXTDOMAINDIR",
})
_DENIED_PREFIXES = (
    "BASH", "PS", "MAIL", "HIST", "LC_", "LD_", "DYLD_", "MALLOC_", "GLIBC_", "PYTHON", "NODE_",
    "NPM_CONFIG_", "YARN_", "PNPM_", "PERL", "RUBY", "JAVA", "JDK_", "_JAVA", "MAVEN", "GRADLE",
    "GO", "CGO_", "CARGO", "RUSTC", "RUSTUP_", "PIP_", "UV_", "POETRY_", "CONDA", "MAKE",
    "GNUMAKE", "GIT_", "SSH_", "GPG", "XDG_",
)
_DENIED_SUFFIXES = (
    "PATH", "_OPTIONS", "_OPTS", "FLAGS", "_COMMAND", "_CMD", "_PROGRAM", "PAGER", "EDITOR",
    "ASKPASS", "_WRAPPER", "_HOME", "_DIR", "_CONFIG", "_FILE", "_PROXY",
)
_ALLOWED_NAMES = frozenset({"NODE_ENV", "GOOS", "GOARCH"})
# Set by every system, to values that are not secrets; bash's own are read as bash sets them.
READABLE = frozenset({
    "?", "HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE", "TERM",
    "HOSTNAME", "TMPDIR", "SHLVL", "UID", "EUID", "PPID", "HOSTTYPE", "OSTYPE", "MACHTYPE",
    "BASH_VERSION", "RANDOM", "SECONDS", "LINENO", "COLUMNS", "LINES", "EDITOR", "VISUAL",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "GOPATH", "GOROOT", "JAVA_HOME",
    "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "PYENV_ROOT", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "DISPLAY", "LC_ALL", "LC_CTYPE", "CI",
    "NODE_ENV",
})
# fmt: on
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def may_set(name: str) -> bool:
    """Whether a line may give `name` a literal value and still be proved (the module's list)."""
    upper = name.upper()
    if upper in _ALLOWED_NAMES:
        return True
    return not (
        upper in _DENIED_NAMES
        or upper.startswith(_DENIED_PREFIXES)
        or upper.endswith(_DENIED_SUFFIXES)
    )


def why_not_set(name: str) -> str:
    return f"setting `{name}` changes which program runs or what it loads"


def why_not_read(name: str) -> str:
    return f"`${name}` is read from the environment, where it may be a secret"
