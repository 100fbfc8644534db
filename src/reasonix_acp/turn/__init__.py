"""One prompt: admission, the turn runner, the agent's own slash commands."""
