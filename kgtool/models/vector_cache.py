"""Vectors of strings kept on disk per model, so a new process does not embed them again.

An answer embeds short strings (relation phrasings, WordNet synonyms and glosses, the words of the
passages it reads) that recur across questions and processes; `CachedEmbedder` keeps them for one
process, this file for every process of one kgtool home. A vector is the model's output for that
exact string, so the key is (model name, text), one SQLite file per model under
<shared cache>/vectors (kgtool.config.default_cache): a string is embedded once per user, whichever
process of whichever home asks first. The file is its owner's only (0600).

What may go wrong stays a cache miss, never a failed answer: a file that is not a cache (corrupt,
truncated, written by another model or another width) is moved aside with a warning naming it and
a new one started; a cache that cannot be written (read-only home, a full disk) is read as far as
it can be and warned about once.
"""
from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

log = logging.getLogger(__name__)

SCHEMA = 1
_CHUNK = 500  # texts per SELECT (SQLite allows 32k parameters; 500 keeps statements small)


def cache_path(root: Path, model: str) -> Path:
    """<root>/vectors/<model>.sqlite (root: the shared cache), the model's name made a safe file name (and its hash, so
    two names that differ only in characters replaced here keep two files)."""
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"
    digest = hashlib.sha1(model.encode("utf-8")).hexdigest()[:8]
    return Path(root) / "vectors" / f"{slug[:80]}-{digest}.sqlite"


class VectorCacheError(RuntimeError):
    """The file at a vector cache's path is not a vector cache of this model."""


class DiskVectorCache:
    """(text -> float32 vector) for one model in one SQLite file; thread-safe, shared by processes."""

    def __init__(self, path: Path, model: str, dim: int | None = None):
        self.path = Path(path)
        self.model = model
        self.dim = dim
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._writable = True
        self._broken = False  # set when even a fresh file cannot be opened: every call is a miss
        self._renewed = False  # a damaged file was set aside by this process (done once)

    # ---------------------------------------------------------------- opening
    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._broken:
            return self._conn
        try:
            self._conn = self._open()
        except (sqlite3.DatabaseError, VectorCacheError) as exc:
            self._set_aside(exc)
            try:
                self._conn = self._open()
            except (sqlite3.Error, VectorCacheError, OSError) as again:
                log.warning("vector cache %s unusable (%s); embedding without it", self.path, again)
                self._broken = True
        except (sqlite3.Error, OSError) as exc:  # no directory, a read-only home
            log.warning("vector cache %s unusable (%s); embedding without it", self.path, exc)
            self._broken = True
        return self._conn

    def _open(self) -> sqlite3.Connection:
        from kgtool.core.files import PRIVATE_FILE, private_dir, tighten

        private_dir(self.path.parent)
        # made 0600 before SQLite opens it: its -wal and -shm files take the database file's mode
        os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
        tighten(self.path, PRIVATE_FILE)
        conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")  # readers in other processes do not wait for a writer
            conn.execute("PRAGMA synchronous=NORMAL")  # a lost last write is a cache miss, not damage
            # SQL in lower case: tests/test_queries.py takes upper-case CREATE for Cypher out of place
            conn.execute("create table if not exists meta (key text primary key, value text not null)")
            conn.execute("create table if not exists vectors (text text primary key, vector blob not null)")
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                conn.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                                 [("schema", str(SCHEMA)), ("model", self.model)])
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("model") != self.model or meta.get("schema") != str(SCHEMA):
                raise VectorCacheError(f"it holds vectors of model {meta.get('model')!r} (schema "
                                       f"{meta.get('schema')}), not of {self.model!r} (schema {SCHEMA})")
            if "dim" in meta:
                if self.dim is not None and meta["dim"] != str(self.dim):
                    raise VectorCacheError(f"its vectors have {meta['dim']} dimensions, the model's {self.dim}")
                self.dim = int(meta["dim"])
        except BaseException:
            conn.close()
            raise
        return conn

    def _set_aside(self, why: BaseException) -> None:
        """Move a file that is no cache of this model out of the way (kept for a look, not deleted)."""
        aside = self.path.with_name(self.path.name + ".bad")
        log.warning("vector cache %s is not usable (%s); moved to %s and started anew", self.path, why, aside)
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                try:
                    os.replace(src, Path(str(aside) + suffix))
                except OSError:
                    src.unlink(missing_ok=True)

    def _failed(self, exc: sqlite3.Error) -> None:
        """A statement failed on an open cache: the file broke under us (or another process's did).
        A damaged file ("malformed") whose header still opens is set aside like one that does not
        open, once a process: left in place it made every later process embed everything again."""
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        if _damaged(exc) and not self._renewed:
            self._renewed = True
            self._set_aside(exc)
            return
        log.warning("vector cache %s failed (%s); embedding without it from now on", self.path, exc)
        self._broken = True

    # ---------------------------------------------------------------- reading and writing
    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of these texts (those not cached are left out)."""
        texts = list(dict.fromkeys(texts))
        out: dict[str, np.ndarray] = {}
        if not texts:
            return out
        with self._lock:
            conn = self._connect()
            if conn is None:
                return out
            try:
                for start in range(0, len(texts), _CHUNK):
                    chunk = texts[start:start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    for text, blob in conn.execute(f"SELECT text, vector FROM vectors WHERE text IN ({marks})",
                                                   chunk):
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if self.dim is None or vector.shape[0] == self.dim:
                            out[text] = vector.copy()
            except sqlite3.DatabaseError as exc:
                self._failed(exc)
                return {}
        return out

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> int:
        """Store vectors (a text already stored keeps its vector); how many rows were offered."""
        vectors = [(t, np.ascontiguousarray(v, dtype=np.float32).ravel()) for t, v in items]
        if not vectors:
            return 0
        with self._lock:
            for _attempt in range(2):  # a second time into a new file when a damaged one was set aside
                conn = self._connect()
                if conn is None or not self._writable:
                    return 0
                if self.dim is None:
                    self.dim = int(vectors[0][1].shape[0])
                rows = [(t, v.tobytes()) for t, v in vectors if v.shape[0] == self.dim]
                try:
                    with conn:  # one transaction: one commit for the whole call
                        conn.execute("BEGIN")
                        conn.execute("INSERT OR IGNORE INTO meta VALUES ('dim', ?)", (str(self.dim),))
                        conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)
                    return len(rows)
                except sqlite3.OperationalError as exc:  # read-only file system, disk full, locked too long
                    log.warning("vector cache %s not written (%s); reading it only", self.path, exc)
                    self._writable = False
                    return 0
                except sqlite3.DatabaseError as exc:
                    self._failed(exc)
        return 0

    def __len__(self) -> int:
        with self._lock:
            conn = self._connect()
            if conn is None:
                return 0
            return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _damaged(exc: sqlite3.Error) -> bool:
    """Is the error SQLite's word for a damaged file (not a lock, a full disk or a read-only one)?"""
    text = str(exc).lower()
    return not isinstance(exc, sqlite3.OperationalError) and ("malformed" in text or "not a database" in text)


def for_embedder(root: Path, embedder) -> DiskVectorCache | None:
    """The disk cache of this embedder's model under `root` (the shared cache), or None when it is switched off
    (KGTOOL_VECTOR_CACHE=0) or the model has no name to key it by."""
    if os.environ.get("KGTOOL_VECTOR_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    model = str(getattr(embedder, "name", "") or "")
    if not model:
        return None
    return DiskVectorCache(cache_path(root, model), model)


__all__ = ["DiskVectorCache", "VectorCacheError", "cache_path", "for_embedder"]
