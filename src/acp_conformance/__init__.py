"""acp-conformance: the golden corpus as a conformance suite any ACP agent can be run against.

It speaks to the agent as an editor would (NDJSON JSON-RPC 2.0 on the agent's stdin/stdout),
replays scenario files (`scenarios/*.json`) and judges what comes back structurally: the pinned
upstream schema, error codes, ids, what must never be answered, whether the agent survives bad
input. It imports nothing of reasonix-acp; it reads the pinned upstream schema, which
`nox -s update_schema` verifies and copies beside it (and the wheel ships).
"""
