"""The pytest plugin's ``cadence_asyncio`` marker: an async test on a fresh virtual event loop,
its clock at 0 in every test; ``virtual=False`` for the real Cadence event loop."""

from __future__ import annotations

import asyncio
from importlib import metadata

import pytest

import cadence.asyncio as ca
from cadence import Loop
from cadence.testing import Timeline


@pytest.mark.cadence_asyncio
async def test_an_hour_passes_at_once_from_zero() -> None:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, ca.VirtualEventLoop)
    assert loop.time() == 0.0
    await asyncio.sleep(3600)
    assert loop.time() == 3600.0


@pytest.mark.cadence_asyncio
async def test_the_next_test_starts_at_zero_again() -> None:
    assert asyncio.get_running_loop().time() == 0.0


@pytest.mark.cadence_asyncio
async def test_virtual_loop_and_timeline_are_the_event_loops_own(
    virtual_loop: Loop, timeline: Timeline
) -> None:
    """Under the marker, ``virtual_loop`` is the test's ``loop.cadence``: what is made on it moves
    with the test's awaits, and ``timeline`` records on it."""
    assert virtual_loop is asyncio.get_running_loop().cadence  # type: ignore[attr-defined]
    countdown = virtual_loop.countdown(3.0, 1.0, timeline, on_finish=timeline.finish)
    await asyncio.sleep(5)
    assert timeline.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]
    assert countdown.cancelled  # finished


@pytest.mark.cadence_asyncio(virtual=False)
async def test_virtual_loop_beside_a_real_event_loop_is_a_loop_of_its_own(
    virtual_loop: Loop,
) -> None:
    assert virtual_loop is not asyncio.get_running_loop().cadence  # type: ignore[attr-defined]
    assert virtual_loop.is_virtual
    assert virtual_loop.now() == 0.0


def test_a_hypothesis_test_runs_each_example_from_zero(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import asyncio
        import pytest
        from hypothesis import given, settings, strategies

        import cadence.asyncio

        runs = []

        @pytest.mark.cadence_asyncio
        @settings(max_examples=20, database=None, deadline=None)
        @given(strategies.integers(0, 10**6))
        async def test_sleeps(seconds):
            loop = asyncio.get_running_loop()
            assert isinstance(loop, cadence.asyncio.VirtualEventLoop)
            assert loop.time() == 0.0
            await asyncio.sleep(seconds)
            runs.append(loop.time() == seconds)

        def test_every_example_ran():
            assert len(runs) >= 2 and all(runs)
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.assert_outcomes(passed=2)


def test_a_hypothesis_test_marked_in_one_case_leaves_the_others_as_they_are(
    pytester: pytest.Pytester,
) -> None:
    # The cases share one function, whose Hypothesis test the marker changes for its own case
    # only: an unmarked case after it ran on Cadence's loop too.
    pytester.makepyfile(
        """
        import pytest
        from hypothesis import given, settings, strategies

        seen = []

        @pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.cadence_asyncio), 2])
        @settings(max_examples=2, database=None, deadline=None)
        @given(strategies.just(0))
        async def test_cases(x, n):
            seen.append(x)

        def test_only_the_marked_case_ran():
            assert set(seen) == {1}
        """
    )
    result = pytester.runpytest("-v", "-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.stdout.fnmatch_lines(
        ["*test_cases?1? PASSED*", "*test_only_the_marked_case_ran PASSED*"]
    )


def test_an_async_fixture_fails_the_marked_test_clearly(pytester: pytest.Pytester) -> None:
    """pytest-asyncio (strict mode) makes an async fixture on its own loop, which does not run
    while the marker runs the test on Cadence's: a server made there would never answer."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        """
        import asyncio
        import pytest
        import pytest_asyncio

        @pytest_asyncio.fixture
        async def number():
            await asyncio.sleep(0)
            return 1

        @pytest.mark.cadence_asyncio
        async def test_with_it(number):
            await asyncio.sleep(1)
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the async fixture 'number' was made on another*"])


def test_a_plain_override_of_an_async_fixture_fails_the_marked_test_too(
    pytester: pytest.Pytester,
) -> None:
    """A plain fixture that extends an async one of the same name (it asks for its own name)
    still hands the test what the async one made on pytest-asyncio's loop: only the last
    definition was looked at, and the test ran with a value of another loop."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(
        """
        import asyncio
        import pytest_asyncio

        @pytest_asyncio.fixture
        async def made():
            yield asyncio.get_running_loop()
        """
    )
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        @pytest.fixture
        def made(made):
            return made

        @pytest.mark.cadence_asyncio
        async def test_with_it(made):
            assert made is asyncio.get_running_loop()
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the async fixture 'made' was made on another*"])


@pytest.mark.cadence_asyncio(virtual=False, tolerance=0.001)
async def test_the_real_loop_with_a_fixture(tmp_path: object) -> None:
    loop = asyncio.get_running_loop()
    assert type(loop) is ca.EventLoop
    start = loop.time()
    await asyncio.sleep(0.01)
    assert loop.time() - start >= 0.01
    assert tmp_path is not None


def test_a_failing_marked_test_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        @pytest.mark.cadence_asyncio
        async def test_wrong():
            await asyncio.sleep(1)
            assert asyncio.get_running_loop().time() == 2.0
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)


def test_pytest_asyncio_runs_its_tests_on_the_virtual_twin(pytester: pytest.Pytester) -> None:
    """pytest-asyncio takes Cadence's loop from its loop-factory hook (1.4 on) or its
    ``event_loop_policy`` fixture (0.23 to 1.3: the newest for Python 3.9 is 1.2), as
    docs/python.md shows; each test starts at 0."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    version = tuple(int(part) for part in metadata.version("pytest-asyncio").split(".")[:2])
    if version >= (1, 4):
        pytester.makeconftest(
            """
            import cadence.asyncio

            def pytest_asyncio_loop_factories(config, item):
                return {"cadence-virtual": cadence.asyncio.VirtualEventLoop}
            """
        )
    else:
        pytester.makeconftest(
            """
            import pytest
            import cadence.asyncio

            @pytest.fixture(scope="session")
            def event_loop_policy():
                return cadence.asyncio.EventLoopPolicy(virtual=True)
            """
        )
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        @pytest.mark.asyncio
        async def test_an_hour():
            loop = asyncio.get_running_loop()
            assert type(loop).__name__ == "VirtualEventLoop"
            await asyncio.sleep(3600)
            assert loop.time() == 3600.0

        @pytest.mark.asyncio
        async def test_from_zero_again():
            assert asyncio.get_running_loop().time() == 0.0
        """
    )
    result = pytester.runpytest("-W", "error")
    result.assert_outcomes(passed=2)


def test_the_marker_under_pytest_asyncios_auto_mode_fails_clearly(
    pytester: pytest.Pytester,
) -> None:
    """pytest-asyncio's auto mode runs every async test itself: the marker cannot work there, and
    says so instead of letting an hour-long sleep really last an hour."""
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\nasyncio_mode = auto\n"
    )
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        @pytest.mark.cadence_asyncio
        async def test_an_hour():
            await asyncio.sleep(3600)
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin")
    result.assert_outcomes(failed=1)
    # Both ways, for pytest-asyncio before 1.4 (the newest for Python 3.9) has no such hook.
    result.stdout.fnmatch_lines(["*pytest_asyncio_loop_factories*event_loop_policy*"])


def test_the_marker_passes_its_limits_on(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        @pytest.mark.cadence_asyncio(time_limit=10)
        async def test_a_deadlock_beside_a_heartbeat():
            async def beat():
                while True:
                    await asyncio.sleep(1)

            asyncio.ensure_future(beat())
            await asyncio.Event().wait()
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*VirtualTimeError*past time_limit 10 s*"])


def test_bad_marker_options_fail_the_test_naming_the_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cadence_asyncio(False)
        async def test_positional():
            pass

        @pytest.mark.cadence_asyncio(virtual="no")
        async def test_not_a_bool():
            pass

        @pytest.mark.cadence_asyncio(foo=1)
        async def test_unknown():
            pass

        @pytest.mark.cadence_asyncio(tolerance=-1)
        async def test_bad_tolerance():
            pass
        """
    )
    result = pytester.runpytest(
        "-p", "cadence.pytest_plugin", "-p", "no:asyncio", "-W", "error::RuntimeWarning"
    )
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "*cadence_asyncio(False): options must be given by name (virtual, tolerance, *",
            "*cadence_asyncio(virtual='no'): virtual must be True or False, got 'no'*",
            "*cadence_asyncio(foo=1): unknown option 'foo' (known: virtual, tolerance, *",
            "*cadence_asyncio(tolerance=-1): *tolerance must be >= 0*",
        ]
    )
    result.stdout.no_fnmatch_line("*never awaited*")


def test_a_marked_module_runs_its_plain_tests_as_they_are(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import asyncio
        import pytest

        pytestmark = pytest.mark.cadence_asyncio

        async def test_an_hour():
            await asyncio.sleep(3600)
            assert asyncio.get_running_loop().time() == 3600.0

        def test_plain():
            assert True

        class TestGroup:
            pytestmark = pytest.mark.cadence_asyncio

            def test_plain_in_a_class(self):
                assert True
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.assert_outcomes(passed=3)


def test_the_marker_on_a_plain_function_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cadence_asyncio
        def test_plain():
            assert True
        """
    )
    result = pytester.runpytest("-p", "cadence.pytest_plugin", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*this one is a plain function*"])
    result.stdout.no_fnmatch_line("*pytest-asyncio*")
