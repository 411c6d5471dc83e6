"""Redaction (docs/safety.md): credentials never reach results/ or logs; their presence does."""

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
# An HTTP credential header written out (`Authorization: Bearer X`, `-H 'x-api-key: X'`): its
# value, whatever its shape; the name and the scheme stay.
HEADER_VALUE = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])((?:proxy-)?authorization|x-api-key|api-key)([\"']?\s*[:=]\s*[\"']?)"
    r"((?:bearer|basic|token|digest|negotiate)\s+)?([^\s\"',;]{6,})"
)
# Keys naming one, in any case, in any object (a payload's `headers`): the value is redacted.
HEADER_NAME = re.compile(r"(?i)(?:proxy-)?authorization|x-api-key|api-key|cookie|set-cookie")
# Cheap searches that every match of the two above needs (a literal start; the header's name,
# folded as HEADER_VALUE folds it): a text without one is left alone, 5-8x faster than the subs
SECRET_START = re.compile(r"gh[pousr]_|github_pat_|sk-|xox[abposr]-|eyJ")
HEADER_HINT = re.compile(r"(?i)authorization|api-key")
PERCENT = re.compile(r"%[0-9A-F]{2}")
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
    """`secret` as itself, hex, URL-encoded (its escapes in upper and in lower case: `%2F`,
    `%2f`), and base64 (standard and URL-safe) at each of the three alignments it can have
    inside a longer encoded text: only the characters that depend on the secret's bytes
    alone, so it is found in `base64(anything + secret + ...)`."""
    raw = secret.encode()
    urls = {quote(secret, safe=""), quote_plus(secret)}
    urls |= {PERCENT.sub(lambda m: m.group().lower(), u) for u in urls}
    forms = {secret, raw.hex(), raw.hex().upper(), *urls}
    for pad in range(3):
        start, end = -(-8 * pad // 6), (8 * pad + 8 * len(raw)) // 6  # whole sextets of the secret
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(b"\0" * pad + raw).decode()[start:end])
    return {f for f in forms if len(f) >= MIN_KNOWN_SECRET}


def redact_text(text: str, secrets: Set[str] = frozenset()) -> str:
    return _text(text, longest_first(secrets))


def longest_first(secrets: Set[str]) -> tuple[str, ...]:
    """The order secrets are replaced in: a secret inside a longer one does not break it."""
    return tuple(sorted(secrets, key=len, reverse=True))


def _text(text: str, secrets: tuple[str, ...]) -> str:
    if secrets and len(text) >= len(secrets[-1]):  # a text shorter than the shortest holds none
        for s in secrets:
            text = text.replace(s, REDACTED)
    if HEADER_HINT.search(text):
        text = HEADER_VALUE.sub(lambda m: f"{m[1]}{m[2]}{m[3] or ''}{REDACTED}" if m[4] != REDACTED else m[0], text)
    return SECRET_VALUE.sub(REDACTED, text) if SECRET_START.search(text) else text


def redact_env(env: Mapping[str, str] | None, secrets: Set[str] = frozenset()) -> dict[str, str]:
    return {
        k: (REDACTED if secret_name(k) or SECRET_VALUE.search(v or "") else redact_text(v, secrets))
        for k, v in sorted((env or {}).items())
    }


ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def redact(value: Any, secrets: Set[str] = frozenset()) -> Any:
    """Every string in a JSON-like value, recursively; under environment-style keys
    (UPPER_CASE) a secret-looking name hides the value too, and under an HTTP credential
    header's name in any case (`Authorization`, `Cookie`, `x-api-key`)."""
    return _redact(value, longest_first(secrets))


def _redact(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return _text(value, secrets)
    if isinstance(value, list):
        return [_redact(v, secrets) for v in value]
    if isinstance(value, dict):
        return {
            _text(str(k), secrets): (
                REDACTED
                if v not in (None, "") and ((ENV_NAME.match(str(k)) and secret_name(str(k))) or HEADER_NAME.fullmatch(str(k)))
                else _redact(v, secrets)
            )
            for k, v in value.items()
        }
    return value
