"""SHA-256 digests and MACs: inbox checksums, recovery ids, the cursors of `session/list` and
the store's fallback secret.

`hashlib` (with OpenSSL's digest set-up, a millisecond or more) and `hmac` are imported on
first use, so opening a session that never lists, enqueues or recovers does not pay for them.
"""

from __future__ import annotations


def sha256(data: bytes) -> bytes:
    # lazy: start-up
    import hashlib

    return hashlib.sha256(data).digest()


def sha256_hex(data: bytes) -> str:
    # lazy: start-up
    import hashlib

    return hashlib.sha256(data).hexdigest()


def mac(key: bytes, payload: bytes) -> bytes:
    """HMAC-SHA256 of `payload` under `key`."""
    # lazy: start-up
    import hmac

    return hmac.new(key, payload, "sha256").digest()


def same(a: bytes, b: bytes) -> bool:
    """`a == b` in time that does not depend on where they differ (for MACs)."""
    # lazy: start-up
    import hmac

    return hmac.compare_digest(a, b)
