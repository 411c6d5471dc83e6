"""The legend of the symbols and abbreviations cells hold (cells.py): those some cells show,
or every one (results/README.md); with each agent's claims list (the numbers the marks carry,
what each claim needs, why it is untested). tables.py renders them into results/README.md,
results/<agent>.md and the compact table; page.py into index.html."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

from probes.classify import CLASSIFIERS
from probes.evidence.claims import applies_recorded, verdict_of
from probes.evidence.load import Cell
from probes.report.cells import BOOL_WORDS, MARKS, NO_CONTROL, PLAIN_WORDS, UNEARNED, Classifiers, key_observation
from probes.report.width import wrap
from probes.versions.spec import semver_key

# What the key observation beside a label is, per observation (the registry's `key`s).
KEY_MEANS = {
    "reason_reached_model": "`{}`/`{}`: whether the hook's reason (or context) reached the model".format(
        *BOOL_WORDS["reason_reached_model"]
    ),
    "stop_invocations": "how many times the stop hook ran",
    "context_location": "the roles (`user`, `system`, `tool`, ...) of the messages the hook's text reached",
    "tool_args_type": "the JSON type of the tool's arguments in the pre-tool payload",
    "hook_cwd": "the hook's working directory, relative to the project root (`.`)",
    "progress_delay_s": "seconds from the hook's start until the session went on (the tool ran, the prompt "
    "reached the model, or the next request or the CLI's exit came)",
    "sigterm_to_death_s": "seconds from the CLI's SIGTERM to the hook's death",
    "grandchild_time_to_death_s": "seconds from the hook's start to its grandchild's death",
    "stdin_eof": "`{}`/`{}`: whether the hook saw the end of its input".format(*BOOL_WORDS["stdin_eof"]),
    "overlap_s": "seconds the first two hooks ran side by side",
    "gate_delay_s": "seconds from the hook's start until what it gates went on (the tool ran, the next model "
    "request or the CLI's exit), waited for or not",
    "roles": "the roles the submitted prompt hook's text reached the model as (user, system)",
}

# Each label form, what it means, and the labels it is (so a legend names only forms shown).
LABEL_FORMS = [
    ("`a×4 / b×1`", "a flaky cell (`probe run --repeat`): each label seen, with the times it was seen", r".+×\d+.*"),
    ("`N-of-M-fired`", "inventory: N of the M events hooked fired", r"\d+-of-\d+-fired"),
    ("`N-of-M-hooked`", "tool-names: N of the M tool kinds the model called reached a pre-tool hook", r"\d+-of-\d+-hooked"),
    (
        "`N-starts-M-prompts`",
        "lifecycle: session starts and prompt submits in one interactive session",
        r"\d+-starts-\d+-prompts",
    ),
    ("`a+b`", "what was seen, in order (subagent hooks, session-end reasons)", r"[^×]+\+[^×]+"),
    ("`held`", "the session's budget ran out with the tool (or the session) still waiting on the hook", r"held"),
    (
        "`held-by-stdout`",
        "grandchild: the hook exited, but the process it left holds its stdout open and the CLI waits "
        "on it: the tool never ran within the budget",
        r"held-by-stdout",
    ),
]

MARKS_MEANS = (
    "✓ the claim agrees with the run; ✗ it disagrees; ? untested: the run cannot show it "
    "either way (its budget is shorter than the duration the claim is about, it does not make the later "
    "call the claim is about, or it lacks a precondition such as an active trace; the reason is in the "
    "record and under Claims). When a recipe has several claims, each mark carries its number in the "
    "Claims list (`✓1 ?2`). Claims naming other versions get no mark."
)
UNEARNED_MEANS = (
    "same as control: the hook made no difference here (its control, which differs only in the hook's "
    "answer, got this label too), so the verdict is not earned: the hook was ignored, or the run could not tell"
)
NO_CONTROL_MEANS = "the recipe names a control that was not run on that version, so nothing says the verdict is earned"


@dataclass(frozen=True)
class Shown:
    """What some cells show, so a legend explains that and nothing else."""

    marks: frozenset[str]  # ✓ ✗ ?
    unearned: bool  # some cell is =ctl
    no_control: bool  # some cell is `no ctl`
    keys: list[tuple[str, str]]  # (key observation, classifier) shown beside some label, sorted
    forms: list[tuple[str, str]]  # (label form, meaning) some label has
    claims: bool  # a claims list is printed with them


def shown(cells: list[Cell], classifiers: Classifiers) -> Shown:
    keys = {
        (str(CLASSIFIERS[name].key), name)
        for c in cells
        if (name := classifiers.get(c.recipe)) in CLASSIFIERS and key_observation(c.record, name)
    }
    labels = {c.label for c in cells}
    return Shown(
        marks=frozenset(MARKS[verdict_of(k)] for c in cells for k in c.record.claims if applies_recorded(k)),
        unearned=any(c.same_as_control for c in cells),
        no_control=any(c.control_missing for c in cells),
        keys=sorted(keys),
        forms=[(f, m) for f, m, pattern in LABEL_FORMS if any(re.fullmatch(pattern, label) for label in labels)],
        claims=any(claims_list(cells, a) for a in sorted({c.agent for c in cells})),
    )


def everything(classifiers: Classifiers) -> Shown:
    """What a legend for any cell names (results/README.md): every classifier's key, every form."""
    names = set(classifiers.values())
    keys = sorted({(c.key, name) for name, c in CLASSIFIERS.items() if c.key and name in names})
    return Shown(frozenset(MARKS.values()), True, True, keys, [(f, m) for f, m, _ in LABEL_FORMS], True)


def legend(classifiers: Classifiers, cells: list[Cell] | None = None) -> str:
    """What the symbols and abbreviations in a cell mean (Markdown): those `cells` show, or
    (None) every one a cell may hold."""
    s = everything(classifiers) if cells is None else shown(cells, classifiers)
    lines = [
        "### Reading a cell",
        "",
        "A cell is `LABEL KEY MARKS`: the outcome label the recipe's classifier gave, its key observation, "
        "and a mark for each claim (what a doc or changelog says the recipe should find) that names this "
        "version; a range (`LABEL KEY MARKS FIRST-LAST`) is the same over its versions. An empty cell: the "
        "recipe was not run on that version (in the ranges, on that agent). A number ending in `s` is seconds.",
        "",
        *([f"- Marks: {MARKS_MEANS}"] if s.marks else []),
        *([f"- `{UNEARNED}` after a label: {UNEARNED_MEANS}."] if s.unearned else []),
        *([f"- `{NO_CONTROL}` after a label: {NO_CONTROL_MEANS}."] if s.no_control else []),
        *[f"- `{key}` ({name}): {KEY_MEANS.get(key, key)}" for key, name in s.keys],
        *[f"- {form}: {means}" for form, means in s.forms],
        *(
            [
                "- Claims (under each agent's tables): `#` the number a mark carries; `versions` the versions the "
                "claim names (every version when empty); `needs` what a run must have to decide it (a budget at least "
                "as long as the duration it is about, a number of tool calls, a precondition: `trace` an active "
                "OpenTelemetry trace, `extension-status` an extension's status, which no run records, `hooks-untrusted` "
                "hooks nobody trusted ahead, which a `permissions=trusted-hash` run lacks); `untested "
                "because` why the runs of versions it names could not decide it."
            ]
            if s.claims
            else []
        ),
    ]
    return "\n".join(lines) + "\n"


def compact_legend(classifiers: Classifiers, cells: list[Cell], boundaries: set[str], width: int | None) -> str:
    """The legend of the compact table (tables.compact): plain text, the symbols shown only,
    each wrapped to `width`."""
    s = shown(cells, classifiers)
    out = []
    if s.marks:
        said = {"✓": "✓ a doc's claim agrees with the run", "✗": "✗ it disagrees", "?": "? the run cannot tell"}
        out.append("; ".join(said[m] for m in MARKS.values() if m in s.marks) + " (the claims and why: --wide).")
    if boundaries:
        said = {"|": "| exact boundary (no release between)", "…": "… open (unprobed releases between: probe bisect finds it)"}
        out.append("; ".join(said[b] for b in ("|", "…") if b in boundaries) + ".")
    if s.unearned:
        out.append(f"{PLAIN_WORDS[UNEARNED]}: {UNEARNED_MEANS.removeprefix('same as control: ')}.")
    if s.no_control:
        out.append(f"{PLAIN_WORDS[NO_CONTROL]}: {NO_CONTROL_MEANS}.")
    out += [f"{key} ({name}): {KEY_MEANS.get(key, key)}." for key, name in s.keys]
    out += [f"{form}: {means}." for form, means in s.forms]
    return "\n".join(wrap(line.replace("`", ""), width, indent="    ") for line in out)


def claims_list(cells: list[Cell], agent: str) -> list[list[str]]:
    """Each recipe's claims for the agent, numbered as the marks are, with what each needs and
    why it is untested where it applies and is untested."""
    rows = []
    latest: dict[str, Cell] = {}
    for c in sorted((c for c in cells if c.agent == agent), key=lambda c: semver_key(c.version)):
        latest[c.recipe] = c  # the recipe's claims as its newest record states them
    for recipe, cell in sorted(latest.items()):
        for n, claim in enumerate(cell.record.claims, 1):
            why = sorted(
                {
                    str(o.get("reason"))
                    for o in (
                        other.record.claims[n - 1]
                        for other in cells
                        if other.agent == agent and other.recipe == recipe and len(other.record.claims) >= n
                    )
                    if applies_recorded(o) and verdict_of(o) == "untested"
                }
            )
            versions = " ".join(f"{w} {claim[k]}" for k, w in (("since", "from"), ("until", "to")) if claim.get(k))
            rows.append([recipe, str(n), str(claim["source"]), str(claim["says"]), versions, needs_text(claim), "; ".join(why)])
    return rows


def needs_text(claim: Mapping[str, object]) -> str:
    needs = claim.get("needs")
    if not isinstance(needs, dict):
        return ""
    out = []
    if needs.get("budget_s") is not None:
        out.append(f"a {needs['budget_s']:g} s budget")
    if needs.get("tool_calls") is not None:
        out.append(f"{needs['tool_calls']} tool calls")
    if needs.get("precondition"):
        out.append(str(needs["precondition"]))
    return ", ".join(out)


CLAIM_HEADERS = ["recipe", "#", "source", "says", "versions", "needs", "untested because"]


def legend_html(classifiers: Classifiers, cells: list[Cell] | None = None) -> str:
    """The legend (Markdown: a heading, paragraphs, a list, `code`) as HTML."""
    out, items = [], []
    for line in legend(classifiers, cells).splitlines():
        text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(line))
        if line.startswith("- "):
            items.append(f"<li>{text[2:]}</li>")
        elif line.startswith("### "):
            out.append(f"<h2>{text[4:]}</h2>")
        elif line:
            out.append(f"<p>{text}</p>")
    return '<section id="legend">' + "".join(out) + f"<ul>{''.join(items)}</ul></section>"
