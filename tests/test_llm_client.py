"""LLMClient against a real local HTTP stub: re-asks, retries, timeouts, cache, usage."""
from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from kgtool.config import Settings
from kgtool.errors import ConfigError, LLMError
from kgtool.models.llm import LLMClient, extract_json

try:
    from stub_llm import Reply, StubLLM, count_tokens, make_client, stub_llm, stub_settings  # noqa: F401
except ImportError:  # tests/ imported as a package
    from tests.stub_llm import Reply, StubLLM, count_tokens, make_client, stub_llm, stub_settings  # noqa: F401


def want_x(value):
    if not isinstance(value, dict) or not isinstance(value.get("x"), int):
        raise ValueError('"x" must be an integer')
    return value["x"]


# ------------------------------------------------------------------ parsing


def test_extract_json_reads_the_reply_itself_or_its_first_object():
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure, here it is: {"a": [1, 2]} Hope this helps.') == {"a": [1, 2]}
    # a bracketed aside in prose must not win over the real answer
    assert extract_json('Step [2] breaks. {"valid": false, "problem_steps": [2]}') == {
        "valid": False,
        "problem_steps": [2],
    }
    assert extract_json('[{"id": "c1", "score": 1}]') == [{"id": "c1", "score": 1}]
    # the FIRST object, not the longest: a longer example echoed after the answer does not win
    assert extract_json('{"x": 1} e.g. {"x": 2, "topic": "Windows", "more": [1, 2, 3]}') == {"x": 1}
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("I cannot help with that.")
    with pytest.raises(ValueError, match="empty"):
        extract_json("   ")


def test_fenced_reply_with_prose_is_accepted_in_one_call(stub_llm, stub_settings):
    stub_llm.script('Here you go:\n```json\n{"x": 2}\n```\nAnything else?')
    client = make_client(stub_settings)
    assert client.chat_json("sys", "user", want_x, purpose="test") == 2
    assert len(stub_llm.requests) == 1


def test_request_uses_model_and_temperature_zero(stub_llm, stub_settings):
    stub_llm.script('{"x": 1}')
    make_client(stub_settings).chat_json("the system", "the user", want_x)
    (request,) = stub_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "stub-model"
    assert request.body["temperature"] == 0
    assert request.messages == [
        {"role": "system", "content": "the system"},
        {"role": "user", "content": "the user"},
    ]
    assert request.headers["authorization"] == "Bearer stub-key"


# ------------------------------------------------------------------ re-asks


def test_malformed_reply_is_reasked_with_a_correction(stub_llm, stub_settings):
    stub_llm.script("this is not JSON", '{"x": 7}')
    client = make_client(stub_settings)
    assert client.chat_json("sys", "user", want_x, purpose="test") == 7
    first, second = stub_llm.requests
    assert len(first.messages) == 2
    # the re-ask is the same task with the correction only: the bad reply is not sent back
    assert len(second.messages) == 2 and second.messages[0] == first.messages[0]
    correction = second.messages[1]["content"]
    assert correction.startswith("user\n\n") and "could not be used" in correction and "no JSON" in correction
    assert "this is not JSON" not in second.text()
    assert client.usage.calls == 2 and client.usage.reasks == 1 and client.usage.unusable_replies == 1


def test_wrong_shape_is_reasked_naming_the_validator_problem(stub_llm, stub_settings):
    stub_llm.script('{"x": "seven"}', '{"x": 7}')
    assert make_client(stub_settings).chat_json("sys", "user", want_x) == 7
    assert '"x" must be an integer' in stub_llm.requests[1].messages[-1]["content"]


def test_persistently_malformed_output_raises_llm_error(stub_llm, stub_settings):
    stub_llm.default = '{"y": 1}'
    client = make_client(stub_settings)  # one re-ask by default
    with pytest.raises(LLMError) as info:
        client.chat_json("sys", "user", want_x, purpose="planner")
    message = str(info.value)
    assert "planner" in message
    assert '"x" must be an integer' in message
    assert "2 replies" in message
    assert len(stub_llm.requests) == 2
    assert client.usage.unusable_replies == 2 and client.usage.reasks == 1


# ------------------------------------------------------------------ retries


def test_timeout_is_retried(stub_llm, tmp_path):
    settings = stub_llm.settings(tmp_path, llm_timeout=0.5)
    stub_llm.script(Reply.slow(3.0, '{"x": 1}'), '{"x": 2}')
    client = make_client(settings)
    # x == 2 comes from the second reply: the client gave up on the slow first one
    assert client.chat_json("sys", "user", want_x) == 2
    assert len(stub_llm.requests) == 2
    assert client.latency_ms >= 500
    assert client.usage.calls == 1  # the timed-out attempt produced no reply


def test_a_timeout_is_retried_at_most_once(stub_llm, tmp_path):
    settings = stub_llm.settings(tmp_path, llm_timeout=0.5)  # llm_max_retries=2 allows more for 5xx
    stub_llm.script(Reply.slow(2.0), Reply.slow(2.0), '{"x": 2}')
    with pytest.raises(LLMError, match="no answer within"):
        make_client(settings).chat_json("sys", "user", want_x)
    assert len(stub_llm.requests) == 2


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_errors_are_retried(stub_llm, stub_settings, status):
    stub_llm.script(Reply.fail(status, "overloaded", **{"retry-after": "0"}), '{"x": 3}')
    client = make_client(stub_settings)
    assert client.chat_json("sys", "user", want_x) == 3
    assert len(stub_llm.requests) == 2
    assert client.usage.calls == 1


def test_exhausted_retries_raise_a_clear_llm_error(stub_llm, stub_settings):
    stub_llm.script(*[Reply.fail(500, "database on fire")] * 3)
    client = make_client(stub_settings)  # llm_max_retries=2: three attempts
    with pytest.raises(LLMError) as info:
        client.chat_json("sys", "user", want_x, purpose="critic")
    message = str(info.value)
    assert "critic" in message
    assert "3 time(s)" in message
    assert "HTTP 500" in message and "database on fire" in message
    assert stub_llm.base_url in message
    assert "KGTOOL_LLM_BASE_URL" in message
    assert len(stub_llm.requests) == 3


def test_auth_errors_are_not_retried(stub_llm, stub_settings):
    stub_llm.script(Reply.fail(401, "bad key"), '{"x": 1}')
    with pytest.raises(LLMError, match="KGTOOL_LLM_API_KEY"):
        make_client(stub_settings).chat_json("sys", "user", want_x)
    assert len(stub_llm.requests) == 1


def test_a_web_page_instead_of_the_api_is_named_as_such(stub_llm, stub_settings):
    # a base URL without /v1 often reaches the server's web UI, which answers 200 with HTML
    stub_llm.script(Reply.raw("<!doctype html><html><body>Sign in</body></html>", "text/html"), '{"x": 1}')
    with pytest.raises(LLMError, match=r"not a chat completion \(it begins '<!doctype html>.*/v1"):
        make_client(stub_settings).chat_json("sys", "user", want_x)
    assert len(stub_llm.requests) == 1


def test_unreachable_endpoint_raises_after_retries(tmp_path):
    with StubLLM() as stub:
        settings = stub.settings(tmp_path, llm_max_retries=1)
    # the stub is stopped: nothing listens on its port any more
    with pytest.raises(LLMError, match="2 time"):
        make_client(settings).chat_json("sys", "user", want_x)


def test_unscripted_request_fails_fast(stub_llm, stub_settings):
    with pytest.raises(LLMError, match="no scripted reply"):
        make_client(stub_settings).chat_json("sys", "user", want_x)
    assert len(stub_llm.requests) == 1


# -------------------------------------------------------------------- cache


def test_second_identical_call_is_served_from_the_disk_cache(stub_llm, stub_settings):
    stub_llm.script('{"x": 5}')
    client = make_client(stub_settings)
    assert client.chat_json("sys", "user", want_x) == 5
    tokens = client.usage.tokens
    assert client.chat_json("sys", "user", want_x) == 5
    assert len(stub_llm.requests) == 1
    assert client.usage.calls == 1
    assert client.usage.cached_calls == 1
    assert client.usage.tokens == tokens  # a cached answer is free
    # a new client (a new process, say) finds the entry on disk
    again = make_client(stub_settings)
    assert again.chat_json("sys", "user", want_x) == 5
    assert len(stub_llm.requests) == 1
    assert (again.usage.calls, again.usage.cached_calls) == (0, 1)
    assert list((stub_settings.cache_dir / "llm").rglob("*.json"))


def test_cache_key_depends_on_messages_and_model(stub_llm, stub_settings):
    stub_llm.default = '{"x": 1}'
    make_client(stub_settings).chat_json("sys", "user A", want_x)
    make_client(stub_settings).chat_json("sys", "user B", want_x)
    other_model = Settings(**{**stub_settings.__dict__, "llm_model": "other-model"})
    make_client(other_model).chat_json("sys", "user A", want_x)
    assert len(stub_llm.requests) == 3


def test_reasked_answer_is_cached_under_the_original_question(stub_llm, stub_settings):
    stub_llm.script("oops", '{"x": 9}')
    make_client(stub_settings).chat_json("sys", "user", want_x)
    assert make_client(stub_settings).chat_json("sys", "user", want_x) == 9
    assert len(stub_llm.requests) == 2


def test_cache_can_be_switched_off(stub_llm, stub_settings):
    stub_llm.default = '{"x": 1}'
    client = make_client(stub_settings, cache=False)
    client.chat_json("sys", "user", want_x)
    client.chat_json("sys", "user", want_x)
    assert len(stub_llm.requests) == 2
    assert client.usage.cached_calls == 0
    assert not (stub_settings.cache_dir / "llm").exists()


# -------------------------------------------------------------------- usage


def test_tokens_come_from_the_usage_field(stub_llm, stub_settings):
    stub_llm.script(
        Reply(content='{"x": 1}', prompt_tokens=11, completion_tokens=4),
        Reply(content='{"x": 2}', prompt_tokens=20, completion_tokens=6),
        '{"x": 3}',
    )
    client = make_client(stub_settings)
    client.chat_json("sys", "one", want_x, purpose="planner")
    client.chat_json("sys", "two", want_x, purpose="critic")
    assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (31, 10)
    assert client.usage_for("planner").tokens == 15
    assert client.usage_for("critic").tokens == 26
    client.chat_json("system words", "three", want_x, purpose="critic")
    expected_prompt = count_tokens("system words") + count_tokens("three")
    assert client.usage.prompt_tokens == 31 + expected_prompt
    assert client.usage.completion_tokens == 10 + count_tokens('{"x": 3}')
    assert client.usage.calls == 3


def test_shared_client_counts_correctly_across_threads(stub_llm, stub_settings):
    stub_llm.default = Reply(content='{"x": 1}', prompt_tokens=3, completion_tokens=2)
    client = make_client(stub_settings)
    per_thread: dict[int, int] = {}

    def work(i: int) -> None:
        with client.tracking() as mine:
            for j in range(i + 1):
                client.chat_json("sys", f"question {i}-{j}", want_x)
        per_thread[i] = mine.calls

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(work, range(4)))
    assert client.usage.calls == 1 + 2 + 3 + 4
    assert client.usage.tokens == 5 * 10
    assert per_thread == {0: 1, 1: 2, 2: 3, 3: 4}
    assert len(stub_llm.requests) == 10


def test_tracking_sees_only_its_own_context(stub_llm, stub_settings):
    stub_llm.default = '{"x": 1}'
    client = make_client(stub_settings)
    other_thread = threading.Thread(target=lambda: client.chat_json("sys", "elsewhere", want_x))
    with client.tracking() as outer:
        client.chat_json("sys", "here", want_x)
        other_thread.start()
        other_thread.join()
        with client.tracking() as inner:
            client.chat_json("sys", "nested", want_x)
    assert (outer.calls, inner.calls, client.usage.calls) == (2, 1, 3)


# ------------------------------------------------------------------- config


def test_missing_endpoint_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="KGTOOL_LLM_BASE_URL"):
        LLMClient(Settings(home=tmp_path, llm_base_url=None, llm_api_key=None))


def test_stub_records_error_bodies_openai_style(stub_llm):
    # the stub itself must look like an OpenAI server to any HTTP client
    import urllib.error
    import urllib.request

    stub_llm.script(Reply.fail(503, "busy"))
    request = urllib.request.Request(
        stub_llm.base_url + "/chat/completions",
        data=json.dumps({"model": "m", "messages": []}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=5)
    assert info.value.code == 503
    assert json.loads(info.value.read())["error"]["message"] == "busy"
