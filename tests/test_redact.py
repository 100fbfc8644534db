from __future__ import annotations

import pytest

from reasonix_acp.redact import child_env, pass_env, redact, remember


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use Bearer abcdefghijklmnop. Then retry", "use Bearer [redacted]. Then retry"),
        ("Authorization: Bearer abcdefghijklmnop.", "Authorization: Bearer [redacted]."),
        ("Authorization: Basic dXNlcjpwYXNz, next", "Authorization: Basic [redacted], next"),
        ("password='hunter2secret' then", "password='[redacted]' then"),
        ('secret="a b c" and', 'secret="[redacted]" and'),
        ('{"api_key": "abc\\"def", "model": "x"}', '{"api_key": "[redacted]", "model": "x"}'),
        ("{'token': 'tok-123456'}", "{'token': '[redacted]'}"),
        ("the key ****ae54 was refused", "the key [redacted] was refused"),
        ("key sk-****ae54 was refused", "key sk-[redacted] was refused"),
        (
            "https://u:p4ss@h.example/x?api_key=zz&b=1",
            "https://[redacted]@h.example/x?api_key=[redacted]&b=1",
        ),
        ("max token: 2048 and 5 tokens: 500", "max token: 2048 and 5 tokens: 500"),
    ],
)
def test_only_the_credential_goes(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_remembered_values_go_whatever_their_shape() -> None:
    remember("plainVALUE-0042", "x")  # too short to remember: ordinary text keeps it
    assert redact("echoed plainVALUE-0042, twice: plainVALUE-0042.") == (
        "echoed [redacted], twice: [redacted]."
    )
    assert redact("x marks") == "x marks"


def test_child_env_drops_credentials_but_what_is_passed() -> None:
    remember("valueSECRET-77")
    base = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "a",
        "GH_TOKEN": "b",
        "DB_PASSWORD": "c",
        "ODD": "valueSECRET-77",
        "SSH_AUTH_SOCK": "/tmp/agent",
        "KEEP_TOKEN": "d",
    }
    pass_env(["KEEP_TOKEN"])
    try:
        assert child_env(base) == {"PATH": "/bin", "SSH_AUTH_SOCK": "/tmp/agent", "KEEP_TOKEN": "d"}
    finally:
        pass_env([])
