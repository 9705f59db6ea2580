"""The `kgtool` group itself: one failure path for every command, and the connection commands share."""
from __future__ import annotations

import json
import os
import sys

import click

from kgtool.cli.present import print_error
from kgtool.config import Settings

_DEBUG = {"flag": False}  # --debug of the current invocation (click calls the callback every time)


def _debug_requested() -> bool:
    return _DEBUG["flag"] or os.environ.get("KGTOOL_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def _set_debug(ctx, param, value):
    _DEBUG["flag"] = bool(value)


class KgToolGroup(click.Group):
    """Every failure becomes one message saying how to fix it; --debug adds the traceback.

    kgtool's own errors already say what to do; anything else (the driver, the
    network, the LLM client) is mapped by kgtool.errors.describe, so no command
    ever ends in a raw traceback unless asked for.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.params.append(click.Option(["--debug"], is_flag=True, expose_value=False, is_eager=True,
                                        callback=_set_debug,
                                        help="Print the full traceback of a failure (or set KGTOOL_DEBUG=1)."))

    def resolve_command(self, ctx, args):
        """An unknown command name gets the closest known ones."""
        name = args[0] if args else None
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from kgtool.core.suggest import did_you_mean

            ctx.fail(f"no such command {name!r}{did_you_mean(name, self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx):
        from kgtool.errors import describe

        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            print_error("interrupted")
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the one place every failure is worded for a person
            error = describe(exc)
            if _debug_requested():
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            print_error(str(error))
            sys.exit(2)


def settings() -> Settings:
    return Settings.load()


def connect():
    from kgtool.api import KnowledgeGraph

    return KnowledgeGraph.connect(settings())


def local_server():
    from kgtool.api import local_server

    return local_server(settings())


def parse_pairs(pairs: tuple[str, ...], option: str = "--param") -> dict:
    """key=value pairs; a value is parsed as JSON when it can be (1 -> int, true -> bool), else kept as text."""
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r}: expected key=value", param_hint=option)
        key, raw = pair.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


class Choice(click.Choice):
    """A click choice whose error names the closest choices (`did you mean 'jsonl'?`)."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            from kgtool.core.suggest import did_you_mean

            hint = did_you_mean(value, self.choices)
            if hint:
                exc.message = f"{exc.message.rstrip('.')}{hint}"
            raise


class RegistryChoice(Choice):
    """The names of a registry as a click choice, read when first needed (not when the CLI is imported)."""

    def __init__(self, load_names):
        self._load_names = load_names
        self.case_sensitive = True

    @property
    def choices(self):
        return tuple(self._load_names())


def _agent_names():
    from kgtool.reason.agents.factory import AGENTS

    return AGENTS.names()


def agent_choice() -> click.Choice:
    """The registered agent families, as the --agents choices."""
    return RegistryChoice(_agent_names)


@click.group(cls=KgToolGroup)
@click.version_option(package_name="kgtool")
def main():
    """kgtool: multi-hop question answering over edited knowledge, inside Neo4j.

    With NEO4J_URI unset, kgtool runs its own local Neo4j (started on first
    use; see `kgtool db`). Set NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and
    NEO4J_DATABASE to use any other server (Docker, a cluster, Aura).
    """
