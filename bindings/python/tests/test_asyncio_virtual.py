"""The virtual twin (cadence.asyncio.VirtualEventLoop): time moves only when nothing can run, then
jumps to the next timer; an executor job holds it still; only real time could wake it, it waits
that long at most (idle_limit) and says so."""

from __future__ import annotations

import asyncio
import concurrent.futures
import socket
import time
from typing import Any

import pytest

import cadence
import cadence.asyncio as ca


async def three_hour_long_sleepers() -> list[tuple[str, float]]:
    """Three tasks sleeping an hour each in different steps, beside a 50 ms thread job awaited
    with a 10 s timeout: what ends when, in virtual seconds."""
    loop = asyncio.get_running_loop()
    ends: list[tuple[str, float]] = []

    async def sleeper(name: str, step: float) -> None:
        for _ in range(round(3600 / step)):
            await asyncio.sleep(step)
        ends.append((name, loop.time()))

    def job() -> str:
        time.sleep(0.05)  # real time, while the virtual clock stands still
        return "job"

    async def thread() -> None:
        result = await asyncio.wait_for(asyncio.to_thread(job), 10)
        ends.append((result, loop.time()))

    await asyncio.gather(
        sleeper("minutes", 60), sleeper("hour", 3600), sleeper("quarters", 900), thread()
    )
    return ends


EXPECTED = [("job", 0.0), ("hour", 3600.0), ("quarters", 3600.0), ("minutes", 3600.0)]


def test_three_hour_sleepers_and_a_thread_end_at_exact_virtual_times_at_once() -> None:
    start = time.monotonic()
    assert ca.run(three_hour_long_sleepers(), virtual=True) == EXPECTED
    assert time.monotonic() - start < 1.0


def test_the_same_on_a_thousand_runs() -> None:
    # 25 runs at a time, each on its own thread and loop: the job's 50 ms are real time.
    with concurrent.futures.ThreadPoolExecutor(25) as pool:
        results = list(
            pool.map(lambda _: ca.run(three_hour_long_sleepers(), virtual=True), range(1000))
        )
    assert all(result == EXPECTED for result in results)


def test_a_virtual_loop_starts_at_zero_and_an_hour_takes_no_time() -> None:
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.sleep(3600)
        return start, loop.time()

    assert ca.run(main(), virtual=True) == (0.0, 3600.0)
    assert ca.run(main(), virtual=True) == (0.0, 3600.0)  # a fresh loop: fresh time


def test_ties_fire_in_scheduling_order_and_timeouts_are_exact() -> None:
    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        seen: list[object] = []
        for name in "abc":
            loop.call_later(5, seen.append, name)
        try:
            await asyncio.wait_for(asyncio.sleep(10), 7.5)
        except asyncio.TimeoutError:
            seen.append(loop.time())
        return seen

    assert ca.run(main(), virtual=True) == ["a", "b", "c", 7.5]


def test_tolerance_moves_the_clock_to_the_coalesced_wakeup() -> None:
    async def main() -> list[float]:
        loop = asyncio.get_running_loop()
        ends: list[float] = []

        async def sleeper(delay: float) -> None:
            await asyncio.sleep(delay)
            ends.append(loop.time())

        await asyncio.gather(sleeper(1.0), sleeper(1.5), sleeper(3.0))
        return ends

    # Windows [1, 2], [1.5, 2.5], [3, 4]: one wake-up at 1.5 serves the first two.
    assert ca.run(main(), virtual=True, tolerance=1.0) == [1.5, 1.5, 3.0]
    assert ca.run(main(), virtual=True) == [1.0, 1.5, 3.0]


def test_a_job_longer_than_the_idle_limit_is_an_error_not_a_hang() -> None:
    async def main() -> None:
        await asyncio.to_thread(time.sleep, 0.5)

    loop = ca.VirtualEventLoop(idle_limit=0.1)
    try:
        with pytest.raises(ca.VirtualTimeError, match="an executor job"):
            loop.run_until_complete(main())
    finally:
        loop.close()


def test_a_job_that_waits_for_the_loops_own_timer_is_named_in_the_error() -> None:
    """A job holds the clock, so one that waits for a sleep on the loop waits for ever: the error
    says why, instead of naming the job alone."""
    waits: list[concurrent.futures.Future[str]] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def job() -> str:
            waits.append(asyncio.run_coroutine_threadsafe(asyncio.sleep(1, "slept"), loop))
            return waits[0].result()

        await asyncio.to_thread(job)

    loop = ca.VirtualEventLoop(idle_limit=0.1)
    try:
        with pytest.raises(ca.VirtualTimeError, match=r"while 1 timer\(s\) are armed: a timeout"):
            loop.run_until_complete(main())
        waits[0].cancel()  # the job ends
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


def test_waiting_for_what_nothing_will_bring_is_an_error_not_a_hang() -> None:
    async def main() -> None:
        await asyncio.get_running_loop().create_future()  # nothing sets it

    loop = ca.VirtualEventLoop(idle_limit=0.1)
    try:
        with pytest.raises(ca.VirtualTimeError, match="no timer is armed"):
            loop.run_until_complete(main())
    finally:
        loop.close()


def test_a_cadence_loops_sleep_and_streams_run_on_the_virtual_twin() -> None:
    async def main() -> tuple[list[float], float, float, list[float]]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.VirtualEventLoop)
        cadence_loop = loop.cadence
        await cadence_loop.sleep(2.5)
        slept = cadence_loop.now()
        await cadence_loop.sleep_until(10)
        until = cadence_loop.now()
        dates: list[float] = []
        async for date in cadence_loop.publish(1.0).autoconnect():
            dates.append(date)
            if len(dates) == 3:
                break
        sleeper = asyncio.ensure_future(cadence_loop.sleep(100))
        await asyncio.sleep(1)
        armed = cadence_loop.armed_timer_count
        sleeper.cancel()
        await asyncio.sleep(0)
        return dates, slept, until, [armed, cadence_loop.armed_timer_count]

    dates, slept, until, armed = ca.run(main(), virtual=True)
    assert (slept, until) == (2.5, 10.0)
    assert dates == [11.0, 12.0, 13.0]
    assert armed == [1, 0]  # the cancelled sleep's one-shot is freed at once


def test_the_time_limit_error_names_the_date_to_the_nanosecond() -> None:
    # 2 ns past the limit: a date formatted with %g read "at 10 s, past time_limit 10 s".
    with pytest.raises(ca.VirtualTimeError, match=r"at 10\.00000000\d* s, past time_limit 10 s"):
        ca.run(asyncio.sleep(10.000000002), virtual=True, time_limit=10)


def test_a_loop_sleep_needs_something_to_run_the_loop() -> None:
    async def main() -> None:
        import cadence

        with cadence.Loop.virtual() as loop:
            with pytest.raises(
                RuntimeError,
                match=r"nothing runs this one: run async code on cadence\.asyncio\.Virtual",
            ):
                await loop.sleep(1)
            with pytest.raises(cadence.InvalidArgument, match="seconds must be >= 0"):
                await loop.sleep(-1)
            with pytest.raises(cadence.InvalidArgument, match="date must be finite"):
                await loop.sleep_until(float("nan"))

    asyncio.run(main())


def test_a_deadlock_beside_a_periodic_task_stops_at_the_time_limit() -> None:
    async def main() -> None:
        async def heartbeat() -> None:
            while True:
                await asyncio.sleep(1)

        beating = asyncio.ensure_future(heartbeat())
        await asyncio.Event().wait()  # nobody sets it
        beating.cancel()

    start = time.monotonic()
    with pytest.raises(ca.VirtualTimeError, match="past time_limit 3600 s"):
        ca.run(main(), virtual=True, time_limit=3600)
    assert time.monotonic() - start < 5


def test_a_deadlock_says_it_is_waiting_for_nothing() -> None:
    async def wait_for_ever() -> None:
        await asyncio.Event().wait()  # made in the loop: before 3.10 an Event takes the current one

    with pytest.raises(ca.VirtualTimeError, match="a deadlock"):
        ca.run(wait_for_ever(), virtual=True, idle_limit=0.1)


def test_a_sleep_past_the_clocks_end_says_so() -> None:
    # 2e10 s is past the virtual clock's end (2^64 - 1 ns): armed, but no jump reaches it.
    with pytest.raises(
        ca.VirtualTimeError, match=r"1 timer\(s\) due only at the virtual clock's end"
    ):
        ca.run(asyncio.sleep(2e10), virtual=True, idle_limit=0.1)


def test_the_virtual_clock_reads_the_dates_asked_for() -> None:
    # Each sleep ends at time() + 0.1, as a double adds them, or at the whole nanosecond that
    # reads later (0.1 + 0.2 is just past 0.3, and read so; 0.7 + 0.1 is just short of 0.8,
    # which is read): never before the date, and no nanosecond of rounding shows.
    async def main() -> tuple[list[float], float, float]:
        loop = asyncio.get_running_loop()
        seen = []
        for _ in range(10):
            await asyncio.sleep(0.1)
            seen.append(loop.time())
        fired = loop.create_future()
        loop.call_at(1.3, lambda: fired.set_result(loop.time()))
        at = await fired
        await asyncio.sleep(3600)
        return seen, at, loop.time()

    seen, at, hour = ca.run(main(), virtual=True)
    expected, reading = [], 0.0
    for _ in range(10):
        date = reading + 0.1
        reading = max(date, round(date * 1e9) / 1e9)
        expected.append(reading)
    assert seen == expected
    assert seen[2] == 0.1 + 0.1 + 0.1 > 0.3
    assert seen[7] == 0.8
    assert at == 1.3
    assert hour == 3601.3


def test_a_loop_that_sleeps_until_a_deadline_ends_at_it() -> None:
    # 0.003 + 0.006 is a double just past 0.009, which the clock's nanoseconds cannot hold: the
    # sleep until it still ends with time() at the deadline, not a nanosecond before it for ever.
    async def main() -> tuple[int, float]:
        loop = asyncio.get_running_loop()
        deadline, sleeps = 0.003 + 0.006, 0
        while (left := deadline - loop.time()) > 0:
            sleeps += 1
            assert sleeps < 10
            await asyncio.sleep(left)
        return sleeps, loop.time()

    assert ca.run(main(), virtual=True) == (1, 0.003 + 0.006)


def test_a_closed_virtual_loop_keeps_its_time_and_refuses_timers_as_asyncio_does() -> None:
    loop = ca.VirtualEventLoop()
    loop.run_until_complete(asyncio.sleep(1.5))
    loop.close()
    assert loop.time() == 1.5
    with pytest.raises(RuntimeError, match="Event loop is closed"):
        loop.call_later(1, print)
    with pytest.raises(RuntimeError, match="Event loop is closed"):
        loop.call_at(3, print)


def test_a_subprocess_that_never_starts_holds_nothing() -> None:
    async def main() -> tuple[list[str], float]:
        failed = []
        try:
            await asyncio.create_subprocess_exec("/nonexistent/program")
        except FileNotFoundError:
            failed.append("exec")
        try:
            await asyncio.create_subprocess_shell("true", cwd="/nonexistent/folder")
        except FileNotFoundError:
            failed.append("shell")
        await asyncio.sleep(1)
        return failed, asyncio.get_running_loop().time()

    assert ca.run(main(), virtual=True, idle_limit=5) == (["exec", "shell"], 1.0)


def _double(x: int) -> int:
    return x * 2


def test_a_process_pool_job_holds_the_clock_until_its_result() -> None:
    async def main() -> tuple[int, float]:
        loop = asyncio.get_running_loop()
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            result = await loop.run_in_executor(pool, _double, 21)
        return result, loop.time()

    assert ca.run(main(), virtual=True) == (42, 0.0)


def test_in_debug_mode_run_in_executor_refuses_a_coroutine_function_as_asyncio_does() -> None:
    async def coroutine() -> int:
        return 1

    loop = ca.VirtualEventLoop()
    loop.set_debug(True)
    try:
        with pytest.raises(TypeError, match="coroutines cannot be used with run_in_executor"):
            loop.run_in_executor(None, coroutine)
    finally:
        loop.close()


def test_a_subprocess_holds_the_clock_until_it_exits() -> None:
    async def main() -> tuple[bytes, float]:
        loop = asyncio.get_running_loop()
        process = await asyncio.create_subprocess_exec(
            "sh", "-c", "sleep 0.05; echo hi", stdout=asyncio.subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(process.communicate(), 5)
        return out, loop.time()

    for _ in range(5):
        assert ca.run(main(), virtual=True) == (b"hi\n", 0.0)


def test_limits_are_checked() -> None:
    with pytest.raises(cadence.InvalidArgument, match="time_limit must be > 0"):
        ca.VirtualEventLoop(time_limit=0)
    with pytest.raises(TypeError, match="virtual loop only"):
        ca.EventLoopPolicy(time_limit=5)
    with pytest.raises(cadence.InvalidArgument, match="tolerance must be >= 0"):
        ca.EventLoopPolicy(tolerance=-1)


def test_the_clock_stands_still_while_the_default_executor_shuts_down() -> None:
    # asyncio (3.12+) waits for the executor's threads under a timeout (300 s in asyncio.run),
    # which the clock would reach at once while the threads join in real time.
    class SlowToShutDown(concurrent.futures.ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, **kwargs: Any) -> None:
            time.sleep(0.05)  # real time
            super().shutdown(wait, **kwargs)

    async def main() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(SlowToShutDown(1))
        ends: list[tuple[str, float]] = []

        async def sleeper() -> None:
            await asyncio.sleep(100)
            ends.append(("slept", loop.time()))

        task = asyncio.create_task(sleeper())
        await asyncio.sleep(0)
        await loop.shutdown_default_executor()
        ends.append(("shut down", loop.time()))
        await task
        return ends

    assert ca.run(main(), virtual=True) == [("shut down", 0.0), ("slept", 100.0)]


def test_an_executor_job_gets_its_arguments_and_a_host_name_resolves() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            results: list[Any] = [
                await loop.run_in_executor(None, pow, 2, 10),
                await loop.run_in_executor(pool, pow, 3, 3),
            ]
        # asyncio resolves names in the default executor, with arguments.
        addresses = await loop.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)
        results.append(any(address[4][1] == 80 for address in addresses))
        results.append(loop.time())
        return results

    assert ca.run(main(), virtual=True) == [1024, 27, True, 0.0]


def test_a_timer_at_the_time_limit_is_within_it() -> None:
    async def main() -> float:
        for _ in range(3):
            await asyncio.sleep(0.1)  # 0.2 + 0.1 is just past 0.3 as doubles: 0.3 on the clock
        return asyncio.get_running_loop().time()

    assert ca.run(main(), virtual=True, time_limit=0.3) == 0.1 + 0.1 + 0.1
    for limit in (2.4081742867097494e-06, 1.0000000005, 222.23621908606077, 2297306.702888101):
        ca.run(asyncio.sleep(limit), virtual=True, time_limit=limit)  # C rounds a date up
    with pytest.raises(ca.VirtualTimeError, match=r"past time_limit 0\.3 s"):
        ca.run(asyncio.sleep(0.300000001), virtual=True, time_limit=0.3)


def test_a_jump_reaches_the_next_timers_date_to_the_nanosecond() -> None:
    # A jump is a wait in seconds, a double, which C rounds up to whole nanoseconds: 0.067 s as
    # a double is just past 67 ms, and the clock ran to 67,000,001 ns.
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        seen: list[Any] = []
        for delay in (0.067, 0.067, 0.133):
            start = loop.time()
            await asyncio.sleep(delay)
            seen.append(round((loop.time() - start - delay) * 1e9))
        base = loop.time()
        order: list[str] = []

        def first() -> None:
            order.append("A")
            loop.call_soon(order.append, "A's")

        loop.call_at(base + 61e-9, first)
        loop.call_at(base + 62e-9, order.append, "B")  # a nanosecond later: a later iteration
        await asyncio.sleep(1e-6)
        seen.append(order)
        return seen

    assert ca.run(main(), virtual=True) == [0, 0, 0, ["A", "A's", "B"]]
