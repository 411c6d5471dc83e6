"""Redaction (docs/safety.md): credentials never reach results or logs; their presence does."""

from __future__ import annotations

import base64

import pytest

from probes.pipeline.redact import REDACTED, known_secrets, redact, redact_env, redact_text

CANARIES = [
    "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "gho_" + "Z9y8X7w6V5u4T3s2R1q0",
    "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "sk-" + "proj-4fJ8kL2mN9pQ3rS7tU1vW5xY",
    "sk-ant-" + "api03-Ab12Cd34Ef56Gh78Ij90-Kl12Mn34",
    "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("canary", CANARIES)
def test_canary_in_free_text(canary):
    text = f"Authorization: Bearer {canary}\nexport X={canary}; echo '{canary}'"
    assert redact_text(text) == f"Authorization: Bearer {REDACTED}\nexport X={REDACTED}; echo '{REDACTED}'"


@pytest.mark.parametrize("canary", CANARIES)
def test_canary_in_env_value(canary):
    env = {"PLAIN_VAR": canary, "WITH_PREFIX": f"x {canary}", "HOME": "/home/probe"}
    assert redact_env(env) == {"PLAIN_VAR": REDACTED, "WITH_PREFIX": REDACTED, "HOME": "/home/probe"}


@pytest.mark.parametrize("canary", CANARIES)
def test_canary_in_nested_payload(canary):
    payload = {
        "tool_name": "bash",
        "tool_input": {
            "command": f"curl -H 'x: {canary}' https://example.test",
            "argv": ["git", "push", canary],
            "deep": [{"value": canary, "count": 3, "ok": True, "none": None}],
        },
    }
    assert redact(payload) == {
        "tool_name": "bash",
        "tool_input": {
            "command": f"curl -H 'x: {REDACTED}' https://example.test",
            "argv": ["git", "push", REDACTED],
            "deep": [{"value": REDACTED, "count": 3, "ok": True, "none": None}],
        },
    }


@pytest.mark.parametrize(
    "name",
    [
        "GITHUB_TOKEN",
        "ANTHROPIC_API_KEY",
        "api_key",
        "MySecret",
        "DB_PASSWORD",
        "passwd",
        "AWS_CREDENTIALS",
        "session_cookie",
        "OAuth_Client",
        "COPILOT_AUTH_HEADER",
    ],
)
def test_secret_named_env_vars_are_redacted_presence_kept(name):
    assert redact_env({name: "plainvalue", "EDITOR": "vi"}) == {name: REDACTED, "EDITOR": "vi"}


def test_secret_named_env_var_in_payload_is_redacted():
    payload = {"env": {"GITHUB_TOKEN": "plainvalue", "LANG": "C.UTF-8"}}
    assert redact(payload) == {"env": {"GITHUB_TOKEN": REDACTED, "LANG": "C.UTF-8"}}


def test_known_secrets_come_from_secret_named_vars_of_min_length():
    env = {"MY_TOKEN": "hunter2-value", "SHORT_KEY": "abc12", "PATH": "/usr/bin:/bin", "SIX_SECRET": "sixsix"}
    found = known_secrets(env, {"OTHER_PASSWORD": "correct horse"}, None)
    assert {"hunter2-value", "sixsix", "correct horse"} <= found
    assert not any("abc12" in f or "/usr/bin" in f for f in found)


@pytest.mark.parametrize("prefix", [b"", b"A", b"AB", b"ABC", b"PATH=/bin\0"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_encoded_secrets_are_scrubbed_at_every_alignment(prefix, encode):
    """A session that base64s an environment block must not carry a known secret out."""
    value = "unlabelled-canary/value+0009"
    secrets = known_secrets({"BUILD_SECRET": value})
    blob = encode(prefix + b"BUILD_SECRET=" + value.encode() + b"\0HOME=/x").decode()
    scrubbed = redact_text(blob, secrets)
    assert "<redacted>" in scrubbed
    whole = encode(value.encode()).decode().rstrip("=")
    assert whole[1:-2] not in scrubbed


def test_hex_and_url_encoded_secrets_are_scrubbed():
    value = "unlabelled canary/value+0010"
    secrets = known_secrets({"BUILD_SECRET": value})
    for form in (
        value.encode().hex(),
        value.encode().hex().upper(),
        "unlabelled%20canary%2Fvalue%2B0010",
        "unlabelled+canary%2Fvalue%2B0010",
    ):
        assert redact_text(f"x {form} y", secrets) == "x <redacted> y"


def test_url_escapes_in_either_case_are_scrubbed():
    """Python (and most encoders) write `%2F`; others, and people, `%2f`."""
    secrets = known_secrets({"BUILD_SECRET": "canary/value+0011 x"})
    for form in ("canary%2Fvalue%2B0011%20x", "canary%2fvalue%2b0011%20x", "canary%2fvalue%2b0011+x", "canary%2Fvalue%2B0011+x"):
        assert redact_text(f"https://h/?t={form}&n=1", secrets) == "https://h/?t=<redacted>&n=1"


@pytest.mark.parametrize(
    "text, scrubbed",
    [
        ("Authorization: Bearer plain-bearer-value", "Authorization: Bearer <redacted>"),
        ("curl -H 'authorization: basic dXNlcjpwYXNz' https://h", "curl -H 'authorization: basic <redacted>' https://h"),
        ('{"Proxy-Authorization": "Negotiate abcdefgh"}', '{"Proxy-Authorization": "Negotiate <redacted>"}'),
        ("-H x-api-key:plainkey123", "-H x-api-key:<redacted>"),
        ("clear authorization context: pentesting", "clear authorization context: pentesting"),  # a system prompt's words
        ("authorization: none", "authorization: none"),
    ],
)
def test_credential_headers_written_out_lose_their_value(text, scrubbed):
    assert redact_text(text) == scrubbed


def test_credential_header_keys_are_redacted_in_any_case():
    payload = {"headers": {"Authorization": "Basic plainvalue", "cookie": "s=1", "X-Api-Key": "k"}, "author": "me"}
    assert redact(payload) == {"headers": {"Authorization": REDACTED, "cookie": REDACTED, "X-Api-Key": REDACTED}, "author": "me"}


def test_known_secret_values_are_scrubbed_elsewhere():
    secrets = known_secrets({"MY_TOKEN": "hunter2-value"})
    assert redact_text("login with hunter2-value now", secrets) == f"login with {REDACTED} now"
    assert redact_env({"MY_TOKEN": "hunter2-value", "CMD": "auth hunter2-value"}, secrets) == {
        "MY_TOKEN": REDACTED,
        "CMD": f"auth {REDACTED}",
    }
    assert redact({"prompt": ["x", {"y": "echo hunter2-value"}]}, secrets) == {"prompt": ["x", {"y": f"echo {REDACTED}"}]}


def test_longer_known_secret_is_scrubbed_first():
    assert redact_text("v=abcdefghij", {"abcdef", "abcdefghij"}) == f"v={REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "the key is on the desk",
        "risk-averse",
        "desk-lamp12345678",
        "ghp_short",
        "sk-",
        "xoxb",
        "eyJ",
        "tokens: 1200, secrets: none",
        "mask-everything-here",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact_text(text) == text
    assert redact_text(text, {"hunter2-value"}) == text


def test_ordinary_payload_keys_are_left_alone():
    payload = {
        "tool_args_field": "ls -la",
        "tool_use_id": "toolu_01AbCdEfGh",
        "session_id": "3f2a9c1e-1111-2222-3333-444455556666",
        "hook_event_name": "PreToolUse",
        "transcript_path": "/tmp/t.jsonl",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    assert redact(payload) == payload
