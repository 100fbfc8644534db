"""reasonix-acp: a coding agent for editors, over the Agent Client Protocol v1."""

import sys
import types

__version__ = "0.1.0"
__all__ = ["__version__"]

# httpx's package imports its command line (`httpx._main`: click, pygments, rich) whenever click
# is installed, as it is beside the mcp SDK (uvicorn needs it); the agent never runs that
# command. An empty module stands in for it, so loading httpx, which every process that loads
# its prompt path does, no longer loads click (about a tenth of httpx's import). The stand-in's
# `main` is never called; tests/test_import_budget.py checks click stays unloaded.
if "httpx._main" not in sys.modules:
    _cli = types.ModuleType("httpx._main", "httpx's command line: not loaded by the agent")
    _cli.main = lambda: None  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _cli
