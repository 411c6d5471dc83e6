"""Per-run values as stable names (probes/pipeline/normalise.py): what a re-run would change that is
not a measurement is written the same every time, and equal ids stay equal."""

from __future__ import annotations

import json

from probes.evidence.model import SCHEMA_VERSION, upgrade
from probes.pipeline.normalise import hook_python, known_values, normalise, slug
from tests.helpers import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "evidence-v1"
RUN = "/tmp/probe-run-ab_9x2kq"
RUN_ID = "2d8e8cacbfd54f87b1982a5eafd64cfd"
SESSION = "853d49f4-f889-4685-923a-0ce121200f66"
PROMPT = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"


def claude_invocation(session: str = SESSION) -> dict:
    """A Claude hook invocation as collected, after $RUN was written (collect.scrub)."""
    return {
        "env": {
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:39477",
            "CLAUDE_CODE_SESSION_ID": session,
            "CLAUDE_CODE_CHILD_NOTES_DIR": f"$RUN/tmp/claude-0/{slug(RUN)}-workspace/{session}/started",
            "PROBE_RUN_ID": RUN_ID,
            "_": "/opt/venv/bin/python3",
        },
        "payload": {
            "session_id": session,
            "prompt_id": PROMPT,
            "tool_use_id": "toolu_00cfada3aa484800a79f",
            "transcript_path": f"$RUN/home/.claude/projects/{slug(RUN)}-workspace/{session}.jsonl",
        },
        "argv": ["/opt/venv/bin/python3", "-S", "$RUN/bin/hook.py", "2-pre_tool"],
        "pid": 25,
        "start_offset_s": 0.461,
    }


def test_the_run_directorys_other_spellings_and_the_run_id_get_names():
    out = normalise(claude_invocation(), known_values(RUN, RUN_ID, "/opt/venv/bin/python3"))
    assert out["env"]["CLAUDE_CODE_CHILD_NOTES_DIR"] == "$RUN/tmp/claude-0/$RUN_SLUG-workspace/$UUID_1/started"
    assert out["payload"]["transcript_path"] == "$RUN/home/.claude/projects/$RUN_SLUG-workspace/$UUID_1.jsonl"
    assert out["env"]["PROBE_RUN_ID"] == "$RUN_ID"
    assert out["env"]["_"] == "$PYTHON" and out["argv"][0] == "$PYTHON"
    assert out["env"]["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:$PORT"
    assert "probe-run-" not in json.dumps(out)


def test_ids_are_numbered_by_first_appearance_and_equal_ids_stay_equal():
    """Sorted-key order: env (CLAUDE_CODE_SESSION_ID) comes before payload (prompt_id)."""
    out = normalise(claude_invocation(), known_values(RUN, RUN_ID, None))
    assert out["env"]["CLAUDE_CODE_SESSION_ID"] == out["payload"]["session_id"] == "$UUID_1"
    assert out["payload"]["prompt_id"] == "$UUID_2"
    assert out["payload"]["tool_use_id"] == "$CALL_1"
    # two sessions (a resume): two names, each used wherever its id is
    two = normalise([claude_invocation(), claude_invocation(PROMPT)], {})
    assert two[0]["payload"]["session_id"] == "$UUID_1" and two[1]["payload"]["session_id"] == "$UUID_2"
    assert two[1]["payload"]["prompt_id"] == "$UUID_2"  # the same id as the second session: the same name


def test_a_rerun_with_other_random_values_normalises_to_the_same_bytes():
    def run(root: str, run_id: str, session: str, port: int, call: str) -> str:
        inv = json.loads(json.dumps(claude_invocation(session)).replace(slug(RUN), slug(root)))
        inv["env"]["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
        inv["env"]["PROBE_RUN_ID"] = run_id
        inv["payload"]["tool_use_id"] = call
        return json.dumps(normalise(inv, known_values(root, run_id, "/opt/venv/bin/python3")), sort_keys=True)

    first = run(RUN, RUN_ID, SESSION, 39477, "toolu_00cfada3aa484800a79f")
    again = run("/tmp/probe-run-zz0_1k3m", "f" * 32, "11111111-2222-4333-8444-555555555555", 40123, "toolu_" + "9" * 20)
    assert first == again


def test_the_other_shapes_get_names():
    text = (
        "traceparent 00-5b3aedec896b48ee3480f1560a5d5675-dc97ea33201f4e80-01; agent a31033d1b5246db68 "
        "(agent-a31033d1b5246db68.jsonl); call_cd06e0ab4859, msg_0123456789abcdef0123, chatcmpl-0123456789ab; "
        "Recent commits:\nba8e29b probe workspace\n; left over: probe-run-ab_9x2kq; ports localhost:8080 127.0.0.1:39477"
    )
    assert normalise(text, {}) == (
        "traceparent $TRACE_1; agent $AGENT_1 (agent-$AGENT_1.jsonl); $CALL_1, $MSG_1, $MSG_2; "
        "Recent commits:\n$WORKSPACE_COMMIT probe workspace\n; left over: $RUN_NAME; ports localhost:$PORT 127.0.0.1:$PORT_2"
    )


def test_a_known_workspace_commit_is_named_in_any_abbreviation():
    commit = "ba8e29b1c0ffee0123456789abcdef0123456789"
    out = normalise({"a": f"HEAD is {commit}", "b": "git log: ba8e29b1c first", "c": "ba8e29"}, {}, commit)
    assert out == {"a": "HEAD is $WORKSPACE_COMMIT", "b": "git log: $WORKSPACE_COMMIT first", "c": "ba8e29"}


def test_what_is_not_a_per_run_value_is_left_alone():
    data = {
        "numbers": [3, 0.461, "2026-11-30T02:39:52.840Z"],
        "words": "sha256:99e9bc93acf4e4cc761da0c22df818ad9039575cca57d61880d2e96e1c1bdd2e is not a UUID",
        "version": "claude-cli/2.1.328 (external, sdk-cli)",
        "hex": "a31033d1b5246db68ff",  # too long for an agent id
        "PROBE-EXIT2-REASON": "kept",
    }
    assert normalise(data, {}) == data


def test_keys_keep_their_order_and_normalising_twice_changes_nothing():
    data = {"z": SESSION, "a": [PROMPT, SESSION], SESSION: 1}
    once = normalise(data, {})
    assert list(once) == ["z", "a", "$UUID_1"]  # its own order
    assert once == {"z": "$UUID_1", "a": ["$UUID_2", "$UUID_1"], "$UUID_1": 1}  # numbered in sorted order
    assert normalise(once, {}) == once


def test_the_hooks_interpreter_is_read_off_a_record():
    invocations = [{"env": {}}, {"env": {"_": "/tmp/venv/bin/python3"}}]
    assert hook_python({"invocations": invocations}) == "/tmp/venv/bin/python3"
    assert hook_python({"invocations": [{"env": {"_": "/usr/bin/env"}}, {"env": {"_": "$PYTHON"}}]}) is None
    quoted = 'Stop hook blocking error from command: "/opt/v/bin/python3.11 -S -E -s $RUN/bin/hook.py 0-stop": no'
    assert hook_python({"invocations": [], "cli": {"stdout_tail": quoted}}) == "/opt/v/bin/python3.11"


def test_a_version_1_record_upgrades_to_stable_names():
    for path in sorted(FIXTURES.glob("*/*/*.json")):
        v1 = json.loads(path.read_text())
        v2 = upgrade(v1)
        text = json.dumps({k: v for k, v in v2.items() if k != "run_id"})
        assert v2["schema_version"] == SCHEMA_VERSION and v1["schema_version"] == 1
        assert "-tmp-probe-run-" not in text and "/tmp/venv/bin/python3" not in text, path
        assert v1["run_id"] not in text and v2["run_id"] == v1["run_id"]  # the identity stays, once
        assert "$UUID_1" in text and ("127.0.0.1:$PORT" in text or v1["agent"] != "claude")
        assert upgrade(v2) == v2


def test_qwen_codes_own_tool_ids_and_model_identity_get_names():
    """Qwen Code names a tool call itself (toolu_<ms>_<random>) and hashes its model's
    configuration into QWEN_CODE_MODEL_IDENTITY: both differ per run."""

    def run(call: str, identity: str) -> dict:
        return {"payload": {"tool_use_id": call}, "env": {"QWEN_CODE_MODEL_IDENTITY": f"probe-model@{identity}"}}

    first = normalise(run("toolu_1796199997285_4yg7agjrj", "1574aca4"), {})
    assert first == {"payload": {"tool_use_id": "$CALL_1"}, "env": {"QWEN_CODE_MODEL_IDENTITY": "probe-model@$MODEL_ID"}}
    assert normalise(run("toolu_1796201089099_n0rrw039s", "7589414f"), {}) == first
    assert normalise(first, {}) == first


def test_claude_codes_billing_line_hashes_get_names():
    """The line Claude Code puts at the top of its system prompt carries two hashes that
    differ per request: named, the system prompt of one release is one blob, not one a record."""

    def prompt(build: str, cch: str) -> list[str]:
        return [f"x-anthropic-billing-header: cc_version=2.1.150.{build}; cc_entrypoint=cli; cch={cch};\nYou are Claude Code"]

    first = normalise(prompt("cb5", "9dafa"), {})
    assert first == ["x-anthropic-billing-header: cc_version=2.1.150.$CC_HASH; cc_entrypoint=cli; cch=$CCH;\nYou are Claude Code"]
    assert normalise(prompt("1ad", "00000"), {}) == first and normalise(first, {}) == first
    assert normalise(["a cch=9dafa; elsewhere"], {}) == ["a cch=9dafa; elsewhere"]  # not the billing line: left
