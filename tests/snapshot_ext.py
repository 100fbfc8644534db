"""NDJSON snapshots: one frame per line, keys sorted, so a review diff is a diff of frames."""

from __future__ import annotations

import json
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


def ndjson(frames: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(f, sort_keys=True, ensure_ascii=False) + "\n" for f in frames)


class NDJSONSnapshotExtension(SingleFileSnapshotExtension):
    file_extension = "ndjson"
    _write_mode = WriteMode.TEXT

    def serialize(self, data: Any, **kwargs: Any) -> str:
        if isinstance(data, str):
            return data
        return ndjson(list(data))
