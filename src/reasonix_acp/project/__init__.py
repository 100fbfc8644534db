"""What the agent knows of the project it works in: its instruction files (AGENTS.md)."""
