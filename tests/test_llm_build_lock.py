"""Two processes sharing a runtime directory never build llama-server into the same tree at once."""
from __future__ import annotations

import fcntl
import threading
import time

from kgtool.config import Settings
from kgtool.models.llm_server import LlamaServerBuild


def test_a_second_build_waits_for_the_first_and_takes_its_binary(tmp_path):
    build = LlamaServerBuild(Settings(home=tmp_path / "home", runtime_dir=tmp_path / "runtime"))
    build.root.mkdir(parents=True)
    builds, said, result = [], [], []
    build._build = lambda say: builds.append(say) or build.binary  # a second build would be recorded here

    with open(build.root / ".build.lock", "w") as first:  # another process is building
        fcntl.flock(first, fcntl.LOCK_EX)
        waiter = threading.Thread(target=lambda: result.append(build.ensure(said.append)))
        waiter.start()
        for _ in range(100):
            if said:
                break
            time.sleep(0.05)
        assert said and "waiting" in said[0]
        assert waiter.is_alive() and not result  # it waits while the lock is held
        build.binary.parent.mkdir(parents=True)  # the first build finishes
        build.binary.write_text("")
        (build.root / ".complete").write_text("done")
    waiter.join(10)
    assert result == [build.binary]
    assert builds == []
