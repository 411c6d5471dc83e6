"""A script's error step: the request (and each retry of it) is answered with an HTTP error in
its dialect's shape, and logged like any other reply."""

from __future__ import annotations

import json
import urllib.error

import pytest
from pydantic import ValidationError

from probes.catalog.parts import Step
from probes.pipeline.plan import script
from tests.helpers import AnyAgentModel as ScriptedModel
from tests.helpers import log_entries, request

TOOLS = {
    "/v1/messages": [{"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}],
    "/v1/chat/completions": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
    "/v1/responses": [{"type": "function", "name": "shell", "parameters": {"type": "object"}}],
}


@pytest.fixture
def server(tmp_path):
    started: list[ScriptedModel] = []

    def start(steps):
        started.append(ScriptedModel(steps, tmp_path / "model.jsonl").__enter__())
        return started[-1]

    yield start
    for model in started:
        model.__exit__(None, None, None)


def answered(port, path, body):
    """(status, JSON body) of a request the model answers with an error."""
    with pytest.raises(urllib.error.HTTPError) as err:
        request(port, path, body)
    return err.value.code, json.loads(err.value.read())


def test_an_error_step_is_a_turn_of_its_own_kind():
    (step,) = script([Step(error={"status": 529})])
    assert step == {"error": {"status": 529, "message": "probe: scripted API error"}}
    assert Step.model_validate({"error": {"status": 400, "type": "invalid_request_error", "message": "x"}}).error is not None
    for bad in ({"error": {"status": 200}}, {"error": {"status": 500}, "text": "done"}, {"error": {"code": 500}}):
        with pytest.raises(ValidationError):
            Step.model_validate(bad)


@pytest.mark.parametrize(
    ("path", "stream", "expected"),
    [
        ("/v1/messages", True, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
        ("/v1/chat/completions", False, {"error": {"message": "busy", "type": "overloaded_error", "param": None, "code": None}}),
        ("/v1/responses", True, {"error": {"message": "busy", "type": "overloaded_error", "param": None, "code": None}}),
    ],
)
def test_each_dialect_answers_the_error_in_its_shape(server, path, stream, expected):
    model = server([{"error": {"status": 529, "message": "busy"}}, {"text": "done"}])
    body = {"model": "m", "stream": stream, "tools": TOOLS[path], "messages": [{"role": "user", "content": "go"}]}
    if path.endswith("/responses"):
        body = {
            "model": "m",
            "stream": stream,
            "tools": TOOLS[path],
            "input": [{"type": "message", "role": "user", "content": "go"}],
        }
    assert answered(model.port, path, body) == (529, expected)
    assert answered(model.port, path, body) == (529, expected)  # a retry: the same turn, the same error
    replies = [e["reply"] for e in log_entries(model)]
    assert replies == [{"error": {"status": 529, "message": "busy"}, "turn": 0}] * 2


def test_the_type_follows_the_status_unless_the_step_names_one(server):
    model = server([{"error": {"status": 429, "message": "slow down"}}])
    body = {"model": "m", "tools": TOOLS["/v1/messages"], "messages": [{"role": "user", "content": "go"}]}
    assert answered(model.port, "/v1/messages", body)[1]["error"]["type"] == "rate_limit_error"
    model = server([{"error": {"status": 400, "type": "billing_error", "message": "no credit"}}])
    assert answered(model.port, "/v1/messages", body)[1]["error"] == {"type": "billing_error", "message": "no credit"}


def test_gemini_gets_a_google_rpc_status(server):
    model = server([{"error": {"status": 429, "message": "quota"}}])
    tools = [{"functionDeclarations": [{"name": "run_shell_command", "parameters": {"type": "object"}}]}]
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": tools}
    status, sent = answered(model.port, "/v1beta/models/m:streamGenerateContent?alt=sse", body)
    assert (status, sent) == (429, {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})


def test_a_request_without_tools_is_not_a_turn_and_gets_no_error(server):
    model = server([{"error": {"status": 500}}])
    status, _, raw = request(model.port, "/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "title?"}]})
    assert status == 200 and json.loads(raw)["content"][0]["text"] == "ok"
