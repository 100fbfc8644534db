from __future__ import annotations

import pytest

from reasonix_acp.redact import redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer ghp_abcdefghijklmnop1234", "ghp_abcdefghijklmnop1234"),
        ("bad key sk-proj-ABCDEFGH12345678", "sk-proj-ABCDEFGH12345678"),
        ("GET https://user:hunter22@host/v1", "hunter22"),
        ("https://api.x/v1?api_key=abc123secret&x=1", "abc123secret"),
        ("credential 0123456789abcdef0123 rejected", "0123456789abcdef0123"),
    ],
)
def test_credentials_are_removed(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and "[redacted]" in out


def test_bounded_to_2048_bytes_on_a_character_boundary() -> None:
    out = redact("é" * 5000)
    assert len(out.encode()) <= 2048
    out.encode().decode("utf-8")


def test_plain_text_is_kept() -> None:
    assert redact("  the model is overloaded (HTTP 503)  ") == "the model is overloaded (HTTP 503)"
