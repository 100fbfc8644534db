"""Identifiers made without the `uuid` module are the UUIDs `uuid.uuid4()` would make."""

from __future__ import annotations

import uuid

from reasonix_acp.ids import uuid4, uuid4_hex


def test_uuid4_is_a_random_version_4_uuid_in_the_canonical_form() -> None:
    made = [uuid4() for _ in range(2000)]
    for text in made:
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # lower case, 8-4-4-4-12
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(made)) == len(made)


def test_uuid4_hex_is_the_same_uuid_as_32_hex_digits() -> None:
    for _ in range(2000):
        text = uuid4_hex()
        parsed = uuid.UUID(hex=text)
        assert parsed.hex == text and len(text) == 32
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
