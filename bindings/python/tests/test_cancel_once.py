"""cancel() says whether this call stopped the work, decided atomically by the engine: two
threads cancelling the same countdown, poller or scheduled timer get exactly one True (the C
test cancel_once and Swift's CancelOnceTests race 10,000 of each)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence

import pytest

import cadence

ROUNDS = 500


@pytest.fixture
def virtual() -> Iterator[cadence.Loop]:
    with cadence.Loop.virtual() as fresh:
        yield fresh


def race(cancellables: Sequence[cadence.Cancellable]) -> list[int]:
    """Both threads cancel every cancellable in the same order; returns the rounds where the two
    results were not one True and one False."""
    results: list[list[bool]] = [[], []]
    start = threading.Barrier(2)

    def cancel_all(worker: int) -> None:
        start.wait()
        results[worker] = [c.cancel() for c in cancellables]

    threads = [threading.Thread(target=cancel_all, args=(w,)) for w in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results[0]) == len(results[1]) == len(cancellables)
    assert not any(c.cancel() for c in cancellables)  # every later cancel too
    return [i for i in range(len(cancellables)) if results[0][i] == results[1][i]]


@pytest.mark.parametrize(
    "start",
    [
        pytest.param(lambda loop, cb: loop.countdown(loop.now() + 60, 1, cb), id="countdown"),
        pytest.param(lambda loop, cb: loop.poller(1, cb), id="poller"),
        pytest.param(lambda loop, cb: loop.schedule(1, cb), id="one-shot"),
        pytest.param(lambda loop, cb: loop.schedule(1, cb, interval=1), id="repeating"),
    ],
)
def test_two_threads_cancelling_get_one_success(
    virtual: cadence.Loop, start: Callable[[cadence.Loop, Callable[..., None]], cadence.Cancellable]
) -> None:
    fired: list[object] = []
    cancellables = [start(virtual, lambda *args: fired.append(args)) for _ in range(ROUNDS)]
    fired.clear()  # a countdown's first value may come when it starts
    assert race(cancellables) == []
    assert virtual.armed_timer_count == 0
    virtual.run(10)
    assert fired == []
