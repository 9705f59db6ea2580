"""Every method answers over a REAL local model server: llama.cpp's llama-server with the packaged
Gemma 3 270M, started by kgtool's own code (`kgtool llm serve`'s LocalLLMServer, the build cached
under the runtime directory; the first run on a machine builds it).

Kept small: one question per method, the 270M model on a busy 2-core machine. A 270M base model
is not expected to answer right; what is tested is that every run closes (answered, unverified
or no_answer, never failed or running), that structured output was used for every call, that
the tokens stored on the Run are the tokens the server counted, and that `kgtool llm check`
reports what this server supports.
"""
from __future__ import annotations

import json
import re
import urllib.request

import pytest
from click.testing import CliRunner

from helpers import SAMPLE

from kgtool.config import Settings

QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"
METHODS = ("care", "c2rag", "reagent", "safe", "vog")


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory, neo4j_settings):
    from kgtool.graph.server import free_port
    from kgtool.models.llm_server import LocalLLMServer

    settings = Settings(home=tmp_path_factory.mktemp("llm-home"), runtime_dir=neo4j_settings.runtime_dir,
                        llm_server_port=free_port())
    server = LocalLLMServer(settings)
    try:
        state = server.start("packaged", timeout=3600)
    except Exception as exc:  # the message carries the server log's tail
        server.stop()
        pytest.fail(f"the local LLM server could not start: {exc}", pytrace=False)
    yield state
    server.stop()


@pytest.fixture(scope="module")
def llm_graph(kg_session, local_llm, tmp_path_factory):
    from kgtool.api import KnowledgeGraph

    kg_session.clear()
    kg_session.ingest_edits(SAMPLE / "edits.jsonl")
    settings = Settings(**{**kg_session.settings.__dict__, "home": tmp_path_factory.mktemp("llm-answers"),
                           "llm_base_url": local_llm.base_url, "llm_model": local_llm.model, "llm_timeout": 180.0,
                           "llm_max_retries": 1})
    return KnowledgeGraph(kg_session.db, settings)


def server_tokens(base_url: str) -> tuple[int, int]:
    """(prompt, completion) tokens the server has counted since it started (its /metrics): prompt
    tokens processed plus those it reused from its cache, and generated tokens."""
    root = re.sub(r"/v1$", "", base_url)
    with urllib.request.urlopen(f"{root}/metrics", timeout=10) as response:
        text = response.read().decode()
    values = {}
    for name in ("prompt_tokens_total", "prompt_tokens_cached_total", "tokens_predicted_total"):
        match = re.search(rf"^llamacpp:{name}\s+([0-9.e+]+)$", text, re.MULTILINE)
        assert match, f"the server's /metrics has no llamacpp:{name}"
        values[name] = int(float(match.group(1)))
    return values["prompt_tokens_total"] + values["prompt_tokens_cached_total"], values["tokens_predicted_total"]


@pytest.mark.parametrize("method", METHODS)
def test_each_method_answers_over_the_real_local_server(llm_graph, local_llm, method):
    kg = llm_graph
    before = server_tokens(local_llm.base_url)
    result = kg.answer(QUESTION, method=method, agents="llm")
    after = server_tokens(local_llm.base_url)
    assert result.status in ("answered", "unverified", "no_answer")
    _, rows = kg.query(
        "MATCH (r:Run {id: $id}) RETURN r.status AS status, r.tokens AS tokens, r.prompt_tokens AS prompt, "
        "r.completion_tokens AS completion, r.llm_calls AS calls, r.llm_structured_calls AS structured, "
        "r.llm_role_fallbacks AS fallbacks, r.llm_unusable_replies AS unusable", {"id": result.run_id})
    (run,) = rows
    assert run["status"] == result.status  # closed: not running, not failed
    assert run["calls"] >= 1, "the method made no model call"
    assert run["structured"] == run["calls"], "every call should have sent its JSON schema"
    # the Run's tokens are the server's own count of this answer's tokens
    assert (run["prompt"], run["completion"]) == (after[0] - before[0], after[1] - before[1])
    assert run["tokens"] == result.tokens == run["prompt"] + run["completion"] > 0
    # with the schema enforced by the server, replies always parse; what is left is content the checks refuse
    print(f"{method}: {result.status} {result.answer!r} calls={run['calls']} unusable={run['unusable']} "
          f"fallbacks={run['fallbacks']} tokens={run['tokens']}")


def test_llm_check_reports_the_local_servers_capabilities(local_llm):
    from kgtool.cli import main

    result = CliRunner().invoke(main, ["llm", "check", "--base-url", local_llm.base_url, "--timeout", "180"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert local_llm.model in out
    assert re.search(r"response_format json_schema\s*│\s*enforced", out), out
    assert re.search(r"response_format json_object\s*│\s*enforced", out), out
    assert re.search(r"context length\s*│\s*\d+ tokens", out), out
    assert re.search(r"generation speed\s*│\s*[0-9.]+ tokens/s", out), out


def test_llm_check_reports_a_stub_that_ignores_structured_output(stub_llm):
    from kgtool.cli import main

    stub_llm.default = "yes"
    result = CliRunner().invoke(main, ["llm", "check", "--base-url", stub_llm.base_url, "--model", "stub-model"])
    assert result.exit_code == 0, result.output
    assert re.search(r"response_format json_schema\s*│\s*ignored", result.output), result.output
    assert re.search(r"output form used\s*│\s*text", result.output)
    assert re.search(r"context length\s*│\s*not reported", result.output)
    stub_llm.formats.update(json_schema="enforce", json_object="refuse")
    stub_llm.context = 2048
    result = CliRunner().invoke(main, ["llm", "check", "--base-url", stub_llm.base_url, "--model", "stub-model"])
    assert re.search(r"response_format json_schema\s*│\s*enforced", result.output), result.output
    assert re.search(r"response_format json_object\s*│\s*refused \(HTTP 400\)", result.output)
    assert re.search(r"context length\s*│\s*2048 tokens", result.output)
    assert json.dumps(stub_llm.requests[-1].body["max_tokens"])  # the timed call is bounded


def test_the_server_keeps_each_roles_prompt_prefix_while_roles_take_turns(local_llm):
    """A method's roles alternate, each with its own fixed system prompt: with one slot (or a
    sliding-window cache that drops the prefix) every turn re-read its whole prompt."""
    root = re.sub(r"/v1$", "", local_llm.base_url)
    systems = [f"ROLE: {role}\n" + " ".join(f"Rule {i}: the {role} writes {i} careful words." for i in range(40))
               for role in ("planner", "critic", "selector")]

    def timings(system: str, user: str) -> dict:
        body = {"model": local_llm.model, "temperature": 0, "max_tokens": 2,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        request = urllib.request.Request(f"{root}/v1/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=180) as response:
            return json.loads(response.read())["timings"]

    first = [timings(system, "first task") for system in systems]
    again = [timings(system, "another task") for system in systems]
    for before, after in zip(first, again):
        assert before["prompt_n"] > 300  # the whole prompt was read the first time
        # the second turn of each role reads only its new task: the system prompt came from the cache
        assert after["cache_n"] >= before["prompt_n"] - 10 and after["prompt_n"] < 20, (before, after)
