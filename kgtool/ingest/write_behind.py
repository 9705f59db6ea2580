"""Write each batch on a background thread while the caller prepares the next one.

Preparing a batch (reading, extraction, EATR, row building) is client CPU and
writing it is mostly server work, so overlapping the two keeps both busy.
Writes stay one at a time and in order, and a failed write stops the run
before any later batch is written: its error is raised from write_behind.
"""
from __future__ import annotations

import gc
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# While the preparing thread computes, the writer thread that has a reply from the
# server waits for the GIL for up to the interpreter's switch interval (5 ms by
# default) at every round trip, and the server idles meanwhile; 0.5 ms hands the
# writer the GIL promptly.
HANDOFF_SECONDS = 0.0005
# Preparing makes millions of small objects without reference cycles, and with the
# default first-generation threshold (700) the cyclic collector ran thousands of
# times per 50,000 edits, a third of the preparation's CPU, each pass holding the
# GIL against the writer thread too; collecting 70 times less often cut its time to 6%.
GC_THRESHOLDS = (50_000, 20, 20)


def write_behind(batches: Iterable[T], write: Callable[[T], R],
                 written: Callable[[T, R], None] | None = None, *, thread_name: str = "kgtool-write") -> None:
    """write(batch) for each batch on one writer thread, taking the next batch from `batches`
    (which prepares it) while the previous one is written; written(batch, result) runs in the
    caller's thread after each write, in order."""
    def settle(pending: tuple[T, Future]) -> None:
        result = pending[1].result()
        if written is not None:
            written(pending[0], result)

    with prompt_handoff(), fewer_collections(), \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=thread_name) as writer:
        pending = None
        for batch in batches:
            if pending is not None:
                settle(pending)
            pending = (batch, writer.submit(write, batch))
        if pending is not None:
            settle(pending)


@contextmanager
def prompt_handoff(seconds: float = HANDOFF_SECONDS) -> Iterator[None]:
    """A GIL switch interval of at most `seconds` for the duration; it is process-wide, so the
    previous one is restored afterwards."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, seconds))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@contextmanager
def fewer_collections(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> Iterator[None]:
    """Cyclic-GC thresholds of at least `thresholds` for the duration; they are process-wide, so
    the previous ones are restored afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(b, t) for b, t in zip(before, thresholds)))
    try:
        yield
    finally:
        gc.set_threshold(*before)
