#!/usr/bin/env python3
"""The test plugin's commands: one JSON request on stdin, one JSON answer on stdout."""

import json
import sys

request = json.load(sys.stdin)
event = request["event"]
answer: dict = {}
if event == "tool":
    path = request["arguments"]["path"]
    answer = {
        "text": f"lint clean: {path}",
        "surfaces": [
            {
                "kind": "status",
                "surfaceId": "lint",
                "status": {"label": "lint", "detail": f"{path} is clean"},
            }
        ],
    }
elif event == "action" and request["action"] == "deploy":
    target = request["args"]["target"]
    answer = {
        "text": f"Deployed to {target}.",
        "surfaces": [
            {
                "kind": "card",
                "surfaceId": "deploy",
                "card": {
                    "title": "Deploy",
                    "markdown": "**finished**",
                    "fields": [{"key": "target", "value": target}, {"key": "bad"}],
                },
            },
            "not a surface",
            {"kind": "status"},
        ],
    }
elif event == "action" and request["action"] == "explain":
    answer = {"prompt": f"Explain {request['args'].get('arg1', 'the project')} briefly"}
elif event == "action":
    sys.stderr.write("the broken action broke\n")
    sys.exit(3)
elif event == "turn_end":
    answer = {
        "surfaces": [
            {
                "kind": "notification",
                "surfaceId": "turn",
                "notification": {
                    "title": "Turn ended",
                    "body": request["stopReason"],
                    "severity": "warn",
                },
            }
        ]
    }
print(json.dumps(answer))
