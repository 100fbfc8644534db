"""An MCP server that dies before it answers anything (for the crash-on-start tests)."""

import sys

sys.stderr.write("crash_server: refusing to start\n")
sys.exit(3)
