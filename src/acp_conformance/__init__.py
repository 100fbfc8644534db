"""acp-conformance: the golden corpus as a conformance suite any ACP agent can be run against.

It speaks to the agent as an editor would (NDJSON JSON-RPC 2.0 on the agent's stdin/stdout),
replays scenario files (`scenarios/*.json`) and judges what comes back structurally: the pinned
upstream schema, error codes, ids, what must never be answered, whether the agent survives bad
input. It imports nothing of reasonix-acp; it reads the pinned upstream schema, committed beside
it (sha256-checked against schema/upstream.toml by `nox -s codegen_check`) and shipped with it.
"""
