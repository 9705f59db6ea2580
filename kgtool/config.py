"""Settings from the environment and an optional TOML config file.

Precedence: explicit keyword arguments > environment variables > config file
(`KGTOOL_CONFIG`, default `<home>/config.toml`) > defaults. Keyword names match
the config-file keys, so `Settings(gamma=1.0)` and `gamma = 1.0` in the file
mean the same thing.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.errors import ConfigError


def default_home() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("kgtool", appauthor=False))


def default_cache() -> Path:
    """What every home shares: the Neo4j runtime and the model and vector caches. KGTOOL_CACHE_DIR, else
    the user's cache directory (${XDG_CACHE_HOME:-~/.cache}/kgtool on Linux), whatever KGTOOL_HOME is:
    a store costs only its data."""
    if os.environ.get("KGTOOL_CACHE_DIR"):
        return Path(os.environ["KGTOOL_CACHE_DIR"]).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kgtool", appauthor=False))


# environment variable -> settings field
_ENV = {
    "KGTOOL_HOME": "home",
    "KGTOOL_NEO4J_PORT": "neo4j_port",
    "KGTOOL_NEO4J_ALLOW_CSV_IMPORT": "neo4j_allow_csv_import",
    "KGTOOL_NEO4J_PLUGINS": "neo4j_plugins",
    "KGTOOL_RUNTIME_DIR": "runtime_dir",
    "KGTOOL_CACHE_DIR": "shared_cache",
    "KGTOOL_MAX_QUESTION_CHARS": "max_question_chars",
    "KGTOOL_MAX_WORD_CHARS": "max_word_chars",
    "NEO4J_URI": "neo4j_uri",
    "NEO4J_USER": "neo4j_user",
    "NEO4J_PASSWORD": "neo4j_password",
    "NEO4J_DATABASE": "neo4j_database",
    "KGTOOL_EMBEDDER": "embedder",
    "KGTOOL_LLM_BASE_URL": "llm_base_url",
    "OPENAI_BASE_URL": "llm_base_url",
    "KGTOOL_LLM_MODEL": "llm_model",
    "KGTOOL_LLM_API_KEY": "llm_api_key",
    "OPENAI_API_KEY": "llm_api_key",
    "KGTOOL_LLM_TIMEOUT": "llm_timeout",
    "KGTOOL_LLM_MAX_RETRIES": "llm_max_retries",
    "KGTOOL_LLM_OUTPUT_FORM": "llm_output_form",
    "KGTOOL_LLM_CONTEXT": "llm_context",
    "KGTOOL_LLM_ROLES": "llm_roles",
    "KGTOOL_LLM_FALLBACK": "llm_fallback",
    "KGTOOL_LLM_SERVER_PORT": "llm_server_port",
    "KGTOOL_LLM_SERVER_THREADS": "llm_server_threads",
    "KGTOOL_LLM_SERVER_CONTEXT": "llm_server_context",
    "KGTOOL_LINKER": "linker",
    "KGTOOL_NEAR_NAMES": "near_names",
    "KGTOOL_CONSOLE_TIMEOUT": "console_timeout",
}


@dataclass
class Settings:
    # where the local server, caches and the generated password live
    home: Path = field(default_factory=default_home)
    # the local server (used when neo4j_uri is not set)
    neo4j_port: int = 7687
    neo4j_version: str = "5.26.30"
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    # let the local server's LOAD CSV read file:// and http(s):// URLs (off: no server-side fetches)
    neo4j_allow_csv_import: bool = False
    # plugins of the local server: comma-separated Maven coordinates G:A:V[:classifier][=ns.*|ns2.*]
    # (e.g. org.neo4j.procedure:apoc-core:5.26.0:core), fetched once into <home>/neo4j/plugins
    neo4j_plugins: str | None = None
    # what every home shares (the runtime, model and vector caches): KGTOOL_CACHE_DIR, default
    # ${XDG_CACHE_HOME:-~/.cache}/kgtool
    shared_cache: Path = field(default_factory=default_cache)
    # resolved Neo4j jars; shared by every home (default: <shared_cache>/runtime)
    runtime_dir: Path | None = None
    # any other server: local, Docker, a cluster or Aura
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    # the analysts' console (`kgtool cypher`, KnowledgeGraph.query): each statement's time limit,
    # a duration such as 30s or 2m, 0 for none
    console_timeout: str = "60s"
    # bounds on a question, checked before anything links it (kgtool.core.bounds): its characters and
    # its longest word's (a name, a number, a URL fit; a pasted blob does not)
    max_question_chars: int = 2000
    max_word_chars: int = 100
    # models
    embedder: str = "auto"  # auto | bge-m3 | minilm | <sentence-transformers directory>
    embedding_dim: int = 384
    # how answering links names to entities: graph (name keys stored in Neo4j) | gazetteer (in memory, spaCy)
    linker: str = "graph"
    # a question in which no name links is read for misspelt names ("Crnolix" for "Crenolix"; the graph
    # linker only; bounds in kgtool.ingest.near_names); false: only names as written link
    near_names: bool = True
    # LLM agents (any OpenAI-compatible endpoint)
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None
    llm_timeout: float = 60.0
    llm_max_retries: int = 3
    # how replies are asked for: auto (json_schema, else json_object, else plain text, found out per
    # endpoint and model) or one of those forms; the model's context in tokens (0: ask the server)
    llm_output_form: str = "auto"
    llm_context: int = 0
    # per-role model and temperature, JSON or a TOML table: {"critic": {"model": "...", "temperature": 0}}
    llm_roles: str | None = None
    # a role whose replies stay unusable: "offline" (its offline counterpart does the step) or "none"
    llm_fallback: str = "offline"
    # `kgtool llm serve`: the local llama-server's port, CPU threads (1 is fastest on a busy
    # machine) and context in tokens
    llm_server_port: int = 8431
    llm_server_threads: int = 1
    llm_server_context: int = 4096
    # method parameters (CARE / C2RAG defaults from the papers)
    delta_rel: float = 0.80
    gamma: float = 1.5
    top_k: int = 3
    tau_max: int = 2
    # every method: at most this many recorded steps per answer (ReAgent's default limit)
    max_steps: int = 25
    # offline agents: a relation explains a text at this matcher score; a relation read
    # backwards counts this much; a text mentions a name holding this share of its words
    offline_fit: float = 0.5
    offline_reverse_factor: float = 0.75
    offline_name_coverage: float = 0.8
    # offline agents: a fact read only from passages weighs this much against one that an edit
    # or a fact file states, in planning and hop selection (1.0: sources are equal)
    offline_text_prior: float = 0.8
    # offline planner: also read the question's structure and choose between that search and the
    # word-coverage one (issue 24; measured with bench/planner_gold_paths.py and kgtool eval).
    # On by default: it lifts paraphrased questions (care Acc 0.36 -> 0.82 on tests/data/paraphrase);
    # a phrase's modifier no longer carries it ("head of state" is not read through "state" ~
    # "country"), and the status rule's reading check (kgtool.reason.explains) keeps a chain that
    # does not explain the question from coming back `answered`.
    offline_structured: bool = True

    @property
    def uses_local_server(self) -> bool:
        return not self.neo4j_uri

    @property
    def cache_dir(self) -> Path:
        """This home's own cache (the LLM replies it was given)."""
        return self.home / "cache"

    @property
    def runtime_root(self) -> Path:
        """Where the Neo4j runtime (and llama-server) are kept: KGTOOL_RUNTIME_DIR, else the shared cache's."""
        return Path(self.runtime_dir or Path(self.shared_cache) / "runtime")

    @classmethod
    def load(cls, **overrides) -> "Settings":
        values: dict = {}
        config_file = Path(os.environ.get("KGTOOL_CONFIG", "")) if os.environ.get("KGTOOL_CONFIG") else None
        home_env = os.environ.get("KGTOOL_HOME")
        if config_file is None:
            home = Path(overrides.get("home") or home_env or default_home())
            config_file = home / "config.toml"
        if config_file.is_file():
            try:
                values.update(tomllib.loads(config_file.read_text()))
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{config_file}: not valid TOML ({exc}); fix or remove the file") from exc
        for env, key in _ENV.items():
            if os.environ.get(env):
                values[key] = os.environ[env]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: dict) -> "Settings":
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(values) - set(fields)
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}; known: {', '.join(fields)}")
        kwargs = {}
        for key, raw in values.items():
            kwargs[key] = _coerce(key, raw, fields[key].type)
        return cls(**kwargs)


_BOOLS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}


def _coerce(key: str, raw, type_name):
    type_name = str(type_name)
    try:
        if type_name.startswith("Path"):
            return Path(raw).expanduser()
        if type_name == "int":
            return int(raw)
        if type_name.startswith("float"):
            return float(raw)
        if type_name == "bool" and isinstance(raw, str):
            return _BOOLS[raw.strip().lower()]
    except KeyError:
        raise ConfigError(f"setting {key}={raw!r}: expected true or false") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {key}={raw!r}: expected {type_name}") from exc
    return raw
