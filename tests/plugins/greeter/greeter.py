#!/usr/bin/env python3
"""Greets a session with a status surface, and notes its end in ended.txt in the session cwd."""

import json
import sys

request = json.load(sys.stdin)
if request["event"] == "session_end":
    with open("ended.txt", "a", encoding="utf-8") as fh:
        fh.write(request["sessionId"] + "\n")
    print("{}")
else:
    print(
        json.dumps(
            {"surfaces": [{"kind": "status", "status": {"label": "hello", "severity": "error"}}]}
        )
    )
