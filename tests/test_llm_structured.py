"""The LLM client's structured output against the HTTP stub: schemas sent and checked, output forms
found out per endpoint, copied template text rejected, length bounds, cache keys, per-role options."""
from __future__ import annotations

import json

import pytest

from kgtool.models import llm_probe
from kgtool.models.llm import UnusableReplyError
from kgtool.models.llm_reply import fit_user_message, reply_token_budget
from kgtool.reason.prompts import care
from kgtool.reason.prompts.spec import PromptSpec

try:
    from stub_llm import Reply, make_client, stub_llm, stub_settings  # noqa: F401
except ImportError:  # tests/ imported as a package
    from tests.stub_llm import Reply, make_client, stub_llm, stub_settings  # noqa: F401

QUESTION = "Who is the spouse of the head of state of Valdoria?"
PLAN = {"topic": "Valdoria", "subquestions": ["Who is the head of state of Valdoria?", "Who is the spouse of [ENT]?"]}


def test_the_reply_schema_is_sent_as_response_format_with_max_tokens(stub_llm, stub_settings):
    stub_llm.script(json.dumps(PLAN))
    client = make_client(stub_settings)
    plan = client.ask(care.planner_prompt(QUESTION))
    assert plan.topic == "Valdoria" and len(plan.subquestions) == 2
    (request,) = stub_llm.requests
    sent = request.body["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "planner"
    assert sent["json_schema"]["schema"] == care.PLAN_SCHEMA
    assert request.body["max_tokens"] == reply_token_budget(care.PLAN_SCHEMA) < 2048
    assert client.usage.structured_calls == 1 and client.usage.calls == 1


def test_a_reply_breaking_the_schema_is_reasked_with_the_schema_problem(stub_llm, stub_settings):
    stub_llm.script(json.dumps({"topic": "Valdoria", "subquestions": []}), json.dumps(PLAN))
    client = make_client(stub_settings)
    assert client.ask(care.planner_prompt(QUESTION)).topic == "Valdoria"
    second = stub_llm.requests[1].messages[1]["content"]
    assert "subquestions" in second and "could not be used" in second
    stub_llm.script(json.dumps({"topic": "Valdoria", "subquestions": "Who?"}), json.dumps(PLAN))
    make_client(stub_settings, cache=False).ask(care.planner_prompt(QUESTION))
    assert "subquestions: must be array, not str" in stub_llm.requests[-1].messages[1]["content"]
    assert client.usage.reasks == 1


def test_an_example_plan_copied_from_the_prompt_is_rejected(stub_llm, stub_settings):
    # the planner prompt's own example, topic and all: valid shape, wrong question
    copied = {"topic": "Walkman", "subquestions": ["Which company makes the Walkman?",
                                                   "In which city are the headquarters of [ENT]?"]}
    stub_llm.default = json.dumps(copied)
    client = make_client(stub_settings)
    with pytest.raises(UnusableReplyError) as info:
        client.ask(care.planner_prompt(QUESTION))
    assert info.value.role == "planner" and "copied from the instructions" in info.value.problem
    assert client.usage.unusable_replies == 2
    assert client.usage.unparseable_replies == 0  # well-formed JSON, refused for its content


def test_replies_that_are_not_json_of_the_schema_are_counted_unparseable(stub_llm, stub_settings):
    # prose, then JSON of the wrong types: both unparseable; then a plan the checks take
    stub_llm.script("Sure! The plan is below.", json.dumps({"topic": "Valdoria", "subquestions": "Who?"}),
                    json.dumps(PLAN))
    client = make_client(stub_settings, cache=False)
    with pytest.raises(UnusableReplyError):
        client.ask(care.planner_prompt(QUESTION))
    assert client.usage.unusable_replies == client.usage.unparseable_replies == 2
    assert client.ask(care.planner_prompt(QUESTION)).topic == "Valdoria"
    assert client.usage.unparseable_replies == 2 and client.usage.calls == 3


def test_template_text_is_rejected_and_a_failed_reply_is_never_cached(stub_llm, stub_settings):
    template = {"topic": "Valdoria", "subquestions": ["<hop 1>", "<hop 2 with [ENT]>"]}
    stub_llm.script(json.dumps(template), json.dumps(template), json.dumps(PLAN))
    client = make_client(stub_settings)
    with pytest.raises(UnusableReplyError, match="template text"):
        client.ask(care.planner_prompt(QUESTION))
    # asked again: nothing of the failed attempt was cached, so the endpoint answers anew
    assert client.ask(care.planner_prompt(QUESTION)).topic == "Valdoria"
    assert len(stub_llm.requests) == 3
    assert client.ask(care.planner_prompt(QUESTION)).topic == "Valdoria"  # this one is cached
    assert len(stub_llm.requests) == 3 and client.usage.cached_calls == 1


def test_a_topic_the_question_does_not_name_is_rejected(stub_llm, stub_settings):
    stub_llm.default = json.dumps({"topic": "Don Quixote", "subquestions": ["Who wrote Don Quixote?"]})
    with pytest.raises(UnusableReplyError, match="does not name"):
        make_client(stub_settings).ask(care.planner_prompt(QUESTION))


def test_a_refused_json_schema_steps_down_once_per_endpoint_and_is_counted(stub_llm, stub_settings):
    stub_llm.formats["json_schema"] = "refuse"
    stub_llm.default = json.dumps(PLAN)
    client = make_client(stub_settings)
    client.ask(care.planner_prompt(QUESTION))
    forms = [(r.body.get("response_format") or {}).get("type") for r in stub_llm.requests]
    assert forms == ["json_schema", "json_object"]
    assert client.usage.format_fallbacks == 1 and client.usage.structured_calls == 0
    # another client of the same endpoint and model knows already
    other = make_client(stub_settings, cache=False)
    other.ask(care.planner_prompt(QUESTION))
    assert (stub_llm.requests[-1].body.get("response_format") or {}).get("type") == "json_object"
    assert other.output_form() == "json_object" and other.usage.format_fallbacks == 0


def test_an_endpoint_refusing_every_form_gets_plain_text(stub_llm, stub_settings):
    stub_llm.formats.update(json_schema="refuse", json_object="refuse")
    stub_llm.default = "Here is the plan: " + json.dumps(PLAN)
    client = make_client(stub_settings)
    assert client.ask(care.planner_prompt(QUESTION)).topic == "Valdoria"
    assert "response_format" not in stub_llm.requests[-1].body
    assert client.usage.format_fallbacks == 2


def test_a_forced_text_form_sends_no_response_format(stub_llm, tmp_path):
    settings = stub_llm.settings(tmp_path, llm_output_form="text")
    stub_llm.default = json.dumps(PLAN)
    make_client(settings).ask(care.planner_prompt(QUESTION))
    assert "response_format" not in stub_llm.requests[0].body


def test_the_cache_key_includes_the_endpoint_and_request_options(stub_llm, tmp_path):
    stub_llm.default = json.dumps(PLAN)
    spec = care.planner_prompt(QUESTION)
    make_client(stub_llm.settings(tmp_path)).ask(spec)
    make_client(stub_llm.settings(tmp_path, llm_roles={"planner": {"temperature": 0.7}})).ask(spec)
    # same home (same cache), other temperature: asked again, at that temperature
    assert [r.body["temperature"] for r in stub_llm.requests] == [0, 0.7]
    with_schema = PromptSpec(spec.role, spec.system, spec.user, spec.validate, {**care.PLAN_SCHEMA, "title": "x"})
    make_client(stub_llm.settings(tmp_path)).ask(with_schema)
    assert len(stub_llm.requests) == 3


def test_per_role_models(stub_llm, tmp_path):
    settings = stub_llm.settings(tmp_path, llm_roles=json.dumps({"planner": {"model": "small-planner"}}))
    stub_llm.default = json.dumps(PLAN)
    make_client(settings).ask(care.planner_prompt(QUESTION))
    assert stub_llm.requests[0].body["model"] == "small-planner"


def test_a_prompt_larger_than_the_context_is_shortened_and_counted(stub_llm, stub_settings):
    stub_llm.context = 400
    evidence = ["Mira Castellan is married to Oren Vale. " + "Filler words go here. " * 120]
    stub_llm.default = json.dumps({"answer": "Oren Vale", "evidence": 1, "reason": "stated"})
    client = make_client(stub_settings)
    assert client.ask(care.generator_prompt("Who is the spouse of [ENT]?", "Mira Castellan", evidence)) == "Oren Vale"
    sent = stub_llm.requests[0].messages[1]["content"]
    assert len(sent) < len(evidence[0]) and "Oren Vale" in sent
    assert client.usage.trimmed_prompts == 1


def test_fit_user_message_cuts_the_longest_texts_and_keeps_ids():
    user = json.dumps({"ids": ["c1", "c2"], "text": "word " * 2000})
    fitted, cut = fit_user_message(user, 200)
    assert cut and json.loads(fitted)["ids"] == ["c1", "c2"] and len(fitted) < len(user)
    assert fit_user_message('{"a": 1}', 200) == ('{"a": 1}', False)


def test_probe_tells_enforced_ignored_and_refused_forms_apart(stub_llm):
    stub_llm.formats.update(json_schema="enforce", json_object="refuse")
    stub_llm.default = "yes"
    found = llm_probe.capabilities(stub_llm.base_url, "stub-model", "k", timeout=5)
    assert found.forms == {"json_schema": "enforced", "json_object": "refused (HTTP 400)"}
    assert found.models == ["stub-model"] and found.completion_tokens >= 1 and found.best_form == "json_schema"
    stub_llm.formats.update(json_schema="ignore", json_object="ignore")
    found = llm_probe.capabilities(stub_llm.base_url, "stub-model", "k", timeout=5)
    assert found.forms == {"json_schema": "ignored", "json_object": "ignored"} and found.best_form == "text"


def test_a_json_object_probe_cut_by_its_token_cap_still_shows_the_form_enforced():
    from kgtool.models.llm_probe import _complies

    assert _complies("json_object", '{"hello": "hel', cut=True)  # the grammar held until the cap
    assert not _complies("json_object", '{"hello": "hel')  # not cut: an unclosed object is no object
    assert not _complies("json_object", "hello", cut=True)  # the form was ignored
    assert not _complies("json_schema", '{"ok": tr', cut=True)  # the schema probe stays strict
