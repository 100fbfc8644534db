"""Random identifiers: version-4 UUIDs, formatted as `uuid.uuid4()` formats them.

Made here rather than with the `uuid` module because importing that module imports `platform`
(and probes the system), which every `session/new` would pay for an identifier that is only 16
random bytes with two fields set.
"""

from __future__ import annotations

import os


def uuid4_hex() -> str:
    """A random (version 4, RFC 4122 variant) UUID as 32 hex digits."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return raw.hex()


def uuid4() -> str:
    """A random (version 4, RFC 4122 variant) UUID: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`."""
    h = uuid4_hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
