"""What an outcome label means for the session, in a few classes with a fixed colour each:
the HTML page colours a verdict by what happened (the tool ran, was blocked, the session was
held, ...), never by the label's spelling, so one colour means one thing on every row."""

from __future__ import annotations

import re
from dataclasses import dataclass

from probes.evidence.load import Cell


@dataclass(frozen=True)
class Meaning:
    key: str  # a CSS class name: m-<key>
    name: str  # as the legend shows it
    means: str
    fill: str  # the segment's colour
    ink: str  # its text colour, readable on the fill


MEANINGS = [
    Meaning("ran", "went on", "the tool ran, or the session went on past the hook", "#9fd89f", "#0b3d0b"),
    Meaning("blocked", "blocked", "the hook stopped the tool, the prompt or the turn", "#f19b9b", "#5c0909"),
    Meaning("held", "held", "the session waited on the hook until the budget ran out (or looped)", "#f7c46c", "#4d3000"),
    Meaning("reached", "reached", "the hook's text (or its rewrite) reached the model or the tool", "#8fc1ee", "#0a2e52"),
    Meaning("dropped", "dropped", "the hook's text did not reach the model, or its rewrite was ignored", "#c9b8e8", "#2e1a52"),
    Meaning("quiet", "not fired", "no hook ran: the event or matcher did not fire, or nothing was hooked", "#e3e3e3", "#404040"),
    Meaning(
        "recorded", "recorded", "a fact, as the label says (a payload shape, an order, a count): no verdict", "#f3ecd2", "#3d3520"
    ),
    Meaning(
        "error", "error", "the run could not be judged (the terminal could not be driven, an unknown shape)", "#5a5a5a", "#ffffff"
    ),
    Meaning("flaky", "flaky", "repeated runs of one version gave different labels", "#ffffff", "#000000"),
    Meaning(
        "ignored",
        "ignored",
        "the hook answered (deny, block, ask) but the CLI went on as if it had not: its control got the same label",
        "#f4b6d2",
        "#5c0a35",
    ),
]
BY_KEY = {m.key: m for m in MEANINGS}

# Every label a classifier in probes/classify/ spells out, by meaning; a label built from what
# was seen (session-start sources, counts such as 8-of-14-fired, a+b sequences) is a recorded
# fact. tests/test_page.py checks the classifiers' labels and every committed one land here.
LABELS = {
    "ran": {
        "allowed",
        "fail-open",
        "continued",
        "passed",
        "prompted-ran",
        "not-prompted-ran",
        "abandoned",
        "terminated",
        "killed",
        "exited",
        "orphaned",
        "grandchild-killed",
        "grandchild-orphaned",
        "bounded",
        "single-stop",
        "accepted",  # elicitation: the MCP server that asked got accept
    },
    "blocked": {"denied", "fail-closed", "blocked", "halted", "prompted-skipped", "not-prompted-skipped", "neither"}
    | {"no-progress"}  # background: what the hook gates never went on
    | {"declined", "cancelled"},  # elicitation: the MCP server that asked got decline or cancel
    "held": {"held", "held-by-stdout", "held-by-grandchild", "unbounded"},
    "reached": {"reached-verbatim", "reached-altered", "partly-reached", "rewritten"}
    | {"submitted-alone", "submitted-with-prompt"},  # submitted: a prompt hook's text sent as the person's
    "dropped": {"not-reached", "original"},
    "quiet": {"no-hook", "not-fired", "not-recorded", "no-subagent", "no-subagent-hooks", "no-stop"}
    | {"not-called", "skipped-before-connect"}  # mcp-order: an mcp_tool hook that never called its tool
    | {"not-submitted"}  # submitted: a prompt hook whose text never reached the model
    | {"not-asked", "no-answer"},  # elicitation: the MCP server never asked, or got no answer
    "error": {"could-not-drive", "no-server"},  # no-server: the CLI never initialised the probe MCP server
    # facts, named so that tests/test_page.py knows each label a classifier returns was placed
    "recorded": {"recorded", "fired", "serial", "parallel", "single", "closed", "open", "unread", "cli-at-root"}
    | {"project-root", "session-cwd", "other", "camelCase", "snake_case", "mixed", "both", "no-grandchild", "called"}
    | {"waited", "background-finished", "background-killed", "background-orphaned"},  # background: when, not whether
}
OF_LABEL = {label: key for key, labels in LABELS.items() for label in labels}
FLAKY = re.compile(r".+×\d+( / .+×\d+)+")  # Cell.label of a cell whose repeats disagree


def meaning_of(label: str) -> Meaning:
    """The class of a cell's label (the outcome, or a flaky cell's spread of outcomes)."""
    if FLAKY.fullmatch(label):
        return BY_KEY["flaky"]
    return BY_KEY[OF_LABEL.get(label.split(" ")[0], "recorded")]


def meaning_of_cell(cell: Cell) -> Meaning:
    """A cell's class: a verdict that the tool ran, which its control (a hook that does not
    answer) also got on this version, says the hook's answer was ignored, not that it allowed."""
    m = meaning_of(cell.label)
    return BY_KEY["ignored"] if cell.same_as_control and m.key == "ran" else m


def css() -> str:
    """One rule per class: the fills are fixed here, so the page and its legend agree."""
    rules = [f".m-{m.key}{{background:{m.fill};color:{m.ink}}}" for m in MEANINGS]
    rules.append(".m-flaky{background:repeating-linear-gradient(135deg,#f19b9b 0 4px,#9fd89f 4px 8px)}")
    return "\n".join(rules)
