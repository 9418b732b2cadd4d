"""Exceptions in callbacks, re-entrancy, stopping, and threads."""

from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

import cadence
from cadence import Tick


class Boom(Exception):
    pass


def explode(tick: Tick) -> None:
    raise Boom(f"tick at {tick.fire_date}")


def test_exception_in_callback_is_reraised_from_run(loop: cadence.Loop) -> None:
    survivors: list[Tick] = []
    publisher = loop.publish(0.02)
    _sub1 = publisher.subscribe(survivors.append)
    _conn2 = publisher.connect()
    loop.schedule(0.05, explode)
    started = time.monotonic()
    with pytest.raises(Boom, match="tick at") as info:
        loop.run(5.0)
    assert time.monotonic() - started < 2.0  # the loop was stopped, not run for 5 s
    assert info.traceback[-1].name == "explode"  # the original traceback is kept
    # The loop is usable afterwards, and the other timer was not disturbed.
    heard = len(survivors)
    loop.run(0.05)
    assert len(survivors) > heard


@pytest.mark.parametrize(
    ("first", "second", "raised", "hooked"),
    [
        (Boom, ValueError, Boom, ValueError),
        (Boom, SystemExit, SystemExit, Boom),
        (KeyboardInterrupt, Boom, KeyboardInterrupt, Boom),
        (SystemExit, KeyboardInterrupt, SystemExit, KeyboardInterrupt),
    ],
)
def test_of_two_exceptions_in_one_pass_one_is_raised_and_the_other_hooked(
    monkeypatch: pytest.MonkeyPatch,
    first: type[BaseException],
    second: type[BaseException],
    raised: type[BaseException],
    hooked: type[BaseException],
) -> None:
    # The first wins, unless the later one is not an Exception (a request to end the program);
    # the other goes to threading.excepthook: none is lost.
    reported: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: reported.append(args.exc_value))
    loop = cadence.Loop.virtual()

    def raising(kind: type[BaseException]) -> Callable[[Tick], None]:
        def callback(tick: Tick) -> None:
            raise kind(kind.__name__)

        return callback

    # Two subscribers of one timer are called in the same pass.
    publisher = loop.publish(1.0)
    _sub3 = publisher.subscribe(raising(first))
    _sub4 = publisher.subscribe(raising(second))
    with publisher.connect(), pytest.raises(raised):
        loop.run(1.0)
    assert [type(error) for error in reported] == [hooked]
    loop.run(0.0)  # nothing left over
    assert len(reported) == 1
    loop.close()


def test_of_two_exceptions_in_a_past_countdown_one_is_raised_and_the_other_hooked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reported: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: reported.append(args.exc_value))
    loop = cadence.Loop.virtual()

    def value(remaining: int) -> None:
        raise ValueError(remaining)

    def finish() -> None:
        raise SystemExit(7)

    _countdown = loop.countdown(
        loop.now() - 1.0, 0.25, value, on_finish=finish
    )  # calls nothing yet
    assert reported == []
    with pytest.raises(SystemExit, match="7"):
        loop.run(0.0)  # both calls come on the next pass
    assert [type(error) for error in reported] == [ValueError]
    loop.close()


def test_running_or_closing_the_loop_from_its_callback_is_loop_busy(loop: cadence.Loop) -> None:
    seen: list[BaseException] = []

    def reenter(tick: Tick) -> None:
        attempts: list[Callable[[], object]] = [
            lambda: loop.run(0.1),
            lambda: loop.run(0.1, mode="nope"),
            loop.close,
        ]
        for attempt in attempts:
            try:
                attempt()
            except cadence.CadenceError as error:
                seen.append(error)
        assert loop.running

    loop.schedule(0.0, reenter)
    loop.run(0.02)
    # A running loop is busy whatever mode is asked for.
    assert [type(error) for error in seen] == [
        cadence.LoopBusy,
        cadence.LoopBusy,
        cadence.LoopBusy,
    ]
    assert not loop.closed
    assert not loop.running

    # Not caught in the callback, LoopBusy comes out of the outer run.
    loop.schedule(0.0, lambda tick: loop.run(0.1))
    with pytest.raises(cadence.LoopBusy):
        loop.run(0.5)


def test_stop_from_a_callback_and_from_another_thread(loop: cadence.Loop) -> None:
    loop.schedule(0.02, lambda tick: loop.stop())
    started = time.monotonic()
    loop.run(5.0)
    assert time.monotonic() - started < 2.0

    loop.stop()  # not running: does nothing
    stopper = threading.Timer(0.05, loop.stop)
    stopper.start()
    started = time.monotonic()
    loop.run(5.0)
    assert time.monotonic() - started < 2.0
    stopper.join()


def test_callbacks_run_on_the_thread_inside_run(loop: cadence.Loop) -> None:
    threads: list[int] = []
    first_tick = threading.Event()

    def record(tick: Tick) -> None:
        threads.append(threading.get_ident())
        first_tick.set()

    publisher = loop.publish(0.02)
    _sub5 = publisher.subscribe(record)
    _conn6 = publisher.connect()  # armed from this thread ...
    worker = threading.Thread(target=loop.run, args=(5.0,))
    worker.start()
    assert first_tick.wait(timeout=5.0)
    assert loop.running
    with pytest.raises(cadence.LoopBusy):
        loop.close()  # ... closing while another thread runs it is refused
    with pytest.raises(cadence.LoopBusy):
        loop.run(0.01)
    loop.stop()  # from another thread: the worker's run returns
    worker.join(timeout=5.0)
    assert not worker.is_alive()
    assert set(threads) == {worker.ident}  # ... and it fired on the thread that ran it
    _conn6.close()
