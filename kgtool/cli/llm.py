"""`kgtool llm`: a local model server for the LLM agents, and a check of any endpoint.

The commands only parse options and call kgtool.models.llm_server and
kgtool.models.llm_probe; registered in kgtool/cli/__init__.py.
"""
from __future__ import annotations

import click
from rich.table import Table

from kgtool.cli.present import console

from kgtool.config import Settings



@click.group()
def llm():
    """Run a local OpenAI-compatible model server, or check an LLM endpoint.

    \b
    `kgtool llm serve` builds llama.cpp's server once per machine (cached under
    the runtime directory) and serves the packaged Gemma 3 270M (the
    `local-llm` extra) or any GGUF file on 127.0.0.1. While it runs, the
    `llm` agents use it when KGTOOL_LLM_BASE_URL is not set.
    """


@llm.command()
@click.option("--model", "model", default="packaged", show_default=True,
              help="A GGUF file, or 'packaged' for the packaged Gemma 3 270M (a small base model).")
@click.option("--port", type=int, default=None, help="Port on 127.0.0.1 (default: llm_server_port, 8431).")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait for readiness.")
def serve(model: str, port: int | None, timeout: float):
    """Start the local model server (building it first if this machine has none)."""
    from kgtool.models.llm_server import LocalLLMServer

    settings = Settings.load(llm_server_port=port)
    state = LocalLLMServer(settings).start(model, timeout=timeout, say=lambda m: console.print(f"llm: {m}"))
    console.print(f"llm server: running (pid {state.pid}) at {state.base_url}, model {state.model}")
    console.print("the llm agents use it while it runs; for other tools: "
                  f"KGTOOL_LLM_BASE_URL={state.base_url} KGTOOL_LLM_MODEL={state.model}", highlight=False)


@llm.command()
def stop():
    """Stop the local model server."""
    from kgtool.models.llm_server import LocalLLMServer

    stopped = LocalLLMServer(Settings.load()).stop()
    console.print("llm server: stopped" if stopped else "llm server: not running")


@llm.command()
def status():
    """Whether the local model server runs, where, and with which model."""
    from kgtool.models.llm_server import LlamaServerBuild, LocalLLMServer

    settings = Settings.load()
    state = LocalLLMServer(settings).state()
    build = LlamaServerBuild(settings)
    console.print(f"llama-server build: {'ready at ' + str(build.binary) if build.ready else 'not built yet'}",
                  highlight=False)
    if state is None:
        console.print("llm server: not running")
        raise SystemExit(1)
    console.print(f"llm server: running (pid {state.pid}) at {state.base_url}, model {state.model} "
                  f"({state.model_path})", highlight=False)


@llm.command()
@click.option("--base-url", default=None, help="The endpoint (default: KGTOOL_LLM_BASE_URL, else the local server).")
@click.option("--model", default=None, help="The model (default: KGTOOL_LLM_MODEL, else the endpoint's first).")
@click.option("--timeout", type=float, default=120.0, show_default=True)
def check(base_url: str | None, model: str | None, timeout: float):
    """Models, structured-output forms, context length and a timed call of an endpoint, in one table."""
    from kgtool.models import llm_probe
    from kgtool.models.llm_server import running_endpoint

    settings = Settings.load()
    local = running_endpoint(settings)
    base_url = base_url or settings.llm_base_url or (local.base_url if local else None)
    if not base_url:
        raise click.UsageError("no endpoint: give --base-url, set KGTOOL_LLM_BASE_URL, or run `kgtool llm serve`")
    models = llm_probe.list_models(base_url, min(timeout, 10.0))
    default_model = Settings.__dataclass_fields__["llm_model"].default
    model = model or (settings.llm_model if settings.llm_model != default_model or not models else models[0])
    found = llm_probe.capabilities(base_url, model, settings.llm_api_key, timeout)
    table = Table(title=f"LLM endpoint {base_url}", show_header=True)
    table.add_column("what")
    table.add_column("value")
    table.add_row("models", ", ".join(found.models) or "(not listed)")
    table.add_row("model checked", model)
    for form in ("json_schema", "json_object"):
        table.add_row(f"response_format {form}", found.forms.get(form, "-"))
    table.add_row("output form used", found.best_form)
    table.add_row("context length", f"{found.context} tokens" if found.context else "not reported")
    if found.error:
        table.add_row("timed call", f"failed: {found.error}")
    else:
        table.add_row("timed call", f"{found.seconds:.2f} s, {found.prompt_tokens} prompt + "
                                    f"{found.completion_tokens} completion tokens")
        table.add_row("generation speed", f"{found.tokens_per_second:.1f} tokens/s")
    console.print(table)
    if found.error:
        raise SystemExit(1)
