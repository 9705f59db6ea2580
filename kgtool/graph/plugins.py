"""Neo4j plugins of the local server: jars resolved from Maven into the store's plugins directory.

A plugin is named by Maven coordinates `group:artifact:version[:classifier]`
(APOC core for Neo4j 5.26: `org.neo4j.procedure:apoc-core:5.26.0:core`).
Maven copies that one jar (`dependency:copy`, no transitive dependencies:
Neo4j plugins ship as self-contained jars, and a second copy of a library the
server already has would clash with it) into `<home>/neo4j/plugins`, and a
manifest beside the jars records what was asked for, so later starts find the
jars there and need no network.

Each plugin also names the procedure namespaces the server may run without
sandboxing (`dbms.security.procedures.unrestricted`): by default the
artifact's first word (`apoc-core` -> `apoc.*`), or what the user passes
(`G:A:V=gds.*|gds.alpha.*` in KGTOOL_NEO4J_PLUGINS, `--procedures` on the CLI).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kgtool.errors import ConfigError, ServerError

MANIFEST = "kgtool-plugins.json"

_PART = r"[A-Za-z0-9_.\-]+"
_COORDINATE = re.compile(rf"^({_PART}):({_PART}):({_PART})(?::({_PART}))?$")
# a procedure namespace glob as Neo4j's procedure settings take it: apoc.*, gds.alpha.*, apoc.coll.sum
_NAMESPACE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*(\.\*)?$")


@dataclass(frozen=True)
class PluginSpec:
    group: str
    artifact: str
    version: str
    classifier: str | None
    procedures: tuple[str, ...]

    @property
    def coordinate(self) -> str:
        return ":".join(p for p in (self.group, self.artifact, self.version, self.classifier) if p)

    @property
    def key(self) -> str:
        """One version of an artifact at a time: adding another replaces it."""
        return f"{self.group}:{self.artifact}"

    @property
    def jar_name(self) -> str:
        return f"{self.artifact}-{self.version}{'-' + self.classifier if self.classifier else ''}.jar"

    @property
    def maven_artifact(self) -> str:
        # dependency:copy's form is group:artifact:version[:packaging[:classifier]]
        base = f"{self.group}:{self.artifact}:{self.version}"
        return f"{base}:jar:{self.classifier}" if self.classifier else base


def default_procedures(artifact: str) -> tuple[str, ...]:
    """The namespace a plugin's procedures most likely live in: its artifact's first word."""
    word = re.split(r"[-_.]", artifact, maxsplit=1)[0].lower()
    return (f"{word}.*",)


def parse_plugin(text: str, procedures: str | list[str] | tuple[str, ...] | None = None,
                 *, where: str = "plugin") -> PluginSpec:
    """`G:A:V[:classifier][=ns1|ns2]` -> PluginSpec; `procedures` (if given) wins over the `=` part."""
    text = text.strip()
    coordinate, _, inline = text.partition("=")
    match = _COORDINATE.match(coordinate.strip())
    if not match:
        raise ConfigError(
            f"{where}: {text!r} is not Maven coordinates; write group:artifact:version[:classifier], "
            "e.g. org.neo4j.procedure:apoc-core:5.26.0:core"
        )
    group, artifact, version, classifier = match.groups()
    if procedures is None and inline.strip():
        procedures = inline
    if isinstance(procedures, str):
        procedures = [p for p in re.split(r"[|,\s]+", procedures) if p]
    names = tuple(procedures) if procedures else default_procedures(artifact)
    for name in names:
        if not _NAMESPACE.match(name):
            raise ConfigError(
                f"{where}: {name!r} is not a procedure namespace; write e.g. apoc.* or gds.alpha.*"
            )
    return PluginSpec(group, artifact, version, classifier, names)


def parse_plugin_setting(value) -> list[PluginSpec]:
    """The neo4j_plugins setting: comma-separated in the environment, a string or a list in config.toml."""
    if not value:
        return []
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    specs = [parse_plugin(str(item), where="KGTOOL_NEO4J_PLUGINS") for item in items if str(item).strip()]
    seen: dict[str, str] = {}
    for spec in specs:
        if spec.key in seen and seen[spec.key] != spec.coordinate:
            raise ConfigError(
                f"KGTOOL_NEO4J_PLUGINS names {spec.key} twice ({seen[spec.key]} and {spec.coordinate}); keep one version"
            )
        seen[spec.key] = spec.coordinate
    return specs


class PluginStore:
    """The jars in one server's plugins directory and the manifest that says where they came from."""

    def __init__(self, plugins_dir: Path):
        self.dir = Path(plugins_dir)

    @property
    def manifest_file(self) -> Path:
        return self.dir / MANIFEST

    def entries(self) -> list[dict]:
        """Installed plugins: {coordinate, key, jar, procedures, origin}, in the order they were added."""
        if not self.manifest_file.exists():
            return []
        try:
            data = json.loads(self.manifest_file.read_text())
            return list(data["plugins"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ServerError(
                f"{self.manifest_file} is not a kgtool plugin manifest ({exc}); remove it and add the plugins again"
            ) from exc

    def procedures(self) -> list[str]:
        """Every installed plugin's procedure namespaces (for dbms.security.procedures.unrestricted)."""
        names: list[str] = []
        for entry in self.entries():
            for name in entry.get("procedures", []):
                if name not in names:
                    names.append(name)
        return names

    def missing(self) -> list[dict]:
        return [e for e in self.entries() if not (self.dir / e["jar"]).is_file()]

    def add(self, spec: PluginSpec, *, origin: str = "cli") -> dict:
        """Resolve the jar through Maven (unless it is already here) and record it; returns its entry."""
        entries = self.entries()
        current = next((e for e in entries if e["key"] == spec.key), None)
        entry = {"coordinate": spec.coordinate, "key": spec.key, "jar": spec.jar_name,
                 "procedures": list(spec.procedures), "origin": origin}
        if current == entry and (self.dir / spec.jar_name).is_file():
            return entry
        if not (self.dir / spec.jar_name).is_file():
            self._resolve(spec)
        if current is not None and current["jar"] != spec.jar_name:
            (self.dir / current["jar"]).unlink(missing_ok=True)
        if current is not None and current.get("origin") == "cli":
            entry["origin"] = "cli"  # the setting naming it too does not make it go away with the setting
        entries = [e for e in entries if e["key"] != spec.key] + [entry]
        self._save(entries)
        return entry

    def remove(self, name: str) -> dict:
        """Remove a plugin by coordinate or group:artifact; returns the removed entry."""
        name = name.strip().partition("=")[0]
        entries = self.entries()
        match = _COORDINATE.match(name)
        key = f"{match.group(1)}:{match.group(2)}" if match else name
        found = next((e for e in entries if e["key"] == key or e["coordinate"] == name), None)
        if found is None:
            installed = ", ".join(e["coordinate"] for e in entries) or "none"
            raise ConfigError(f"no plugin {name!r} is installed (installed: {installed})")
        (self.dir / found["jar"]).unlink(missing_ok=True)
        self._save([e for e in entries if e is not found])
        return found

    def sync(self, specs: list[PluginSpec]) -> list[str]:
        """Make the plugins the setting names present, and drop those only an earlier setting named.

        Returns the coordinates that were resolved now (the ones that needed Maven).
        """
        resolved = []
        wanted = {s.key for s in specs}
        for entry in self.entries():
            if entry.get("origin") == "setting" and entry["key"] not in wanted:
                self.remove(entry["key"])
        for spec in specs:
            if not (self.dir / spec.jar_name).is_file():
                resolved.append(spec.coordinate)
            self.add(spec, origin="setting")
        for entry in self.missing():  # a jar deleted by hand: fetch it again
            self._resolve(parse_plugin(entry["coordinate"], entry["procedures"]))
            resolved.append(entry["coordinate"])
        return resolved

    # --- internals ----------------------------------------------------------
    def _resolve(self, spec: PluginSpec) -> None:
        mvn = shutil.which("mvn")
        if not mvn:
            raise ServerError(
                f"Maven (mvn) is needed to fetch the plugin {spec.coordinate} but is not on PATH. "
                "Install it (Debian/Ubuntu: apt-get install maven), or copy the jar into "
                f"{self.dir} yourself."
            )
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        staging = self.dir / ".partial"
        shutil.rmtree(staging, ignore_errors=True)
        cmd = [mvn, "-q", "-B", "dependency:copy", f"-Dartifact={spec.maven_artifact}",
               f"-DoutputDirectory={staging}", "-Dmdep.overWriteReleases=true"]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        jar = staging / spec.jar_name
        if proc.returncode != 0 or not jar.is_file():
            shutil.rmtree(staging, ignore_errors=True)
            lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "ERROR" in ln][:6]
            raise ServerError(
                f"Maven could not resolve the plugin {spec.coordinate}; check the coordinates "
                f"(group:artifact:version[:classifier], e.g. org.neo4j.procedure:apoc-core:5.26.0:core):\n"
                + "\n".join(lines)
            )
        jar.chmod(0o600)
        os.replace(jar, self.dir / spec.jar_name)
        shutil.rmtree(staging, ignore_errors=True)

    def _save(self, entries: list[dict]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.manifest_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump({"plugins": entries}, fh, indent=2)
        os.replace(tmp, self.manifest_file)
