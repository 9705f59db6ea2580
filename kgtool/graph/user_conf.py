"""The user's own additions to the local server's config: `<home>/neo4j/conf/user.conf`.

kgtool rewrites neo4j.conf on every start from its settings, so settings a user
adds there would be lost; user.conf is read on every start and merged after
kgtool's own settings (a key set in both takes the user's value). It has
neo4j.conf's syntax: `key=value` lines, `#` comments, blank lines. Keys are read
as Neo4j reads them: spaces around them trimmed and letters compared without
case (`  SERVER.Default_Listen_Address = x` is server.default_listen_address),
and they are written to neo4j.conf in that lower-case form.

What kgtool promises about the local server stays true whatever the file says,
so these are refused with the file, line and key:
- a listen address other than the loopback (127.0.0.1, localhost, ::1): the
  server answers this machine only, and its Bolt port is KGTOOL_NEO4J_PORT;
- authentication switched off;
- HTTP or HTTPS switched on with a non-loopback address;
- CSV import from files and URLs, and changes to the outbound address block
  list, unless KGTOOL_NEO4J_ALLOW_CSV_IMPORT=1;
- the server's directories, which kgtool places under its home.
"""
from __future__ import annotations

import re
from pathlib import Path

from kgtool.errors import ConfigError

FILE_NAME = "user.conf"

_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
_CSV_KEYS = {"dbms.security.allow_csv_import_from_file_urls", "internal.dbms.cypher_ip_blocklist",
             "dbms.cypher.ip_blocklist", "server.directories.import"}
# settings a line may repeat (Neo4j reads every occurrence, not the last)
REPEATABLE = {"server.jvm.additional"}


def _host(address: str) -> str:
    address = address.strip()
    if address.startswith("["):  # [::1]:7687
        return address[: address.find("]") + 1] if "]" in address else address
    if address.count(":") > 1:  # a bare IPv6 address, no port
        return address
    return address.rpartition(":")[0] if ":" in address else address


def _refusal(key: str, value: str, allow_csv_import: bool) -> str | None:
    """Why `key=value` would break the local server's security basics, or None."""
    lowered = value.strip().lower()
    if key.endswith("listen_address"):
        host = _host(value)
        if host and host.lower() not in _LOOPBACK:
            return (f"listens on {host!r}; the local server answers 127.0.0.1 only "
                    "(use NEO4J_URI with a server you run yourself to serve other machines)")
        if key == "server.bolt.listen_address":
            return "the Bolt port is kgtool's: set KGTOOL_NEO4J_PORT instead"
    if key == "dbms.security.auth_enabled" and lowered != "true":
        return "switches authentication off; the local server always requires its password"
    if key in ("server.bolt.enabled",) and lowered != "true":
        return "switches Bolt off; kgtool talks to the server over Bolt"
    if key.startswith("server.directories."):
        return "the server's directories are kgtool's (under KGTOOL_HOME); set KGTOOL_HOME to move them"
    if key in _CSV_KEYS and not allow_csv_import:
        return ("lets LOAD CSV read server files or fetch URLs; set KGTOOL_NEO4J_ALLOW_CSV_IMPORT=1 "
                "if that is really wanted")
    return None


def read_user_conf(path: Path, *, allow_csv_import: bool = False) -> list[tuple[str, str]]:
    """The (key, value) lines of a user conf file, checked; [] if there is no file.

    Raises ConfigError naming `file:line` for a malformed line or a refused key.
    """
    path = Path(path)
    if not path.is_file():
        return []
    settings: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        written, value = key.strip(), value.strip()
        key = written.lower()  # the setting Neo4j will apply, whatever case the line uses
        where = f"{path}:{number}"
        if not sep or not _KEY.match(written):
            raise ConfigError(f"{where}: {raw.strip()!r} is not a setting; write key=value (e.g. "
                              "db.transaction.timeout=30s) or start the line with # to comment it out")
        if not value:
            raise ConfigError(f"{where}: {key} has no value; write {key}=VALUE or remove the line")
        reason = _refusal(key, value, allow_csv_import)
        if reason:
            shown = key if key == written else f"{written} (read by Neo4j as {key})"
            raise ConfigError(f"{where}: {shown} is refused: {reason}. Remove the line from {path}.")
        if key in seen and key not in REPEATABLE:
            raise ConfigError(f"{where}: {key} is already set on line {seen[key]}; keep one of the two")
        seen[key] = number
        settings.append((key, value))
    return settings


def merge(conf: dict[str, str], user: list[tuple[str, str]], *, list_keys: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """kgtool's settings, then the user's: a user key replaces kgtool's, except `list_keys`
    (comma-separated lists such as the unrestricted procedures), where both are kept."""
    merged = dict(conf)
    repeated: list[tuple[str, str]] = []
    for key, value in user:
        if key in REPEATABLE:
            repeated.append((key, value))
        elif key in list_keys and merged.get(key):
            parts = [p.strip() for p in (merged[key] + "," + value).split(",") if p.strip()]
            merged[key] = ",".join(dict.fromkeys(parts))
        else:
            merged[key] = value
    return list(merged.items()) + repeated
