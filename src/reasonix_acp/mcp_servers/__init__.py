"""MCP servers a session uses: what the client (or config.toml) named, connected through the
official `mcp` SDK, their tools offered to the model. The SDK is imported only when a session
has a server to connect."""
