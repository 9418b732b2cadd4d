"""asyncio: timers, countdowns and pollers delivered into a running asyncio loop from a Cadence
loop on its own thread; cancelling the task cancels the Cadence side."""

from __future__ import annotations

import asyncio
import gc
import re
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

import cadence
from cadence import _state

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Waits in asyncio until ``condition()`` holds, checking every millisecond, and fails after
    ``timeout`` seconds of real time: for a state that ticks reach, instead of a guessed sleep (the
    asyncio form of test_thread.py's ``wait_for``)."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"still false after {timeout} s"
        await asyncio.sleep(0.001)


def on_the_grid(dates: list[float], interval: float) -> bool:
    """Whether each date follows the one before by a whole number (at least one) of intervals:
    the timer's grid, with any missed ticks skipped."""
    steps = [(b - a) / interval for a, b in zip(dates, dates[1:])]
    return all(step > 0.5 and abs(step - round(step)) < 1e-4 for step in steps)


async def settle(loop: cadence.Loop, seconds: float) -> tuple[int, int]:
    """The loop's counters before and after ``seconds`` of asyncio sleep."""
    before = loop.wakeups
    await asyncio.sleep(seconds)
    return before, loop.wakeups


def test_a_task_iterating_a_50ms_timer_gets_its_ticks_and_cancelling_stops_the_timer() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            timer = loop.publish(0.05).autoconnect()
            dates: list[float] = []
            threads: set[int] = set()

            async def consume() -> None:
                async for fire_date in timer:
                    dates.append(fire_date)
                    threads.add(threading.get_ident())

            connected = loop.now()
            task = asyncio.create_task(consume())
            await eventually(lambda: len(dates) >= 5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert threads == {threading.get_ident()}  # delivered into the asyncio thread
            # Fire dates are on the timer's grid, 50 ms apart (or a multiple, if a tick was
            # skipped on a loaded machine), in order, the first one interval after connecting.
            assert on_the_grid(dates, 0.05), dates
            assert dates[0] >= connected + 0.05
            # The last subscriber left: the autoconnect timer is gone, and the loop sleeps. (The
            # engine may still count one wake-up at the cancelled timer's next fire date, which
            # it had gone to sleep for: the counters are read after that.)
            assert loop.armed_timer_count == 0
            count = len(dates)
            next_date = dates[-1] + 0.05
            await eventually(lambda: loop.now() > next_date + 0.05)  # that wake-up is behind us
            before, after = await settle(loop, 0.25)
            assert after == before
            assert len(dates) == count
            assert loop.armed_timer_count == 0

    run(main())


def test_break_and_aclose_cancel_the_subscription() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            timer = loop.publish(0.02).autoconnect()
            async for _ in timer:
                break
            assert loop.armed_timer_count == 0  # the stream was dropped, the timer stopped

            stream = timer.values()
            assert loop.armed_timer_count == 1
            assert await stream.__anext__() > 0
            await stream.aclose()
            assert stream.closed
            assert loop.armed_timer_count == 0
            with pytest.raises(StopAsyncIteration):
                await stream.__anext__()

            async with timer.ticks() as ticks:
                tick = await ticks.__anext__()
                assert isinstance(tick, cadence.Tick)
                assert tick.skipped == 0
                assert "open" in repr(ticks)
            assert "closed" in repr(ticks)
            assert loop.armed_timer_count == 0

    run(main())


def test_a_connectable_publisher_ticks_only_once_connected() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            timer = loop.publish(0.02)
            stream = timer.values()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(stream.__anext__(), 0.1)
            assert stream.closed  # the timeout cancelled the waiting task
            with timer.connect():
                got = [date async for date in _take(timer.values(), 3)]
            assert len(got) == 3
            assert got == sorted(got)

    run(main())


async def _take(stream: cadence.AsyncStream[T], count: int) -> Any:
    async with stream:
        async for value in stream:
            yield value
            count -= 1
            if count == 0:
                return


def test_the_stream_ends_when_its_loop_closes() -> None:
    async def main() -> None:
        loop = cadence.Loop()
        loop.start_thread()
        stream = loop.publish(0.05).autoconnect().values()
        dates: list[float] = []
        closed_at: list[float] = []

        async def close_after_two_ticks() -> None:
            await eventually(lambda: len(dates) >= 2)
            closed_at.append(loop.now())
            loop.stop_thread()
            loop.close()

        closer = asyncio.create_task(close_after_two_ticks())
        async for date in stream:  # ends when the loop closes
            dates.append(date)
        await closer
        assert len(dates) >= 2
        assert on_the_grid(dates, 0.05), dates
        assert dates[-1] <= closed_at[0]  # nothing dated after the close
        assert "ended" in repr(stream) or "closed" in repr(stream)

    run(main())


def test_a_virtual_loop_feeds_a_stream_in_the_same_thread() -> None:
    async def main() -> None:
        with cadence.Loop.virtual() as loop:
            timer = loop.publish(0.25).autoconnect()
            stream = timer.values()
            loop.run(1.0)  # the ticks wait in the stream
            dates = [await stream.__anext__() for _ in range(4)]
            assert [round(d * 1000) for d in dates] == [250, 500, 750, 1000]
            await stream.aclose()
            assert loop.armed_timer_count == 0

    run(main())


# ---- Countdowns ----


def test_await_a_countdown_and_iterate_its_values() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            deadline = loop.now() + 0.3
            await loop.countdown(deadline, 0.05)
            assert loop.now() >= deadline  # finished, never before its deadline

            countdown = loop.countdown(loop.now() + 1.2, 0.05)
            values = [left async for left in countdown]
            assert values == [2, 1, 0]
            assert countdown.finished
            await countdown  # finished: at once
            assert [left async for left in countdown] == [0]  # the last value, then the end

    run(main())


def test_cancelling_the_task_cancels_the_countdown() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            countdown = loop.countdown(loop.now() + 10, 0.05)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(countdown, 0.1)
            assert countdown.cancelled
            assert not countdown.finished
            assert loop.armed_timer_count == 0

            iterated = loop.countdown(loop.now() + 10, 0.05)
            task = asyncio.create_task(_first(iterated))
            assert await task == 10
            await asyncio.sleep(0)  # the task's end closes its stream
            assert iterated.cancelled
            assert loop.armed_timer_count == 0

    run(main())


async def _first(countdown: cadence.Countdown) -> int:
    async for left in countdown:
        return left
    raise AssertionError("no value")


def test_a_countdown_cancelled_elsewhere_raises_cancelled_error_in_its_awaiter() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            countdown = loop.countdown(loop.now() + 10, 0.05)
            loop.schedule(0.05, lambda _: countdown.cancel())
            with pytest.raises(asyncio.CancelledError):
                await countdown
            closed = loop.countdown(loop.now() + 10, 0.05)
            closed.close()
            with pytest.raises(asyncio.CancelledError):
                await closed
            stream = loop.countdown(loop.now() + 10, 0.05)
            loop.schedule(0.05, lambda _: stream.cancel())
            assert [left async for left in stream] == [10]

    run(main())


def test_closing_the_loop_wakes_countdown_and_poller_awaiters() -> None:
    async def main() -> None:
        loop = cadence.Loop()
        loop.start_thread()
        countdown = loop.countdown(loop.now() + 10, 0.05)
        poller = loop.poller(0.05, lambda poll: None)

        async def close_soon() -> None:
            await asyncio.sleep(0.1)
            loop.stop_thread()
            loop.close()

        closer = asyncio.create_task(close_soon())
        with pytest.raises(asyncio.CancelledError):
            await countdown
        await poller  # returns: the poller is over
        await closer

    run(main())


# ---- Pollers ----


def test_an_async_operation_runs_in_the_asyncio_loop_and_polls_never_overlap() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            spans: list[tuple[float, float]] = []
            threads: set[int] = set()

            async def check(poll: cadence.Poll) -> None:
                threads.add(threading.get_ident())
                start = time.monotonic()
                await asyncio.sleep(0.08)
                spans.append((start, time.monotonic()))

            poller = loop.poller(0.02, check)
            waiting = asyncio.ensure_future(poller)
            await eventually(lambda: len(spans) >= 3)  # polls for a while ...
            waiting.cancel()  # ... then cancelling the awaiting task stops it
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert poller.cancelled
            assert threads == {threading.get_ident()}
            for (_, end), (start, _) in zip(spans, spans[1:]):
                assert start >= end  # the next poll waited for the previous one

    run(main())


def test_cancelling_a_poller_cancels_its_running_poll_and_errors_go_to_asyncio() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.threaded():
            aloop = asyncio.get_running_loop()
            reported: list[dict[str, Any]] = []
            aloop.set_exception_handler(lambda _, context: reported.append(context))
            cancelled = asyncio.Event()

            started = asyncio.Event()

            async def slow(poll: cadence.Poll) -> None:
                started.set()
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    cancelled.set()
                    raise

            poller = loop.poller(0.02, slow)
            await asyncio.wait_for(started.wait(), 10)
            poller.cancel()
            await asyncio.wait_for(cancelled.wait(), 1)
            await poller  # over: returns at once

            async def fail(poll: cadence.Poll) -> None:
                raise ValueError(f"poll {poll.number}")

            failing = loop.poller(0.05, fail)
            await eventually(lambda: len(reported) >= 2)  # the poller went on after a failure
            failing.cancel()
            assert isinstance(reported[0]["exception"], ValueError)
            assert "poll 1" in str(reported[0]["exception"])
            assert "cadence.Poller" in reported[0]["message"]

    run(main())


def test_an_awaitable_operation_outside_asyncio_is_a_type_error() -> None:
    async def operation() -> None:
        raise AssertionError("never awaited")

    with cadence.Loop.virtual() as loop:
        poller = loop.poller(1.0, lambda poll: operation())
        with pytest.raises(TypeError, match="outside a running asyncio loop"):
            loop.run(1.5)
        assert not poller.cancelled  # the poll was finished: the next one may start
        with pytest.raises(TypeError):
            loop.run(1.0)
        poller.cancel()


# ---- Attached to the asyncio loop: no thread ----


def test_attached_timers_interleave_with_asyncio_sleeps_on_the_grid_with_no_thread() -> None:
    async def main() -> None:
        threads = threading.active_count()
        events: list[tuple[str, float]] = []
        late: list[float] = []
        counts: set[int] = set()
        skipped: list[int] = []
        with cadence.Loop() as loop, loop.attach_asyncio():

            def on_tick(tick: cadence.Tick) -> None:
                late.append(loop.now() - tick.fire_date)
                counts.add(threading.active_count())
                events.append(("cadence", tick.fire_date))
                skipped.append(tick.skipped)

            ticker = loop.schedule(0.03, on_tick, interval=0.03)

            async def sleeper() -> None:
                for _ in range(6):
                    await asyncio.sleep(0.045)
                    events.append(("asyncio", loop.now()))

            await sleeper()
            ticker.cancel()
        assert threading.active_count() == threads
        assert counts == {threads}
        kinds = [kind for kind, _ in events]
        assert kinds.count("asyncio") == 6
        # Interleaved: each 45 ms sleep spans a 30 ms grid point, whose pass asyncio runs no
        # later than the sleeper's wake-up (ready descriptors before due timers).
        sleeps = [i for i, kind in enumerate(kinds) if kind == "asyncio"]
        assert all("cadence" in kinds[a:b] for a, b in zip([0, *sleeps], sleeps)), kinds
        dates = [date for kind, date in events if kind == "cadence"]
        # The grid: each date 1 + skipped intervals after the one before (none skipped unless
        # the machine stalled the asyncio thread for a whole interval).
        for before, date, missed in zip(dates, dates[1:], skipped[1:]):
            assert date - before == pytest.approx(0.03 * (1 + missed), abs=1e-6)
        assert min(late) >= 0  # never early
        assert sorted(late)[len(late) // 2] < 0.02  # on a loaded machine, still near the date

    run(main())


def test_attached_streams_countdowns_and_pollers_run_on_the_asyncio_thread() -> None:
    async def main() -> None:
        threads = threading.active_count()
        with cadence.Loop() as loop, loop.attach_asyncio() as attachment:
            assert "attached" in repr(loop)
            assert attachment.attached
            timer = loop.publish(0.02).autoconnect()
            dates = [date async for date in _take(timer.values(), 3)]
            assert [round((b - a) * 1000) for a, b in zip(dates, dates[1:])] == [20, 20]
            assert loop.armed_timer_count == 0  # the stream's end cancelled the timer

            assert [left async for left in loop.countdown(loop.now() + 0.3, 0.05)] == [1, 0]
            await loop.countdown(loop.now() + 0.05, 0.01)

            seen: list[int] = []

            async def check(poll: cadence.Poll) -> None:
                seen.append(threading.get_ident())
                await asyncio.sleep(0)

            poller = loop.poller(0.02, check)
            waiting = asyncio.ensure_future(poller)
            await eventually(lambda: len(seen) >= 2)
            waiting.cancel()  # cancelling the awaiting task stops the poller
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert poller.cancelled
            assert set(seen) == {threading.get_ident()}
            assert threading.active_count() == threads
        assert not attachment.attached

    run(main())


def test_cancelling_the_task_cancels_the_attached_timer() -> None:
    async def main() -> None:
        with cadence.Loop() as loop, loop.attach_asyncio():
            timer = loop.publish(0.02).autoconnect()
            got: list[float] = []

            async def consume() -> None:
                async for date in timer:
                    got.append(date)

            task = asyncio.create_task(consume())
            await eventually(lambda: len(got) >= 2)
            assert loop.armed_timer_count == 1
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert loop.armed_timer_count == 0

            countdown = loop.countdown(loop.now() + 10, 0.05)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(countdown, 0.1)
            assert countdown.cancelled
            assert loop.armed_timer_count == 0

    run(main())


def test_a_callback_error_during_an_attached_pass_goes_to_the_asyncio_exception_handler() -> None:
    async def main() -> None:
        aloop = asyncio.get_running_loop()
        reported: list[dict[str, Any]] = []
        aloop.set_exception_handler(lambda _, context: reported.append(context))
        with cadence.Loop() as loop, loop.attach_asyncio():
            fired: list[float] = []

            def fail(tick: cadence.Tick) -> None:
                raise ValueError("from a callback")

            loop.schedule(0.01, fail)
            loop.schedule(0.05, lambda tick: fired.append(tick.fire_date))
            await eventually(lambda: bool(fired))  # the loop went on
        assert len(reported) == 1
        assert isinstance(reported[0]["exception"], ValueError)
        assert "cadence.Loop" in reported[0]["message"]

    run(main())


def test_an_attached_loop_is_busy_and_a_virtual_one_cannot_attach() -> None:
    async def main() -> None:
        with cadence.Loop() as loop:
            attachment = loop.attach_asyncio()
            with pytest.raises(cadence.LoopBusy):
                loop.attach_asyncio()
            with pytest.raises(cadence.LoopBusy) as info:
                loop.run(0.01)
            assert str(info.value) == (
                "Loop.run: loop must not be running, attached to asyncio or on a thread of its "
                "own, got one that is (called from one of its callbacks, from another thread, "
                "after start_thread or attach_asyncio?)"
            )
            with pytest.raises(cadence.LoopBusy):
                loop.start_thread()
            with pytest.raises(cadence.LoopBusy):
                loop.run_pass()
            attachment.detach()
            attachment.detach()  # harmless
            loop.run(0.01)  # runnable again
            with pytest.raises(cadence.UnknownMode, match=r"Loop\.attach_asyncio"):
                loop.attach_asyncio(mode="nope")
            assert not loop.running  # left detached
        with cadence.Loop.virtual() as virtual, pytest.raises(cadence.NotSupported):
            virtual.attach_asyncio()

    run(main())
    # Attached in a coroutine, closed after asyncio.run: close() detaches.
    loop = cadence.Loop()

    async def attach_only() -> None:
        loop.attach_asyncio()

    run(attach_only())
    assert loop.running
    loop.close()
    assert loop.closed
    with cadence.Loop() as loop:
        with pytest.raises(RuntimeError) as info:
            loop.attach_asyncio()
        assert type(info.value) is RuntimeError
        assert str(info.value) == (
            "Loop.attach_asyncio must be called from a coroutine (or callback) running on an "
            "asyncio loop"
        )
        assert type(info.value.__cause__) is RuntimeError
        assert str(info.value.__cause__) == "no running event loop"  # asyncio's, chained
        assert not loop.running  # nothing was claimed
        loop.run(0.0)


def test_an_attached_loop_is_collected_once_its_asyncio_loop_is_closed() -> None:
    """The attachment holds the loop while asyncio holds the attachment; a closed asyncio loop
    lets go of both, and the loop is collected and closed without a detach."""
    alive: list[weakref.ref[cadence.Loop]] = []
    states: list[_state.LoopState] = []

    async def main() -> None:
        loop = cadence.Loop()
        loop.schedule(10, lambda tick: None)
        loop.attach_asyncio()
        alive.append(weakref.ref(loop))
        states.append(loop._state)

    run(main())
    gc.collect()
    assert alive[0]() is None
    assert not states[0].handle  # the C loop was destroyed (not refused as running)


def test_waiting_on_a_loop_that_nothing_runs_raises() -> None:
    async def main() -> None:
        with cadence.Loop() as loop:
            with pytest.raises(RuntimeError, match="nothing runs"):
                async for _ in loop.publish(0.01).autoconnect():
                    pass
            countdown = loop.countdown(loop.now() + 1, 0.1)
            with pytest.raises(RuntimeError, match="nothing runs"):
                await countdown
            poller = loop.poller(0.1, lambda poll: None)
            with pytest.raises(RuntimeError, match="nothing runs"):
                await poller
            assert not countdown.cancelled  # it may still be run
            assert not poller.cancelled
        with cadence.Loop.virtual() as virtual:
            stream = virtual.publish(0.25).autoconnect().values()
            virtual.run(0.5)
            assert await stream.__anext__() == 0.25  # buffered values need no runner
            assert await stream.__anext__() == 0.5
            told = "cadence: a virtual loop moves only when told, and nothing runs this one: "
            with pytest.raises(RuntimeError, match=rf"^{re.escape(told)}.*VirtualEventLoop.*first"):
                await stream.__anext__()
            with pytest.raises(RuntimeError, match="moves only when told"):
                await virtual.sleep(1)  # nothing can move it meanwhile, even from this thread

    run(main())


def test_stop_does_not_end_an_attachment() -> None:
    """loop.stop() while attached to asyncio stops nothing: the timers go on firing there."""

    async def main() -> None:
        with cadence.Loop() as loop, loop.attach_asyncio() as attachment:
            fired: list[float] = []
            three = asyncio.get_running_loop().create_future()

            def tick(tick: cadence.Tick) -> None:
                fired.append(tick.fire_date)
                if len(fired) == 3:
                    three.set_result(None)

            timer = loop.schedule(0.0, tick, interval=0.02)
            loop.stop()
            await asyncio.wait_for(three, 5.0)  # three fires after the stop
            assert attachment.attached
            assert loop.running
            timer.cancel()

    run(main())
