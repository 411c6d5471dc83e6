"""The legend of every symbol and abbreviation a cell may hold (cells.py), with each agent's
claims list (the numbers the marks carry, what each claim needs, why it is untested).
tables.py renders them into results/README.md and results/<agent>.md, page.py into index.html."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from probes.classify import CLASSIFIERS
from probes.evidence.claims import applies_recorded, verdict_of
from probes.evidence.load import Cell
from probes.report.cells import Classifiers
from probes.versions.spec import semver_key

# What the key observation beside a label is, per observation (the registry's `key`s).
KEY_MEANS = {
    "reason_reached_model": "`reason yes`/`reason no`: the hook's reason (or context) reached the model",
    "stop_invocations": "how many times the stop hook ran",
    "context_location": "the roles (`user`, `system`, `tool`, ...) of the messages the hook's text reached",
    "tool_args_type": "the JSON type of the tool's arguments in the pre-tool payload",
    "hook_cwd": "the hook's working directory, relative to the project root (`.`)",
    "progress_delay_s": "seconds from the hook's start until the session went on (the tool ran, the prompt "
    "reached the model, or the next request or the CLI's exit came)",
    "sigterm_to_death_s": "seconds from the CLI's SIGTERM to the hook's death",
    "grandchild_time_to_death_s": "seconds from the hook's start to its grandchild's death",
    "stdin_eof": "`stdin yes`/`stdin no`: the hook saw the end of its input",
    "overlap_s": "seconds the first two hooks ran side by side",
}

LABEL_FORMS = [
    ("`a×4 / b×1`", "a flaky cell (`probe run --repeat`): each label seen, with the times it was seen"),
    ("`N-of-M-fired`", "inventory: N of the M events hooked fired"),
    ("`N-of-M-hooked`", "tool-names: N of the M tool kinds the model called reached a pre-tool hook"),
    ("`N-starts-M-prompts`", "lifecycle: session starts and prompt submits in one interactive session"),
    ("`a+b`", "what was seen, in order (subagent hooks, session-end reasons)"),
    ("`held`", "the session's budget ran out with the tool (or the session) still waiting on the hook"),
    (
        "`held-by-stdout`",
        "grandchild: the hook exited, but the process it left holds its stdout open and the CLI waits "
        "on it: the tool never ran within the budget",
    ),
]


def legend(classifiers: Classifiers) -> str:
    """What every symbol and abbreviation in a cell means (Markdown)."""
    keys = sorted({(c.key, name) for name, c in CLASSIFIERS.items() if c.key and name in set(classifiers.values())})
    lines = [
        "### Reading a cell",
        "",
        "A cell is `LABEL KEY MARKS`: the outcome label the recipe's classifier gave, its key observation, "
        "and a mark for each claim (what a doc or changelog says the recipe should find) that names this "
        "version; a range (`LABEL KEY MARKS FIRST-LAST`) is the same over its versions. An empty cell: the "
        "recipe was not run on that version (in the ranges, on that agent). A number ending in `s` is seconds.",
        "",
        "- Marks: ✓ the claim agrees with the run; ✗ it disagrees; ? untested: the run cannot show it "
        "either way (its budget is shorter than the duration the claim is about, it does not make the later "
        "call the claim is about, or it lacks a precondition such as an active trace; the reason is in the "
        "record and under Claims). When a recipe has several claims, each mark carries its number in the "
        "Claims list (`✓1 ?2`). Claims naming other versions get no mark.",
        "- `=ctl` after a label: the recipe's control got the same label on that version, so the verdict is "
        "not earned: the hook's answer made no difference there (ignored, or the run could not tell); "
        "`no ctl`: the recipe names a control that was not run on that version, so nothing says the verdict is earned.",
        *[f"- `{key}` ({name}): {KEY_MEANS.get(key, key)}" for key, name in keys],
        *[f"- {form}: {means}" for form, means in LABEL_FORMS],
        "- Claims (under each agent's tables): `#` the number a mark carries; `versions` the versions the "
        "claim names (every version when empty); `needs` what a run must have to decide it (a budget at least "
        "as long as the duration it is about, a number of tool calls, a precondition: `trace` an active "
        "OpenTelemetry trace, `extension-status` an extension's status, which no run records, `hooks-untrusted` "
        "hooks nobody trusted ahead, which a `permissions=trusted-hash` run lacks); `untested "
        "because` why the runs of versions it names could not decide it.",
    ]
    return "\n".join(lines) + "\n"


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


def legend_html(classifiers: Classifiers) -> str:
    """The legend (Markdown: a heading, paragraphs, a list, `code`) as HTML."""
    out, items = [], []
    for line in legend(classifiers).splitlines():
        text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(line))
        if line.startswith("- "):
            items.append(f"<li>{text[2:]}</li>")
        elif line.startswith("### "):
            out.append(f"<h2>{text[4:]}</h2>")
        elif line:
            out.append(f"<p>{text}</p>")
    return '<section id="legend">' + "".join(out) + f"<ul>{''.join(items)}</ul></section>"
