"""Classifiers: from what a session left behind to an outcome label and named observations.

Each is a function of a session (session.SessionRecord: the parts of the evidence record it names
in `reads`, so committed evidence can be classified again) returning (outcome,
observations), registered with `@classifier(name, key=..., reads=...)` in the module of its
family. Every observation a classifier reports is always present (its TypedDict says which);
"not observed" is an explicit None, False or empty value, never a missing key. A recipe's
`subject` is the canonical event under test.
"""

from __future__ import annotations

from probes.classify import authority, background, context, hook_input, interactive, liveness, mcp
from probes.classify.registry import CLASSIFIERS, Classifier, classifier, label, session_keys
from probes.classify.session import SENTINEL_RE, SessionRecord, hook_texts

FAMILIES = (authority, background, context, hook_input, interactive, liveness, mcp)  # each registers its classifiers on import
SESSION_KEYS = session_keys()  # what a committed record keeps for it to be classified again

__all__ = ["CLASSIFIERS", "SENTINEL_RE", "SESSION_KEYS", "Classifier", "SessionRecord", "classifier", "hook_texts", "label"]
