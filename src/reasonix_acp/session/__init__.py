"""Live sessions: the session service, its runtime, controls, the SQLite store, transcript to history."""
