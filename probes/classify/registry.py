"""The classifier registry: one decorator gives a classifier its recipe-facing name, the
observation a table shows beside its label, and the parts of a session it reads. Recipe
validation, tables and `probe list` read it from here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypedDict, TypeVar, cast, get_args

from probes.classify.session import Part, SessionRecord

Observations = Mapping[str, object]  # each classifier's own TypedDict: every key always present
Fn = Callable[[SessionRecord], tuple[str, Observations]]
# (outcome, observations, the event under test) -> the answer's clause, e.g. "a pre-tool hook
# that ended with exit 1 did not stop the tool: the tool ran"; "" when it has no words for it
Says = Callable[[str, Observations, str | None], str]
F = TypeVar("F", bound=Fn)


@dataclass(frozen=True)
class Classifier:
    name: str  # what a recipe's `classifier:` says
    fn: Fn
    key: str | None  # the observation shown beside the label in a table cell, if any
    reads: tuple[Part, ...]  # the session parts it is given (and all it may read)
    says: Says | None = None  # the one-sentence answer (report/answer.py) its family words

    def __call__(self, session: SessionRecord) -> tuple[str, dict[str, object]]:
        # Only the parts it declares: a classifier reading another part fails (KeyError) on
        # every record, in the tests, instead of reading what its `reads` does not say.
        given = cast(SessionRecord, {k: session[k] for k in self.reads if k in session})
        outcome, obs = self.fn(given)
        return outcome, dict(obs)


CLASSIFIERS: dict[str, Classifier] = {}


def classifier(name: str, *, reads: tuple[Part, ...], key: str | None = None, says: Says | None = None) -> Callable[[F], F]:
    """Register the decorated function as the classifier `name`."""
    unknown = set(reads) - set(get_args(Part))
    if unknown:  # a typo here would otherwise surface as a KeyError per record
        raise ValueError(f"classifier {name!r} reads {sorted(unknown)}, which no session has")

    def register(fn: F) -> F:
        if name in CLASSIFIERS:
            raise ValueError(f"classifier {name!r} is registered twice")
        CLASSIFIERS[name] = Classifier(name, fn, key, reads, says)
        return fn

    return register


def hook_words(event: str | None) -> str:
    """An event as words: `pre_tool` -> `a pre-tool hook`."""
    if not event:
        return "the hook"
    words = event.replace("_", "-")
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words} hook"


def went_on(event: str | None) -> tuple[str, str]:
    """What a hook on `event` gates, and its going on: a tool, or the session."""
    return (
        ("the tool", "the tool ran")
        if event in ("pre_tool", "post_tool", "permission_request")
        else ("the session", "the session went on")
    )


def seconds(value: object) -> str:
    """`3.08 s`, or "" when not measured."""
    return f"{value:.2f} s" if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


class Undriven(TypedDict):
    tty_error: str  # the step that failed and the state it could not reach
    screen: str  # the end of the screen it saw


def label(name: str, session: SessionRecord) -> tuple[str, dict[str, object]]:
    """The recipe's classifier on a session; an interactive session the driver could not take
    through its steps is labelled `could-not-drive`, with the step and the screen it saw."""
    failed = next((s for s in session.get("transcript") or [] if not s["ok"]), None)
    if failed:
        obs: Undriven = {"tty_error": f"{failed['do']}: {failed['state']}", "screen": failed["screen"][-1500:]}
        return "could-not-drive", dict(obs)
    return CLASSIFIERS[name](session)


def session_keys() -> tuple[Part, ...]:
    """Every part some classifier reads, and the transcript `label` reads: what a committed
    record must keep to be classified again."""
    return tuple(dict.fromkeys(("transcript", *(p for c in CLASSIFIERS.values() for p in c.reads))))
