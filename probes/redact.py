"""Redaction (CONTRACT.md): credentials never reach results/ or logs; their presence does."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Set
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "<redacted>"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH", re.I)
SECRET_VALUE = re.compile(
    r"(?:"
    r"gh[pousr]_[A-Za-z0-9]{8,}"  # GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_
    r"|github_pat_[A-Za-z0-9_]{8,}"
    r"|(?<![A-Za-z])sk-(?:ant-)?[A-Za-z0-9_-]{8,}"  # OpenAI / Anthropic keys, not "desk-..."
    r"|xox[abposr]-[A-Za-z0-9-]{8,}"  # Slack
    r"|eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*"  # JWT
    r")"
)
MIN_KNOWN_SECRET = 6  # shorter values are too likely to occur by chance in other text


def secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def known_secrets(*envs: Mapping[str, Any] | None) -> set[str]:
    """Values of secret-named variables, and their encoded forms: scrubbed wherever else
    they appear."""
    values = {
        v for env in envs for k, v in (env or {}).items() if secret_name(k) and isinstance(v, str) and len(v) >= MIN_KNOWN_SECRET
    }
    return {form for v in values for form in encoded(v)}


def encoded(secret: str) -> set[str]:
    """`secret` as itself, hex, URL-encoded, and base64 (standard and URL-safe) at each of
    the three alignments it can have inside a longer encoded text: only the characters that
    depend on the secret's bytes alone, so it is found in `base64(anything + secret + ...)`."""
    raw = secret.encode()
    forms = {secret, raw.hex(), raw.hex().upper(), quote(secret, safe=""), quote_plus(secret)}
    for pad in range(3):
        start, end = -(-8 * pad // 6), (8 * pad + 8 * len(raw)) // 6  # whole sextets of the secret
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(b"\0" * pad + raw).decode()[start:end])
    return {f for f in forms if len(f) >= MIN_KNOWN_SECRET}


def redact_text(text: str, secrets: Set[str] = frozenset()) -> str:
    for s in sorted(secrets, key=len, reverse=True):
        text = text.replace(s, REDACTED)
    return SECRET_VALUE.sub(REDACTED, text)


def redact_env(env: Mapping[str, str] | None, secrets: Set[str] = frozenset()) -> dict[str, str]:
    return {
        k: (REDACTED if secret_name(k) or SECRET_VALUE.search(v or "") else redact_text(v, secrets))
        for k, v in sorted((env or {}).items())
    }


ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def redact(value: Any, secrets: Set[str] = frozenset()) -> Any:
    """Every string in a JSON-like value, recursively; under environment-style keys
    (UPPER_CASE) a secret-looking name hides the value too."""
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    if isinstance(value, dict):
        return {
            redact_text(str(k), secrets): (
                REDACTED if ENV_NAME.match(str(k)) and secret_name(str(k)) and v not in (None, "") else redact(v, secrets)
            )
            for k, v in value.items()
        }
    return value
