"""asyncio on Cadence (cadence.asyncio): the same asyncio programs give the same results on
asyncio's default loop, on Cadence's ``EventLoop`` and, where they do not measure wall time, on
its virtual twin; Cadence's loop never ends a sleep early."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import math
import random
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

import pytest

import cadence
import cadence.asyncio as ca

T = TypeVar("T")
Factory = Callable[[], asyncio.AbstractEventLoop]

LOOPS: dict[str, Factory] = {
    "default": asyncio.new_event_loop,
    "cadence": ca.EventLoop,
    "virtual": ca.VirtualEventLoop,
}


def run(factory: Factory, main: Coroutine[Any, Any, T]) -> T:
    """``main`` on a new loop of ``factory``, closed after it (``asyncio.run``'s steps)."""
    loop = factory()
    try:
        return loop.run_until_complete(main)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


@pytest.fixture(params=list(LOOPS))
def factory(request: pytest.FixtureRequest) -> Factory:
    return LOOPS[request.param]


async def sleeps_in_order() -> list[str]:
    """Tasks sleeping different times finish in the order of their ends."""
    order: list[str] = []

    async def sleeper(name: str, delay: float) -> None:
        await asyncio.sleep(delay)
        order.append(name)

    await asyncio.gather(sleeper("c", 0.03), sleeper("a", 0.01), sleeper("b", 0.02))
    return order


async def timeouts() -> list[str]:
    """wait_for and asyncio.timeout: what ends in time, what times out, what a cancel reaches."""
    seen = [await asyncio.wait_for(asyncio.sleep(0.01, "in time"), 1)]
    try:
        await asyncio.wait_for(asyncio.sleep(1), 0.02)
    except asyncio.TimeoutError:  # the builtin since 3.11, its own class before
        seen.append("wait_for timed out")
    if sys.version_info >= (3, 11):
        try:
            async with asyncio.timeout(0.02):
                await asyncio.sleep(1)
        except asyncio.TimeoutError:
            seen.append("timeout() timed out")
    else:
        seen.append("timeout() timed out")  # asyncio.timeout came in 3.11
    task = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    seen.append(f"cancelled={task.cancelled()}")
    return seen


async def call_later_chain() -> list[int]:
    """call_later callbacks that schedule the next; a cancelled one never runs."""
    loop = asyncio.get_running_loop()
    seen: list[int] = []
    done = loop.create_future()

    def step(n: int) -> None:
        seen.append(n)
        if n < 4:
            loop.call_later(0.005, step, n + 1)
        else:
            done.set_result(None)

    loop.call_later(0.005, step, 0)
    loop.call_later(0.001, seen.append, -1).cancel()
    await done
    return seen


async def to_thread_beside_sleeps() -> list[str]:
    """A thread's result, awaited with a timeout, beside a task that sleeps meanwhile."""
    seen: list[str] = []

    async def ticker() -> None:
        for n in range(3):
            await asyncio.sleep(0.01)
            seen.append(f"tick {n}")

    def work_in_thread() -> str:
        time.sleep(0.05)
        return "thread done"

    work = asyncio.wait_for(asyncio.to_thread(work_in_thread), 10)
    result, _ = await asyncio.gather(work, ticker())
    return [*seen, result]


async def echo_with_read_timeout() -> list[bytes | str]:
    """A TCP echo over loopback; a read that nothing answers times out."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data = await reader.read(100)
        if data != b"quiet":
            writer.write(data)
            await writer.drain()
        await reader.read()  # until the client closes
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    seen: list[bytes | str] = []
    for message in (b"hello", b"quiet"):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(message)
        try:
            seen.append(await asyncio.wait_for(reader.read(100), 0.5))
        except asyncio.TimeoutError:
            seen.append("read timed out")
        writer.close()
        await writer.wait_closed()
    server.close()
    await server.wait_closed()
    return seen


PROGRAMS: dict[str, tuple[Callable[[], Coroutine[Any, Any, Any]], Any]] = {
    "sleeps": (sleeps_in_order, ["a", "b", "c"]),
    "timeouts": (
        timeouts,
        ["in time", "wait_for timed out", "timeout() timed out", "cancelled=True"],
    ),
    "call_later": (call_later_chain, [0, 1, 2, 3, 4]),
    "to_thread": (to_thread_beside_sleeps, ["tick 0", "tick 1", "tick 2", "thread done"]),
    "echo": (echo_with_read_timeout, [b"hello", "read timed out"]),
}


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_a_program_gives_the_same_result_on_every_loop(factory: Factory, program: str) -> None:
    main, expected = PROGRAMS[program]
    assert run(factory, main()) == expected


def early_sleeps(factory: Factory, count: int) -> int:
    """How many of ``count`` concurrent short sleeps end before their time by time.monotonic()."""

    async def main() -> int:
        rng = random.Random(20261205)

        async def sleeper(delay: float) -> bool:
            start = time.monotonic()
            await asyncio.sleep(delay)
            return time.monotonic() - start < delay

        delays = [rng.uniform(0.0001, 0.01) for _ in range(count)]
        return sum(await asyncio.gather(*(sleeper(d) for d in delays)))

    return run(factory, main())


def test_cadence_never_ends_a_sleep_early() -> None:
    cadence_early = early_sleeps(ca.EventLoop, 10_000)
    default_early = early_sleeps(asyncio.new_event_loop, 10_000)
    print(
        f"\nearly ends of 10,000 sleeps: Cadence {cadence_early}, asyncio's default {default_early}"
    )
    assert cadence_early == 0


def test_time_is_the_cadence_loops_clock_and_call_at_keeps_it() -> None:
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        fired = loop.create_future()
        when = loop.time() + 0.02
        handle = loop.call_at(when, lambda: fired.set_result(loop.time()))
        assert handle.when() == when
        return when, await fired

    when, at = run(ca.EventLoop, main())
    assert when <= at < when + 0.2


@pytest.mark.parametrize("factory", [ca.EventLoop, ca.VirtualEventLoop])
def test_call_at_keeps_the_order_of_dates_however_close(factory: Factory) -> None:
    # Armed latest date first, 10 ns apart: a timer armed by its delay from a clock read of its
    # own would be off by the microseconds between the reads, and fire out of order.
    loop = factory()
    try:
        order: list[int] = []
        base = loop.time() + 0.02
        for k in range(20, 0, -1):
            loop.call_at(base + k * 1e-8, order.append, k)
        loop.call_at(base + 0.01, loop.stop)
        loop.run_forever()
        assert order == list(range(1, 21))
    finally:
        loop.close()


def test_a_cancelled_timer_handle_frees_its_cadence_timer_at_once() -> None:
    async def main() -> tuple[int, int, int]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        before = loop.cadence.armed_timer_count
        handles = [loop.call_later(60, print) for _ in range(100)]
        armed = loop.cadence.armed_timer_count
        for handle in handles:
            handle.cancel()
        return before, armed, loop.cadence.armed_timer_count

    before, armed, after = run(ca.EventLoop, main())
    assert (armed - before, after - before) == (100, 0)


def test_tolerance_lets_timers_share_wakeups_and_never_fire_early() -> None:
    async def main(late: float) -> tuple[int, float]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        wakeups = loop.cadence.wakeups
        early: list[float] = []

        async def sleeper(delay: float) -> None:
            start = loop.time()
            await asyncio.sleep(delay)
            early.append(loop.time() - start - delay)

        with ca.tolerance(late):
            await asyncio.gather(*(sleeper(0.01 * n) for n in range(1, 21)))
        return loop.cadence.wakeups - wakeups, min(early)

    exact, exact_early = run(ca.EventLoop, main(0.0))
    coalesced, coalesced_early = run(ca.EventLoop, main(0.05))
    assert exact_early >= 0
    assert coalesced_early >= 0
    # 20 sleeps 10 ms apart: alone each wakes the loop (a loaded machine may merge a few); with
    # 50 ms of tolerance a wake-up serves six, so four wake-ups serve them all.
    assert exact >= 10
    assert coalesced <= 5


def test_the_loop_given_is_run_and_kept() -> None:
    with cadence.Loop() as loop:
        event_loop = ca.EventLoop(loop)
        ticks: list[float] = []

        async def main() -> None:
            fired = asyncio.get_running_loop().create_future()

            def tick(tick: cadence.Tick) -> None:
                ticks.append(tick.fire_date)
                fired.set_result(None)

            loop.schedule(0.01, tick)
            with pytest.raises(cadence.LoopBusy):
                loop.run(0.01)
            await asyncio.wait_for(fired, 10)  # the event loop runs the given loop's timers

        event_loop.run_until_complete(main())
        event_loop.close()
        assert not loop.closed
        assert len(ticks) == 1


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(cadence.InvalidArgument):
        ca.EventLoop(tolerance=-1)
    with pytest.raises(ValueError, match="idle_limit"):
        ca.VirtualEventLoop(idle_limit=0)
    with pytest.raises(cadence.InvalidArgument), ca.tolerance(float("nan")):
        pass

    async def main() -> None:
        loop = asyncio.get_running_loop()
        with pytest.raises(TypeError):
            loop.call_at(None, print)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="got nan"):
            loop.call_at(float("nan"), print)
        with pytest.raises(TypeError, match="got '3'"):
            loop.call_at("3", print)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="got b'3'"):
            loop.call_later(b"3", print)  # type: ignore[arg-type]
        loop.call_later(float("inf"), print).cancel()  # never due: no timer

    run(ca.EventLoop, main())
    with pytest.raises(
        TypeError, match=r"EventLoop: loop must be a cadence\.Loop or None, got 'x'"
    ):
        ca.EventLoop("x")  # type: ignore[arg-type]


def test_a_date_beyond_a_double_is_an_infinite_wait_and_costs_the_others_nothing() -> None:
    # An int too large for a double is accepted as asyncio accepts it (never due), and checked
    # when it is made: the other starts of the same turn are armed and fire.
    calls: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.01, calls.append, "soon")
        far = loop.call_at(10**400, calls.append, "never")
        later = loop.call_later(-(10**400), calls.append, "at once")
        assert far.when() == 10**400
        assert isinstance(loop, ca.EventLoop)
        assert loop.cadence.armed_timer_count == 2  # "soon" and "at once": no timer for "never"
        await asyncio.sleep(0.05)
        far.cancel()
        later.cancel()

    run(ca.EventLoop, main())
    assert calls == ["at once", "soon"]


def test_what_waits_on_an_infinite_timer_lives_until_it_is_cancelled(factory: Factory) -> None:
    # asyncio keeps an infinite wait's handle in its heap, and so what waits on it: a task in
    # sleep(inf) that nobody else refers to is not collected while it waits, nor is a handle
    # that nobody keeps, even one equal to another (same date, callback and arguments).
    # Cancelled, the handles let their callbacks and arguments go.
    class Token:
        pass

    events: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(math.inf)
        finally:
            events.append("ended")

    async def main() -> tuple[int, bool, bool]:
        loop = asyncio.get_running_loop()
        asyncio.ensure_future(forever())  # no reference kept  # noqa: RUF006
        token = Token()
        kept = weakref.ref(token)
        first = loop.call_at(math.inf, id, token)
        second = weakref.ref(loop.call_at(math.inf, id, token))  # equal to the first
        del token
        await asyncio.sleep(0.01)
        gc.collect()
        waiting = asyncio.all_tasks() - {asyncio.current_task()}  # the task in sleep(inf)
        both = second() is not None
        first.cancel()
        if (handle := second()) is not None:
            handle.cancel()
        del first, handle
        gc.collect()
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        return len(waiting), both, kept() is None

    assert run(factory, main()) == (1, True, True)
    assert events == ["ended"]  # cancelled, not collected


def test_a_policy_makes_cadence_loops() -> None:
    policy = ca.EventLoopPolicy()
    loop = policy.new_event_loop()
    try:
        assert type(loop) is ca.EventLoop
    finally:
        loop.close()
    virtual = ca.EventLoopPolicy(virtual=True).new_event_loop()
    try:
        assert type(virtual) is ca.VirtualEventLoop
        assert virtual.time() == 0.0
    finally:
        virtual.close()


def test_a_callback_of_the_cadence_loop_that_raises_goes_to_the_exception_handler() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        seen: list[str] = []
        handled = loop.create_future()

        def handle(_: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            seen.append(str(context["exception"]))
            handled.set_result(None)

        loop.set_exception_handler(handle)

        def fail(_: cadence.Tick) -> None:
            raise ValueError("boom")

        loop.cadence.schedule(0.01, fail)
        await asyncio.wait_for(handled, 10)
        return seen

    assert run(ca.EventLoop, main()) == ["boom"]


def test_timers_armed_from_another_thread_through_call_soon_threadsafe_fire() -> None:
    async def main() -> str:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        threading.Thread(
            target=lambda: loop.call_soon_threadsafe(loop.call_later, 0.01, done.set_result, "ok")
        ).start()
        return await asyncio.wait_for(done, 5)

    assert run(ca.EventLoop, main()) == "ok"


def test_a_socket_pair_reads_on_the_cadence_loop() -> None:
    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        left, right = socket.socketpair()
        with left, right:
            left.setblocking(False)
            right.setblocking(False)
            loop.call_later(0.01, right.send, b"ping")
            return await loop.sock_recv(left, 4)

    assert run(ca.EventLoop, main()) == b"ping"


@pytest.mark.parametrize("runs", ["attached", "threaded"])
def test_a_loops_own_sleep_never_ends_early_and_is_cancelled_with_its_task(runs: str) -> None:
    async def main() -> tuple[float, float, int]:
        with (
            cadence.Loop() as loop,
            loop.attach_asyncio() if runs == "attached" else loop.threaded(),
        ):
            start = loop.now()
            await loop.sleep(0.02, tolerance=0.01)
            slept = loop.now() - start
            await loop.sleep_until(loop.now() + 0.01)

            async def armed_beyond(count: int) -> int:
                while loop.armed_timer_count <= count:
                    await asyncio.sleep(0.001)
                return loop.armed_timer_count

            before = loop.armed_timer_count
            task = asyncio.ensure_future(loop.sleep(60))
            armed = await asyncio.wait_for(armed_beyond(before), 10)  # its first step arms it
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return slept, loop.now() - start, armed - loop.armed_timer_count

    slept, total, freed = asyncio.run(main())
    assert 0.02 <= slept < 0.5
    assert total >= 0.03
    assert freed == 1


def test_time_is_time_monotonic_and_a_call_at_never_runs_before_it() -> None:
    async def main() -> list[float]:
        loop = asyncio.get_running_loop()
        before, read, after = time.monotonic(), loop.time(), time.monotonic()
        assert before <= read <= after
        done = loop.create_future()
        lateness: list[float] = []

        def check(when: float) -> None:
            lateness.append(time.monotonic() - when)
            if len(lateness) == 200:
                done.set_result(None)

        for n in range(200):
            when = time.monotonic() + 0.0005 * n
            loop.call_at(when, check, when)
        await done
        return lateness

    assert min(run(ca.EventLoop, main())) >= 0


def test_a_timer_cancelled_after_its_loop_closed_is_cancelled_quietly() -> None:
    for make in (ca.EventLoop, ca.VirtualEventLoop):
        loop = make()
        handle = loop.call_later(50, print)
        loop.close()
        handle.cancel()  # as on asyncio's loops: nothing to stop, no error
        assert handle.cancelled()


def test_a_quiet_wakeup_gets_its_timers_back_from_the_pass_without_a_call_from_c(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # cadence_loop_run_pass_collect: the pass's last timers, all asyncio's, come back with the
    # call; the batch function (which reads its records through _batch.Views) is not called.
    batches: list[int] = []
    read = cadence._batch.Views.read

    def counted(self: Any, address: int, count: int, started: int) -> Any:
        batches.append(count)
        return read(self, address, count, started)

    monkeypatch.setattr(cadence._batch.Views, "read", counted)

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        for step in range(3):
            await asyncio.sleep(0.001)
            loop.call_later(0.001, seen.append, f"later {step}")
        await asyncio.sleep(0.01)
        return seen

    assert run(ca.EventLoop, main()) == ["later 0", "later 1", "later 2"]
    assert batches == []


def test_cadence_timers_and_asyncio_timers_due_in_one_pass_keep_their_order() -> None:
    # One batch of three (an asyncio timer, one of Cadence's own, an asyncio timer) goes to the
    # batch function whole: the own timer's call_soon joins the ready queue between the two.
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        seen: list[str] = []
        done = loop.create_future()

        def own(_: cadence.Tick) -> None:
            seen.append("own")
            loop.call_soon(seen.append, "own's call_soon")

        before = loop.time()
        loop.call_at(before + 0.002, seen.append, "first")
        loop.cadence.schedule(0.004, own)  # due between the two, however slow these calls
        after = loop.time()
        loop.call_at(after + 0.006, done.set_result, None)
        loop.call_at(after + 0.006, seen.append, "last")
        time.sleep(0.02)  # all three due at the next pass
        await done
        await asyncio.sleep(0)
        return seen

    assert run(ca.EventLoop, main()) == ["own", "first", "own's call_soon", "last"]


def test_timers_made_from_another_thread_while_the_loop_runs_are_none_of_them_lost() -> None:
    # Not thread-safe in asyncio either (call_soon_threadsafe is the way), but a flush on the
    # loop's thread takes only the records complete when it began: nothing is lost or mixed up.
    count = 30_000

    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        ran: list[int] = []
        made = loop.create_future()

        def make() -> None:
            for index in range(count):
                loop.call_later(0.0005, ran.append, index)
            loop.call_soon_threadsafe(made.set_result, None)

        async def busy() -> None:  # the loop flushes and fires while the thread makes timers
            while not made.done():
                await asyncio.sleep(0.0001)

        thread = threading.Thread(target=make)
        thread.start()
        await busy()
        thread.join()
        await asyncio.sleep(0.01)  # the last ones flushed, then due
        return ran

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns often, inside a flush too
    try:
        ran = run(ca.EventLoop, main())
    finally:
        sys.setswitchinterval(switching)
    assert sorted(ran) == list(range(count))


def test_in_debug_mode_call_at_checks_the_thread_and_the_callback_as_asyncio_does() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        errors: list[str] = []

        def other_thread() -> None:
            try:
                loop.call_later(0.01, print)
            except RuntimeError as error:
                errors.append(str(error))

        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        with pytest.raises(TypeError, match="a callable object was expected by call_at"):
            loop.call_later(0.01, 42)  # type: ignore[arg-type]
        return errors

    loop = ca.EventLoop()
    loop.set_debug(True)
    try:
        errors = loop.run_until_complete(main())
    finally:
        loop.close()
    assert len(errors) == 1
    assert "Non-thread-safe operation" in errors[0]


def test_misuse_gets_errors_that_name_the_call_and_leave_nothing_behind() -> None:
    closed = cadence.Loop()
    closed.close()

    async def sleeps() -> list[str]:
        seen = []
        for sleep in (closed.sleep(0.01), closed.sleep_until(5)):
            with pytest.raises(cadence.BadHandle) as caught:
                await sleep
            seen.append(str(caught.value))
        return seen

    assert run(ca.EventLoop, sleeps()) == [
        "Loop.sleep: loop must be open, got a closed loop",
        "Loop.sleep_until: loop must be open, got a closed loop",
    ]

    async def main() -> None:
        await asyncio.sleep(0)

    coroutine = main()
    with pytest.raises(TypeError, match="idle_limit applies to a virtual loop only"):
        ca.run(coroutine, idle_limit=5)
    assert inspect.getcoroutinestate(coroutine) == "CORO_CLOSED"  # no "never awaited" warning
    with pytest.raises(TypeError, match="virtual must be True or False, got 1"):
        ca.EventLoopPolicy(virtual=1)  # type: ignore[arg-type]
    assert ca.VirtualTimeError.__module__ == "cadence.asyncio"

    threaded = cadence.Loop()
    threaded.start_thread()
    try:
        with pytest.raises(cadence.LoopBusy, match="must not run on a thread of its own"):
            ca.EventLoop(threaded)
        threaded.stop_thread()
        loop = ca.EventLoop(threaded)  # once its thread has stopped
        loop.close()
    finally:
        threaded.close()


def hundred_timers_through_an_interrupt(loop: ca.EventLoop) -> list[int]:
    """Runs 100 timers due at one date on ``loop``, through the KeyboardInterrupt that the test
    made happen on the way, then again; returns the ones that ran, and closes the loop."""
    ran: list[int] = []
    try:
        date = loop.time() + 0.01
        for index in range(100):
            loop.call_at(date, ran.append, index)
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(asyncio.sleep(0.05))
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    return ran


def test_an_interrupt_while_a_pass_queues_its_timers_loses_none_of_them() -> None:
    # A Ctrl-C lands between two bytecodes: here, as the pass's keys are given back to the table
    # (test_asyncio_interrupts.py tries every bytecode of the queueing).
    class Interrupting(list):  # type: ignore[type-arg]
        freed = 0

        def extend(self, keys: Iterable[int]) -> None:
            before = len(self)
            super().extend(keys)
            first = not Interrupting.freed
            Interrupting.freed += len(self) - before
            if first and Interrupting.freed:
                raise KeyboardInterrupt

    loop = ca.EventLoop()
    loop._armed.free = Interrupting(loop._armed.free)
    assert hundred_timers_through_an_interrupt(loop) == list(range(100))
    assert Interrupting.freed >= 100


def test_an_interrupt_from_a_callback_loses_no_other_callbacks_error() -> None:
    loop = ca.EventLoop()
    reported: list[str] = []
    loop.set_exception_handler(lambda _, context: reported.append(repr(context["exception"])))

    def interrupt(_: cadence.Tick) -> None:
        raise KeyboardInterrupt

    def fail(_: cadence.Tick) -> None:
        raise ValueError("after the interrupt")

    try:
        loop.cadence.schedule(0.01, interrupt)
        loop.cadence.schedule(0.01, fail)  # a clock read later: due microseconds after

        async def main() -> None:
            time.sleep(0.02)  # both due at the next pass, however soon it comes
            await asyncio.sleep(0.05)

        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(main())
    finally:
        loop.close()
    assert reported == ["ValueError('after the interrupt')"]


@pytest.mark.parametrize("factory", [ca.EventLoop, ca.VirtualEventLoop])
def test_while_the_loop_runs_a_ctrl_c_in_the_bindings_callbacks_is_kept_for_after(
    factory: Factory,
) -> None:
    # SIGINT has Loop.run's handler while the event loop runs (asyncio.Runner's own is left
    # alone): one that lands in the binding's callback code, which C calls during a pass, is
    # raised after the pass instead of being dropped by ctypes with the rest of a batch.
    import signal

    from cadence import _run

    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        seen: list[object] = []
        loop.cadence.schedule(0.01, lambda _: seen.append(signal.getsignal(signal.SIGINT)))
        await asyncio.sleep(0.02)
        return seen

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own
    loop = factory()
    try:
        assert loop.run_until_complete(main()) == [_run.on_sigint]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        loop.close()
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_raised_as_the_pass_returns_loses_none_of_its_timers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A SIGINT that comes while C runs the pass is raised as the call returns, after C has ended
    # the timers it collected: they still join the ready queue.
    run_pass = cadence._asyncio_loop._run_pass
    interrupted = [False]
    loop = ca.EventLoop()

    def interrupt_once(*args: Any) -> int:
        code: int = run_pass(*args)
        if not interrupted[0] and loop._collected.words[cadence._batch.COUNT] == 100:
            interrupted[0] = True
            raise KeyboardInterrupt
        return code

    monkeypatch.setattr(cadence._asyncio_loop, "_run_pass", interrupt_once)
    assert hundred_timers_through_an_interrupt(loop) == list(range(100))
    assert interrupted[0]


def test_what_an_interrupted_pass_made_ready_runs_without_a_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The interrupt ends the iteration before its I/O callbacks and its due timers are queued:
    # the next one must not wait (here nothing else could ever wake it).
    run_pass = cadence._asyncio_loop._run_pass
    loop = ca.EventLoop()

    def interrupt(*args: Any) -> int:
        run_pass(*args)
        raise KeyboardInterrupt

    ran: list[int] = []
    waited = threading.Event()

    def wake() -> None:
        waited.set()
        loop.call_soon_threadsafe(loop.stop)

    watchdog = threading.Timer(5, wake)
    try:
        done = loop.create_future()
        date = loop.time() + 0.01
        for index in range(3):
            loop.call_at(date, ran.append, index)
        loop.call_at(date, done.set_result, None)
        monkeypatch.setattr(cadence._asyncio_loop, "_run_pass", interrupt)
        with pytest.raises(KeyboardInterrupt):
            loop.run_forever()
        monkeypatch.undo()
        assert loop._armed.held() == 0  # nothing left to wake the loop
        watchdog.start()
        loop.run_until_complete(done)
    finally:
        watchdog.cancel()
        loop.close()
    assert ran == [0, 1, 2]
    assert not waited.is_set()


def test_io_made_ready_as_a_timer_falls_due_runs_first_as_on_asyncios_loop(
    factory: Factory,
) -> None:
    # asyncio queues an iteration's I/O callbacks before its due timers: data that arrives as its
    # read's timeout expires is read, not timed out.
    loop = factory()
    reader, writer = socket.socketpair()
    try:
        order: list[str] = []

        def readable() -> None:
            order.append("reader")
            reader.recv(100)
            loop.remove_reader(reader)

        def arm() -> None:
            loop.add_reader(reader, readable)
            writer.send(b"x")  # readable from now on
            loop.call_at(loop.time() - 1, order.append, "timer")  # due from now on

        loop.call_soon(arm)
        loop.run_until_complete(asyncio.sleep(0.01))
        assert order == ["reader", "timer"]
    finally:
        loop.close()
        reader.close()
        writer.close()


def test_a_due_timer_runs_at_the_next_iteration_whatever_else_is_ready(factory: Factory) -> None:
    async def main() -> tuple[int, list[str]]:
        loop = asyncio.get_running_loop()
        fired: list[str] = []
        loop.call_later(0, fired.append, "T")  # due now
        spins = 0
        while not fired and spins < 1000:  # polling, as some libraries do
            await asyncio.sleep(0)
            spins += 1
        order: list[str] = []
        loop.call_at(loop.time(), order.append, "T")

        def step(index: int) -> None:
            order.append(f"S{index}")
            if index < 3:
                loop.call_soon(step, index + 1)

        loop.call_soon(step, 1)
        await asyncio.sleep(0.01)
        return spins, order

    assert run(factory, main()) == (2, ["S1", "T", "S2", "S3"])


def test_on_the_virtual_twin_a_due_timer_runs_while_a_job_holds_the_clock() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        order: list[str] = []
        fired = threading.Event()

        def job() -> str:
            return "job saw the timer" if fired.wait(5) else "job waited in vain"

        def timer() -> None:
            order.append("timer")
            fired.set()

        running = asyncio.ensure_future(asyncio.to_thread(job))
        await asyncio.sleep(0)  # the job runs: the clock stands still
        loop.call_later(0, timer)
        order.append(await running)
        return order

    assert ca.run(main(), virtual=True) == ["timer", "job saw the timer"]


def test_another_threads_callbacks_keep_their_order_around_a_pass() -> None:
    # One made while a pass runs, one as the next iteration queues its I/O callbacks: asyncio
    # runs a thread's call_soon_threadsafe callbacks in the order they were made (where they
    # fall against a timer due in the same iteration depends on when they come).
    loop = ca.EventLoop()
    seen: list[str] = []
    sent: list[str] = []

    def from_a_thread(name: str) -> None:
        thread = threading.Thread(target=loop.call_soon_threadsafe, args=(seen.append, name))
        thread.start()
        thread.join()
        sent.append(name)

    real_pass, real_process = loop._pass, loop._process_events

    def pass_with_a_call() -> None:
        ready = len(loop._ready)  # type: ignore[attr-defined]
        real_pass()
        if len(loop._ready) > ready and not sent:  # type: ignore[attr-defined]  # it fired
            from_a_thread("A")

    def process_after_a_call(events: list[Any]) -> None:
        if sent == ["A"]:
            from_a_thread("B")
        real_process(events)

    try:
        loop._pass = pass_with_a_call  # type: ignore[method-assign]
        loop._process_events = process_after_a_call  # type: ignore[method-assign, assignment]
        loop.call_later(0.005, seen.append, "timer")
        loop.run_until_complete(asyncio.sleep(0.02))
    finally:
        loop.close()
    assert sorted(seen) == ["A", "B", "timer"]
    assert [name for name in seen if name != "timer"] == ["A", "B"]  # the order they were made


def test_the_given_cadence_loop_run_on_its_own_keeps_the_order_of_what_it_makes_ready() -> None:
    given = cadence.Loop()
    loop = ca.EventLoop(given)
    order: list[str] = []
    try:
        loop.call_at(loop.time() + 0.01, order.append, "timer, fired first")
        given.schedule(0.03, lambda _: loop.call_soon(order.append, "call_soon, made second"))
        given.run(0.06)  # the event loop is not running
        loop.run_until_complete(asyncio.sleep(0))
    finally:
        loop.close()
        given.close()
    assert order == ["timer, fired first", "call_soon, made second"]


def test_timers_left_due_by_an_interrupt_keep_their_order_with_later_ones() -> None:
    # The Cadence loop given to the event loop, run on its own between two runs of the event
    # loop, fires a later timer while an earlier one still waits to join the ready queue.
    given = cadence.Loop()
    loop = ca.EventLoop(given)
    order: list[str] = []

    def interrupt(_: cadence.Tick) -> None:
        raise KeyboardInterrupt

    try:
        now = loop.time()
        loop.call_at(now + 0.01, order.append, "early")
        given.schedule(0.01, interrupt)
        loop.call_at(now + 0.05, order.append, "later")
        time.sleep(0.02)  # the early timer and the interrupt due at the first pass
        with pytest.raises(KeyboardInterrupt):
            loop.run_forever()
        given.run(0.1)
        loop.run_until_complete(asyncio.sleep(0))
    finally:
        loop.close()
        given.close()
    assert order == ["early", "later"]


@pytest.mark.parametrize("factory", [ca.EventLoop, ca.VirtualEventLoop])
def test_a_reader_replaced_by_an_own_timer_as_its_data_comes_is_kept(factory: Factory) -> None:
    # The pass runs once asyncio has queued the iteration's I/O callbacks: a callback of
    # Cadence's own timer that replaces a reader whose descriptor that select found readable is
    # not undone by asyncio's step (which removes a reader whose handle was cancelled).
    loop = factory()
    assert isinstance(loop, ca.EventLoop)
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    got: list[str] = []
    try:
        done = loop.create_future()

        def old() -> None:
            got.append("old")
            reader.recv(100)

        def new() -> None:
            got.append("new")
            reader.recv(100)
            if not done.done():
                done.set_result(None)

        def swap(_: cadence.Tick) -> None:
            loop.remove_reader(reader)
            loop.add_reader(reader, new)

        loop.add_reader(reader, old)
        writer.send(b"x")  # readable at the next select
        loop.cadence.schedule(0.0, swap)  # due at the next select too
        loop.run_until_complete(asyncio.wait_for(done, 5))
        assert got == ["new"]
        assert loop.remove_reader(reader)  # still registered
    finally:
        loop.close()
        reader.close()
        writer.close()


@pytest.mark.parametrize("make", [ca.EventLoop, ca.VirtualEventLoop], ids=["real", "virtual"])
def test_run_forever_inside_its_own_run_fails_as_asyncios(
    make: Callable[[], asyncio.AbstractEventLoop],
) -> None:
    errors: list[BaseException] = []
    loop = make()

    def again() -> None:
        try:
            loop.run_forever()
        except BaseException as error:  # noqa: BLE001 - compared below
            errors.append(error)
        loop.stop()

    try:
        loop.call_soon(again)
        loop.run_forever()
    finally:
        loop.close()
    assert [type(error) for error in errors] == [RuntimeError]
    assert str(errors[0]) == "This event loop is already running"
