"""The `acp` command and its subcommands: serve, setup, demo, sessions."""
